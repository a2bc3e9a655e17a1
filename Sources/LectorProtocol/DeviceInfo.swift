/// Where a camera is in its life.
public enum CameraState: String, CaseIterable, Sendable {
    /// Being opened and negotiated.
    case opening
    /// Delivering frames.
    case streaming
    /// Gone or failing; being retried.
    case lost
    /// Not opened (nobody watches it, or the replay ended).
    case idle
}

/// What is known about a camera: the content of a DEVICES entry.
public struct DeviceInfo: Equatable, Sendable {
    /// The path or name it was given (`/dev/video0`, `demo`).
    public var path: String
    public var state: CameraState
    /// Human-readable name (V4L2 card name, or a description of the replay).
    public var name: String?
    public var driver: String?
    public var card: String?
    public var bus: String?
    /// The negotiated pixel format's FourCC, e.g. `YUYV`.
    public var format: String?
    public var width: Int?
    public var height: Int?
    public var fps: Double?
    /// Why it is lost, when it is.
    public var error: String?
    /// A setting that does not fit what the camera delivers, e.g. a region of interest
    /// outside the image (proto_minor 4).
    public var warning: String?

    public init(path: String, state: CameraState, name: String? = nil) {
        self.path = path
        self.state = state
        self.name = name
    }
}
