/// A JSON value whose objects keep their keys in order, so every protocol object can
/// carry `class` first, as gpsd's do. There is a `null` case only so that a client's
/// `null` can be parsed and refused; Lector writes one only as MATCH `known` (see
/// `KnownLookup`).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member `key` of an object (the first, if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    public var stringValue: String? { if case let .string(value) = self { value } else { nil } }
    public var boolValue: Bool? { if case let .bool(value) = self { value } else { nil } }
    public var doubleValue: Double? { if case let .number(value) = self { value } else { nil } }
    public var arrayValue: [JSONValue]? { if case let .array(value) = self { value } else { nil } }
    public var objectValue: [(String, JSONValue)]? { if case let .object(value) = self { value } else { nil } }

    /// The number as an integer when it is one exactly.
    public var intValue: Int? {
        guard case let .number(value) = self, value.rounded() == value, abs(value) < 9e15 else { return nil }
        return Int(value)
    }

    public static func int(_ value: Int) -> JSONValue { .number(Double(value)) }
}

/// Builds an ordered JSON object, leaving out absent values (gpsd: no nulls).
public struct JSONObjectBuilder {
    public private(set) var members: [(String, JSONValue)] = []

    public init(class name: String) { members.append(("class", .string(name))) }

    public init() {}

    public mutating func add(_ key: String, _ value: JSONValue?) {
        if let value { members.append((key, value)) }
    }
    public mutating func add(_ key: String, _ value: String?) { add(key, value.map(JSONValue.string)) }
    public mutating func add(_ key: String, _ value: Int?) { add(key, value.map(JSONValue.int)) }
    public mutating func add(_ key: String, _ value: Double?) { add(key, value.map(JSONValue.number)) }
    public mutating func add(_ key: String, _ value: Bool?) { add(key, value.map(JSONValue.bool)) }

    public var value: JSONValue { .object(members) }
}
