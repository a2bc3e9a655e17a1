/// HISTORY (proto_minor 11): the reply to a HISTORY request, the MATCHes asked for,
/// newest first, each as it was published.
public struct HistoryMessage: ProtocolMessage {
    public static let messageClass = "HISTORY"
    public var matches: [MatchMessage]

    public init(matches: [MatchMessage]) { self.matches = matches }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(matches: try m.required("matches") { (key) throws(ProtocolError) in
            try m.array(key) { (item, _) throws(ProtocolError) in try MatchMessage(json: item) }
        })
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("matches", .array(matches.map(\.json)))
        return object.value
    }
}
