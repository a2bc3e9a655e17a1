/// The files kept for an accepted reading (MATCH `evidence`, proto_minor 11): the frame
/// as captured, turned upright (JPEG), and the matched line's crop (JPEG).
public struct MatchEvidence: Equatable, Sendable {
    /// Absolute path of the frame's JPEG.
    public var frame: String
    /// Absolute path of the line's crop (JPEG).
    public var crop: String

    public init(frame: String, crop: String) {
        self.frame = frame
        self.crop = crop
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder()
        object.add("frame", frame)
        object.add("crop", crop)
        return object.value
    }

    /// The member `key` of `reader`, or nil when absent.
    init?(_ reader: MemberReader, _ key: String) throws(ProtocolError) {
        guard let object = try reader.object(key) else { return nil }
        self.init(frame: try object.required("frame", object.string), crop: try object.required("crop", object.string))
    }
}
