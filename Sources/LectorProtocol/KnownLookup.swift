/// What a rule's known list made of a reading (MATCH `known`, proto_minor 11): the entry
/// it was taken as, or no entry. The one member Lector writes as `null`: a rule with a
/// known list says "not known" explicitly; a rule without one leaves `known` out.
public enum KnownLookup: Equatable, Sendable {
    /// No entry lies within the rule's `max_distance`.
    case unknown
    /// The entry the reading was taken as.
    case entry(KnownEntry)

    /// The entry, or nil when the reading is not known.
    public var entry: KnownEntry? {
        if case let .entry(entry) = self { entry } else { nil }
    }

    public var json: JSONValue {
        switch self {
        case .unknown: .null
        case let .entry(entry): entry.json
        }
    }

    /// The member `key` of `reader`: nil when absent, `.unknown` for `null`.
    init?(_ reader: MemberReader, _ key: String) throws(ProtocolError) {
        guard let member = reader.value[key] else { return nil }
        if member == .null {
            self = .unknown
            return
        }
        guard let object = try reader.object(key) else { return nil }
        self = .entry(KnownEntry(text: try object.required("text", object.string), name: try object.string("name"),
                                 distance: try object.required("distance", object.int)))
    }
}

/// An entry of a known list that a reading was within `max_distance` edits of.
public struct KnownEntry: Equatable, Sendable {
    /// The entry's text, as the list has it (`B0ABC123`).
    public var text: String
    /// The entry's name (`TEXT<TAB>NAME`), when the list gives one.
    public var name: String?
    /// Edits between the reading (after look-alike folding) and the entry.
    public var distance: Int

    public init(text: String, name: String?, distance: Int) {
        self.text = text
        self.name = name
        self.distance = distance
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder()
        object.add("text", text)
        object.add("name", name)
        object.add("distance", distance)
        return object.value
    }
}
