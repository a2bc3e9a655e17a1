/// Why a server line (or a member of it) cannot be decoded: names the message class and
/// the member at fault.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The class of the message being decoded (`TEXT`, `STATUS`, …), when known.
    public let messageClass: String?
    /// The member at fault (`seq`, `blocks[0].box.x`, …), nil when the whole line is.
    public let member: String?
    /// What is wrong with it.
    public let reason: String

    public init(_ reason: String, messageClass: String? = nil, member: String? = nil) {
        self.messageClass = messageClass
        self.member = member
        self.reason = reason
    }

    public var description: String {
        let place = [messageClass, member].compactMap { $0 }.joined(separator: ".")
        return place.isEmpty ? reason : "\(place): \(reason)"
    }
}

/// One kind of server message: its class, its encoder (`json`, `class` first, absent
/// fields left out) and its decoder. `init(json:)` ignores unknown members, as clients
/// must (gpsd's rule); `Self(json: x.json) == x` for every value.
public protocol ProtocolMessage: Equatable, Sendable {
    /// The `class` member, e.g. `TEXT`.
    static var messageClass: String { get }
    /// Decodes a message of this class.
    init(json: JSONValue) throws(ProtocolError)
    /// The message as a JSON object, `class` first.
    var json: JSONValue { get }
}

extension ProtocolMessage {
    /// The message as one line's bytes (without the newline).
    public var bytes: [UInt8] { JSONWriter.bytes(json) }

    /// Decodes one line (without its newline) as this message.
    public init(line: some Collection<UInt8>) throws(ProtocolError) {
        try self.init(json: try ServerMessage.parseObject(line))
    }
}

/// Typed reading of an object's members, with errors that name the member. Absent
/// optional members are nil; present members of the wrong type are errors.
public struct MemberReader {
    public let value: JSONValue
    public let messageClass: String?
    /// The path of this object inside the message (`blocks[2]`), for error messages.
    public let path: String

    public init(_ value: JSONValue, messageClass: String?, path: String = "") throws(ProtocolError) {
        guard case .object = value else {
            throw ProtocolError("must be an object", messageClass: messageClass, member: path.isEmpty ? nil : path)
        }
        self.value = value
        self.messageClass = messageClass
        self.path = path
    }

    /// A reader for an object of class `name`: checks `class`.
    public init(message value: JSONValue, class name: String) throws(ProtocolError) {
        try self.init(value, messageClass: name)
        guard value["class"]?.stringValue == name else {
            throw ProtocolError("class must be \"\(name)\"", messageClass: name, member: "class")
        }
    }

    public func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    public func fail(_ key: String, _ expected: String) -> ProtocolError {
        ProtocolError(value[key] == nil ? "missing (must be \(expected))" : "must be \(expected)",
                      messageClass: messageClass, member: name(key))
    }

    public func required<T>(_ key: String, _ read: (String) throws(ProtocolError) -> T?) throws(ProtocolError) -> T {
        guard let found = try read(key) else { throw fail(key, "present") }
        return found
    }

    public func string(_ key: String) throws(ProtocolError) -> String? {
        guard let member = value[key] else { return nil }
        guard let text = member.stringValue else { throw fail(key, "a string") }
        return text
    }

    public func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let member = value[key] else { return nil }
        guard let flag = member.boolValue else { throw fail(key, "true or false") }
        return flag
    }

    public func double(_ key: String) throws(ProtocolError) -> Double? {
        guard let member = value[key] else { return nil }
        guard let number = member.doubleValue else { throw fail(key, "a number") }
        return number
    }

    public func int(_ key: String) throws(ProtocolError) -> Int? {
        guard let member = value[key] else { return nil }
        guard let number = member.intValue else { throw fail(key, "an integer") }
        return number
    }

    public func choice<T: RawRepresentable<String> & CaseIterable>(_ key: String, _ type: T.Type) throws(ProtocolError) -> T? {
        guard let member = value[key] else { return nil }
        guard let text = member.stringValue, let parsed = T(rawValue: text) else {
            throw fail(key, "one of \(T.allCases.map(\.rawValue).joined(separator: "|"))")
        }
        return parsed
    }

    public func object(_ key: String) throws(ProtocolError) -> MemberReader? {
        guard let member = value[key] else { return nil }
        return try MemberReader(member, messageClass: messageClass, path: name(key))
    }

    /// An array member, each item decoded by `decode` with its index in the path.
    public func array<T>(_ key: String, _ decode: (JSONValue, String) throws(ProtocolError) -> T) throws(ProtocolError) -> [T]? {
        guard let member = value[key] else { return nil }
        guard let items = member.arrayValue else { throw fail(key, "an array") }
        var decoded: [T] = []
        decoded.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { decoded.append(try decode(item, "\(name(key))[\(index)]")) }
        return decoded
    }

    public func strings(_ key: String) throws(ProtocolError) -> [String]? {
        try array(key) { (item, path) throws(ProtocolError) -> String in
            guard let text = item.stringValue else {
                throw ProtocolError("must be a string", messageClass: messageClass, member: path)
            }
            return text
        }
    }

    /// `{"exif":6,"name":"right"}`: the name is derived from the EXIF number.
    public func orientation(_ key: String) throws(ProtocolError) -> ImageOrientation? {
        guard let member = try object(key) else { return nil }
        let exif = try member.required("exif", member.int)
        guard let orientation = ImageOrientation(rawValue: exif) else { throw member.fail("exif", "an EXIF orientation 1…8") }
        return orientation
    }

    /// Whether the orientation object at `key` says `"auto":true` (proto_minor 6).
    public func automaticOrientation(_ key: String) throws(ProtocolError) -> Bool {
        guard let member = try object(key) else { return false }
        return try member.bool("auto") ?? false
    }

    /// `{"x":…,"y":…,"width":…,"height":…}`
    public func box(_ key: String) throws(ProtocolError) -> PixelBox? {
        guard let member = try object(key) else { return nil }
        return PixelBox(x: try member.required("x", member.int), y: try member.required("y", member.int),
                        width: try member.required("width", member.int), height: try member.required("height", member.int))
    }

    /// `[[x,y],…]`: points in pixels (a box's corners).
    public func points(_ key: String) throws(ProtocolError) -> [PixelPoint]? {
        try array(key) { (item, path) throws(ProtocolError) -> PixelPoint in
            guard let pair = item.arrayValue, pair.count == 2, let x = pair[0].intValue, let y = pair[1].intValue else {
                throw ProtocolError("must be [x,y] integers", messageClass: messageClass, member: path)
            }
            return PixelPoint(x: x, y: y)
        }
    }

    /// `{"p50":…,"p99":…}`
    public func percentiles(_ key: String) throws(ProtocolError) -> Percentiles? {
        guard let member = try object(key) else { return nil }
        return Percentiles(p50: try member.required("p50", member.double), p99: try member.required("p99", member.double))
    }
}

/// A median and a 99th percentile, e.g. of milliseconds: `{"p50":…,"p99":…}`.
public struct Percentiles: Equatable, Sendable {
    public var p50: Double
    public var p99: Double

    public init(p50: Double, p99: Double) {
        self.p50 = p50
        self.p99 = p99
    }

    public var json: JSONValue { .object([("p50", .number(p50)), ("p99", .number(p99))]) }
}
