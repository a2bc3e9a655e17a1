/// What a HISTORY request asks for (proto_minor 11): the MATCHes kept in lectord's
/// history, newest first, narrowed by camera, rule and time. `lector history --db` asks a
/// database file the same.
public struct HistoryQuery: Equatable, Sendable {
    /// Most MATCHes a reply holds.
    public static let maximumLimit = 10_000
    /// MATCHes returned when `limit` is not given.
    public static let defaultLimit = 100

    /// Only this camera's (its name).
    public var device: String?
    /// Only this rule's (its own name, as MATCH `rule`).
    public var rule: String?
    /// Only those at or after this time: RFC 3339 UTC as MATCH `time` (`2026-12-04T21:00:00Z`,
    /// or a prefix such as `2026-12-04`), compared as text.
    public var since: String?
    /// At most this many, newest first (1…``maximumLimit``).
    public var limit: Int

    public init(device: String? = nil, rule: String? = nil, since: String? = nil, limit: Int = Self.defaultLimit) {
        self.device = device
        self.rule = rule
        self.since = since
        self.limit = limit
    }
}
