/// How the captured image must be turned to be upright: the eight EXIF orientations.
///
/// In the direct form each is a clockwise rotation followed, optionally, by a
/// left-right mirror: 1 = (0), 2 = (0, mirror), 3 = (180), 4 = (180, mirror),
/// 5 = (90, mirror), 6 = (90), 7 = (270, mirror), 8 = (270). "6 right" means the
/// captured buffer is turned 90° clockwise to be upright.
public enum ImageOrientation: Int, CaseIterable, Sendable, CustomStringConvertible {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Builds the orientation for a clockwise `rotation` (0, 90, 180 or 270) then an
    /// optional mirror; nil for any other angle.
    public init?(rotation: Int, mirror: Bool) {
        switch (rotation, mirror) {
        case (0, false): self = .up
        case (0, true): self = .upMirrored
        case (180, false): self = .down
        case (180, true): self = .downMirrored
        case (90, true): self = .leftMirrored
        case (90, false): self = .right
        case (270, true): self = .rightMirrored
        case (270, false): self = .left
        default: return nil
        }
    }

    /// The EXIF value, 1…8.
    public var exif: Int { rawValue }

    /// Clockwise degrees that turn the captured image upright (before any mirror).
    public var rotation: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .leftMirrored: 90
        case .down, .downMirrored: 180
        case .left, .rightMirrored: 270
        }
    }

    /// Whether the rotated image is then mirrored left-right.
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: true
        case .up, .down, .left, .right: false
        }
    }

    /// Whether upright width and height are the captured height and width.
    public var swapsAxes: Bool { rotation == 90 || rotation == 270 }

    /// EXIF's name, e.g. `right`, `left-mirrored`.
    public var name: String {
        switch self {
        case .up: "up"
        case .upMirrored: "up-mirrored"
        case .down: "down"
        case .downMirrored: "down-mirrored"
        case .leftMirrored: "left-mirrored"
        case .right: "right"
        case .rightMirrored: "right-mirrored"
        case .left: "left"
        }
    }

    public var description: String { "\(exif) (\(name))" }
}

/// How the device holding the camera is turned, as a phone reports it.
public enum DeviceOrientation: String, CaseIterable, Sendable {
    case portrait
    case portraitUpsideDown = "portrait-upside-down"
    case landscapeLeft = "landscape-left"
    case landscapeRight = "landscape-right"
    case faceUp = "face-up"
    case faceDown = "face-down"
    case unknown
}

/// Which way the camera faces. V4L2 reports it as V4L2_CID_CAMERA_ORIENTATION.
public enum CameraPosition: String, CaseIterable, Sendable {
    case front, back, external
}

extension ImageOrientation {
    /// ML Kit's table from device orientation and camera position to image orientation.
    /// An external camera is treated like a back camera: its image is not mirrored.
    public init(device: DeviceOrientation, camera: CameraPosition) {
        let front = camera == .front
        switch device {
        case .portrait: self = front ? .leftMirrored : .right
        case .landscapeLeft: self = front ? .downMirrored : .up
        case .portraitUpsideDown: self = front ? .rightMirrored : .left
        case .landscapeRight: self = front ? .upMirrored : .down
        case .faceUp, .faceDown, .unknown: self = .up
        }
    }
}

/// What the user (flags, config, socket) or the camera said about orientation.
/// The direct form (`rotation`, `mirror`) wins over the device form.
public struct OrientationSettings: Equatable, Sendable {
    public var deviceOrientation: DeviceOrientation?
    public var cameraPosition: CameraPosition?
    /// Clockwise degrees that make the captured image upright.
    public var rotation: Int?
    public var mirror: Bool?
    /// `rotation auto`: the quarter turn is found from the text itself, and `rotation`
    /// (when set) is only where the search starts. Part of the direct form: `mirror`
    /// still applies.
    public var automaticRotation: Bool?

    public init(deviceOrientation: DeviceOrientation? = nil, cameraPosition: CameraPosition? = nil,
                rotation: Int? = nil, mirror: Bool? = nil, automaticRotation: Bool? = nil) {
        self.deviceOrientation = deviceOrientation
        self.cameraPosition = cameraPosition
        self.rotation = rotation
        self.mirror = mirror
        self.automaticRotation = automaticRotation
    }

    /// Fields set here replace those of `base`; a rotation in degrees given here also
    /// turns an automatic rotation of `base` off.
    public func overriding(_ base: OrientationSettings) -> OrientationSettings {
        OrientationSettings(deviceOrientation: deviceOrientation ?? base.deviceOrientation,
                            cameraPosition: cameraPosition ?? base.cameraPosition,
                            rotation: rotation ?? base.rotation,
                            mirror: mirror ?? base.mirror,
                            automaticRotation: automaticRotation ?? (rotation != nil ? nil : base.automaticRotation))
    }

    /// Whether the quarter turn is found automatically.
    public var isAutomatic: Bool { automaticRotation == true && deviceOrientation == nil }

    /// The resulting image orientation (with ``isAutomatic``, the one the search starts from).
    public var imageOrientation: ImageOrientation {
        if rotation != nil || mirror != nil || isAutomatic {
            return ImageOrientation(rotation: rotation ?? 0, mirror: mirror ?? false) ?? .up
        }
        if let deviceOrientation {
            return ImageOrientation(device: deviceOrientation, camera: cameraPosition ?? .back)
        }
        return .up
    }
}
