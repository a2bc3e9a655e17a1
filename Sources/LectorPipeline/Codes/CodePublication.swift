import LectorImaging
import LectorProtocol

/// The codes that came into view in one frame, ready to publish before its text: their
/// CODE messages, the upright image they were found in (evidence), and what the camera's
/// rules on codes matched (MATCH messages; set by the publisher).
public struct CodePublication: Sendable {
    public var device: String
    public var codes: [CodeMessage]
    public var upright: GrayImage
    /// The frame's capture time, seconds since 1970.
    public var unixTime: Double
    public var matches: [MatchMessage] = []

    public init(device: String, codes: [CodeMessage], upright: GrayImage, unixTime: Double) {
        self.device = device
        self.codes = codes
        self.upright = upright
        self.unixTime = unixTime
    }
}
