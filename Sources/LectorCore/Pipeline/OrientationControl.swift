import LectorProtocol
import LectorSystem
import Synchronization

/// A camera's orientation settings, changeable live (a client's ORIENTATION request)
/// while the recognizer reads them for every frame.
public final class OrientationControl: Sendable {
    private let settings: Mutex<OrientationSettings>

    public init(_ settings: OrientationSettings = OrientationSettings()) {
        self.settings = Mutex(settings)
    }

    public var current: OrientationSettings { settings.withLock { $0 } }

    /// The image orientation the next frame is turned by.
    public var imageOrientation: ImageOrientation { current.imageOrientation }

    /// Applies the fields set in `change` and returns the new image orientation.
    /// A change in the device form clears an earlier direct form, and vice versa, so the
    /// newest request decides.
    @discardableResult
    public func update(_ change: OrientationSettings) -> ImageOrientation {
        settings.withLock { settings in
            if change.deviceOrientation != nil || change.cameraPosition != nil {
                if change.rotation == nil && change.mirror == nil {
                    settings.rotation = nil
                    settings.mirror = nil
                }
            } else if change.rotation != nil || change.mirror != nil {
                settings.deviceOrientation = nil  // the camera position stays: it is where the camera is
            }
            settings = change.overriding(settings)
            return settings.imageOrientation
        }
    }

    /// Replaces every setting (a configuration reload).
    public func replace(with settings: OrientationSettings) {
        self.settings.withLock { $0 = settings }
    }
}
