/// Any line the server sends, decoded into its type. A class this release does not know
/// is kept as ``other(_:)``: clients must ignore unknown classes and members (gpsd's rule).
public enum ServerMessage: Equatable, Sendable {
    case version(VersionMessage)
    case error(ErrorMessage)
    case overflow(OverflowMessage)
    case watch(WatchMessage)
    case devices(DevicesMessage)
    case orientation(OrientationMessage)
    case snapshot(SnapshotMessage)
    case text(TextMessage)
    case frame(FrameMessage)
    case track(TrackMessage)
    case match(MatchMessage)
    case code(CodeMessage)
    case poll(PollMessage)
    case status(StatusMessage)
    case history(HistoryMessage)
    /// A message of a class this release does not know.
    case other(JSONValue)

    /// The server message types, by class.
    public static let types: [any ProtocolMessage.Type] = [
        VersionMessage.self, ErrorMessage.self, OverflowMessage.self, WatchMessage.self, DevicesMessage.self,
        OrientationMessage.self, SnapshotMessage.self, TextMessage.self, FrameMessage.self, TrackMessage.self, PollMessage.self,
        StatusMessage.self, MatchMessage.self, HistoryMessage.self, CodeMessage.self,
    ]

    /// Parses one line (without its newline) as a JSON object with a `class` string.
    public static func parseObject(_ line: some Collection<UInt8>) throws(ProtocolError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ProtocolError(error == .invalidUTF8 ? "line is not valid UTF-8" : "line is not valid JSON: \(error)")
        }
        guard case .object = value else { throw ProtocolError("line is not a JSON object") }
        guard value["class"]?.stringValue != nil else { throw ProtocolError("line has no \"class\" string", member: "class") }
        return value
    }

    /// Decodes one line (without its newline).
    public init(line: some Collection<UInt8>) throws(ProtocolError) {
        try self.init(json: try Self.parseObject(line))
    }

    /// Decodes a parsed message by its `class`.
    public init(json: JSONValue) throws(ProtocolError) {
        switch json["class"]?.stringValue {
        case VersionMessage.messageClass: self = .version(try VersionMessage(json: json))
        case ErrorMessage.messageClass: self = .error(try ErrorMessage(json: json))
        case OverflowMessage.messageClass: self = .overflow(try OverflowMessage(json: json))
        case WatchMessage.messageClass: self = .watch(try WatchMessage(json: json))
        case DevicesMessage.messageClass: self = .devices(try DevicesMessage(json: json))
        case OrientationMessage.messageClass: self = .orientation(try OrientationMessage(json: json))
        case SnapshotMessage.messageClass: self = .snapshot(try SnapshotMessage(json: json))
        case TextMessage.messageClass: self = .text(try TextMessage(json: json))
        case FrameMessage.messageClass: self = .frame(try FrameMessage(json: json))
        case TrackMessage.messageClass: self = .track(try TrackMessage(json: json))
        case MatchMessage.messageClass: self = .match(try MatchMessage(json: json))
        case CodeMessage.messageClass: self = .code(try CodeMessage(json: json))
        case PollMessage.messageClass: self = .poll(try PollMessage(json: json))
        case StatusMessage.messageClass: self = .status(try StatusMessage(json: json))
        case HistoryMessage.messageClass: self = .history(try HistoryMessage(json: json))
        case nil: throw ProtocolError("message has no \"class\" string", member: "class")
        default: self = .other(json)
        }
    }

    /// The typed message inside, nil for ``other(_:)``.
    public var message: (any ProtocolMessage)? {
        switch self {
        case let .version(m): m
        case let .error(m): m
        case let .overflow(m): m
        case let .watch(m): m
        case let .devices(m): m
        case let .orientation(m): m
        case let .snapshot(m): m
        case let .text(m): m
        case let .frame(m): m
        case let .track(m): m
        case let .match(m): m
        case let .code(m): m
        case let .poll(m): m
        case let .status(m): m
        case let .history(m): m
        case .other: nil
        }
    }

    /// The message's `class`.
    public var messageClass: String {
        if let message { return type(of: message).messageClass }
        if case let .other(json) = self { return json["class"]?.stringValue ?? "" }
        return ""
    }

    /// The message as JSON, `class` first.
    public var json: JSONValue {
        if let message { return message.json }
        if case let .other(json) = self { return json }
        return .object([])
    }
}
