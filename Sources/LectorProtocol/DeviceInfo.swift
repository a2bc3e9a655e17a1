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
    /// The source it was given (`/dev/video0`, a replay's folder, `demo`).
    public var path: String
    public var state: CameraState
    /// The camera's name, its `device` in every other message (`[camera NAME]`, or its
    /// path); before proto_minor 5 this was what ``card`` now says.
    public var name: String?
    public var driver: String?
    /// The driver's name for the device (V4L2 card name, libcamera model, a description of the replay).
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
    /// The camera's zones (proto_minor 5); nil when it has none (the whole frame is read).
    public var zones: [ZoneInfo]?
    /// How the whole frame is laid out into lines (proto_minor 7): `tesseract` (its page
    /// layout) or `detector` (the text-line detector); nil for a camera that reads zones.
    public var layout: String?
    /// With `lang auto` (proto_minor 10): the Tesseract languages installed, those a
    /// scene's script can be read with (e.g. `["chi_sim", "eng", "jpn", "osd"]`).
    public var languages: [String]?
    /// The camera's rules (proto_minor 11); nil when it has none.
    public var rules: [RuleInfo]?
    /// The formats of the QR codes and barcodes the camera reads, anywhere in it (the
    /// camera's `codes` and its zones'; proto_minor 15), in ``CodeFormat/allCases``'
    /// order; nil when it reads none (codes off, or a lectord built without ZXing-C++).
    public var codes: [CodeFormat]?

    public init(path: String, state: CameraState, name: String? = nil) {
        self.path = path
        self.state = state
        self.name = name
    }
}
