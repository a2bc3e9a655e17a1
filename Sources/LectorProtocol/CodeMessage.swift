/// CODE (proto_minor 14): a QR code or barcode came into view of a camera (one message
/// per appearance: a code that stays in view is not announced again until it was out of
/// view for the camera's `codes_repeat_after` seconds). Sent to watchers with `codes: true`.
public struct CodeMessage: ProtocolMessage {
    public static let messageClass = "CODE"
    public var device: String
    /// The zone the code was found in; absent for a code found outside zones.
    public var zone: String?
    public var format: CodeFormat
    /// The content as text (UTF-8 as the library decoded it).
    public var text: String
    /// The raw content, when it is not UTF-8 text (binary payloads): `bytes_base64` on the wire.
    public var binary: [UInt8]?
    /// Where the code is, in the upright image, and its corners in captured-frame pixels.
    public var box: PixelBox
    public var corners: [PixelPoint]
    /// The same corners in the upright image (top-left, top-right, bottom-right, bottom-left as read).
    public var uprightCorners: [PixelPoint]
    /// The frame's sequence number and capture time (RFC 3339 UTC, milliseconds).
    public var sequence: UInt32
    public var time: String

    public init(device: String, zone: String?, format: CodeFormat, text: String, binary: [UInt8]?, box: PixelBox,
                corners: [PixelPoint], uprightCorners: [PixelPoint], sequence: UInt32, time: String) {
        self.device = device
        self.zone = zone
        self.format = format
        self.text = text
        self.binary = binary
        self.box = box
        self.corners = corners
        self.uprightCorners = uprightCorners
        self.sequence = sequence
        self.time = time
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        var binary: [UInt8]?
        if let encoded = try m.string("bytes_base64") {
            guard let decoded = Base64.decode(encoded) else { throw ProtocolError("\"bytes_base64\" is not base64", member: "bytes_base64") }
            binary = decoded
        }
        self.init(device: try m.required("device", m.string), zone: try m.string("zone"),
                  format: try m.required("format") { (key) throws(ProtocolError) in try m.choice(key, CodeFormat.self) },
                  text: try m.required("text", m.string), binary: binary, box: try m.required("box", m.box),
                  corners: try m.required("corners", m.points), uprightCorners: try m.required("upright_corners", m.points),
                  sequence: try m.sequence("seq"), time: try m.required("time", m.string))
    }

    public var json: JSONValue {
        var message = JSONObjectBuilder(class: Self.messageClass)
        message.add("device", device)
        message.add("zone", zone)
        message.add("format", format.rawValue)
        message.add("text", text)
        message.add("bytes_base64", binary.map(Base64.encode))
        message.add("box", boxJSON(box))
        message.add("corners", .array(corners.map(\.json)))
        message.add("upright_corners", .array(uprightCorners.map(\.json)))
        message.add("seq", Int(sequence))
        message.add("time", time)
        return message.value
    }
}
