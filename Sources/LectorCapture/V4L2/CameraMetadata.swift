import CV4L2
import LectorProtocol
import LectorSystem

/// What a camera says about how it is mounted (V4L2_CID_CAMERA_ORIENTATION and
/// V4L2_CID_CAMERA_SENSOR_ROTATION, set from firmware on phones, laptops and Raspberry
/// Pi camera modules); defaults that the user's flags override.
public struct CameraMetadata: Equatable, Sendable {
    /// Which way the camera faces.
    public var position: CameraPosition?
    /// Clockwise degrees that make the captured image upright (V4L2 gives the
    /// correction counter-clockwise; this is its clockwise equivalent).
    public var rotation: Int?

    public init(position: CameraPosition? = nil, rotation: Int? = nil) {
        self.position = position
        self.rotation = rotation
    }

    /// Reads both controls; a driver without them leaves the fields nil.
    init(device: V4L2Device) throws(SystemError) {
        self.init(orientationControl: try device.control(LECTOR_CID_CAMERA_ORIENTATION),
                  sensorRotationControl: try device.control(LECTOR_CID_CAMERA_SENSOR_ROTATION))
    }

    /// Interprets the controls' raw values: orientation 0 front, 1 back, 2 external;
    /// sensor rotation in counter-clockwise degrees (0, 90, 180, 270).
    public init(orientationControl: Int32?, sensorRotationControl: Int32?) {
        switch orientationControl {
        case 0: position = .front
        case 1: position = .back
        case 2: position = .external
        default: position = nil
        }
        if let degrees = sensorRotationControl, degrees % 90 == 0 {
            rotation = (360 - Int(degrees) % 360) % 360
        } else {
            rotation = nil
        }
    }

    /// The orientation to use: `flags` (what the user said) over these defaults. The
    /// camera position fills in when the user gave none; the sensor rotation applies
    /// only when the user said nothing about orientation at all (a given device
    /// orientation or rotation describes the whole correction).
    public func defaults(under flags: OrientationSettings) -> OrientationSettings {
        var settings = flags
        if settings.cameraPosition == nil { settings.cameraPosition = position }
        if flags.rotation == nil, flags.mirror == nil, flags.deviceOrientation == nil, let rotation {
            settings.rotation = rotation
        }
        return settings
    }
}
