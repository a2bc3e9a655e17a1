import LectorProtocol
import LectorSystem
import Synchronization

/// A camera's orientation settings, changeable live (a client's ORIENTATION request)
/// while the recognizer reads them for every frame; with `rotation auto`, also the
/// quarter turn found from the text (``AutoOrientation``).
public final class OrientationControl: Sendable {
    private struct State {
        var settings: OrientationSettings
        /// The turn the last confident check found, while the rotation is automatic.
        var detected: Int?
        /// Counts changes of the settings (not of `detected`): a new value asks for a new check.
        var revision = 0
    }

    private let state: Mutex<State>

    public init(_ settings: OrientationSettings = OrientationSettings()) {
        state = Mutex(State(settings: settings))
    }

    public var current: OrientationSettings { state.withLock { $0.settings } }

    /// The image orientation the next frame is turned by.
    public var imageOrientation: ImageOrientation { state.withLock { Self.orientation(of: $0) } }

    /// Whether the quarter turn is found from the text (`rotation auto`).
    public var isAutomatic: Bool { state.withLock { $0.settings.isAutomatic } }

    /// The orientation in force and whether its turn was found automatically, read at once.
    public var inForce: (orientation: ImageOrientation, automatic: Bool) {
        state.withLock { (Self.orientation(of: $0), $0.settings.isAutomatic) }
    }

    /// Counts changes of the settings: ``AutoOrientation`` checks again after one.
    public var revision: Int { state.withLock { $0.revision } }

    /// The image orientation in force and ``revision``, read at once (the change gate's
    /// question, once per captured frame).
    public var orientationAndRevision: (orientation: ImageOrientation, revision: Int) {
        state.withLock { (Self.orientation(of: $0), $0.revision) }
    }

    /// Records the turn an automatic check found; ignored when the rotation is no longer
    /// automatic. Returns whether the orientation in force changed.
    @discardableResult
    public func setDetectedRotation(_ rotation: Int) -> Bool {
        state.withLock { state in
            guard state.settings.isAutomatic else { return false }
            let before = Self.orientation(of: state)
            state.detected = rotation
            return Self.orientation(of: state) != before
        }
    }

    private static func orientation(of state: State) -> ImageOrientation {
        guard state.settings.isAutomatic, let detected = state.detected else { return state.settings.imageOrientation }
        return ImageOrientation(rotation: detected, mirror: state.settings.mirror ?? false) ?? .up
    }

    /// Applies the fields set in `change` and returns the new image orientation.
    /// A change in the device form clears an earlier direct form, and vice versa, so the
    /// newest request decides. A rotation given explicitly turns `rotation auto` off; a
    /// mirror alone keeps it.
    @discardableResult
    public func update(_ change: OrientationSettings) -> ImageOrientation {
        state.withLock { state in
            var settings = state.settings
            if change.deviceOrientation != nil || change.cameraPosition != nil {
                if change.rotation == nil && change.mirror == nil && change.automaticRotation == nil {
                    settings.rotation = nil
                    settings.mirror = nil
                    settings.automaticRotation = nil
                }
            } else if change.rotation != nil || change.mirror != nil || change.automaticRotation != nil {
                settings.deviceOrientation = nil  // the camera position stays: it is where the camera is
            }
            if change.automaticRotation == true, let detected = state.detected, change.rotation == nil {
                settings.rotation = detected  // where the search goes on from
            }
            settings = change.overriding(settings)
            if !settings.isAutomatic { state.detected = nil }
            state.settings = settings
            state.revision += 1
            return Self.orientation(of: state)
        }
    }

    /// Replaces every setting (a configuration reload); an automatic rotation is searched again.
    public func replace(with settings: OrientationSettings) {
        state.withLock { state in
            state.settings = settings
            state.detected = nil
            state.revision += 1
        }
    }
}

extension OrientationControl {
    /// The ORIENTATION reply for camera `device`: the orientation in force (with an
    /// automatic rotation, the turn found) and the settings behind it.
    public func message(device: String) -> OrientationMessage {
        let settings = current, state = inForce
        return OrientationMessage(device: device, orientation: state.orientation, deviceOrientation: settings.deviceOrientation,
                                  cameraPosition: settings.cameraPosition ?? .back, automaticOrientation: state.automatic)
    }

    /// The camera's DEVICE entry for `info`, with the orientation in force.
    public func deviceMessage(info: DeviceInfo, watched: Bool) -> DeviceMessage {
        let settings = current, state = inForce
        return DeviceMessage(info: info, orientation: state.orientation, deviceOrientation: settings.deviceOrientation,
                             cameraPosition: settings.cameraPosition ?? .back, watched: watched, automaticOrientation: state.automatic)
    }
}
