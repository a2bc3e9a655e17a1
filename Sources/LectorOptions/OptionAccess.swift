/// How an option sets, copies and shows its value in `Root`, the settings it belongs to.
public struct OptionAccess<Root>: Sendable {
    /// Parses the text and stores the value.
    public let set: @Sendable (inout Root, String) throws(OptionValueError) -> Void
    /// Copies the value from another root (a flag over the file; SIGHUP's live changes).
    public let copy: @Sendable (inout Root, Root) -> Void
    /// The value as text, to compare two roots.
    public let describe: @Sendable (Root) -> String

    public init(set: @escaping @Sendable (inout Root, String) throws(OptionValueError) -> Void,
                copy: @escaping @Sendable (inout Root, Root) -> Void,
                describe: @escaping @Sendable (Root) -> String) {
        self.set = set
        self.copy = copy
        self.describe = describe
    }

    /// A field set from a parsed value.
    public static func value<Value>(_ path: WritableKeyPath<Root, Value> & Sendable, _ parser: ValueParser<Value>) -> Self {
        Self(set: { (root: inout Root, text: String) throws(OptionValueError) in root[keyPath: path] = try parser.parse(text) },
             copy: { $0[keyPath: path] = $1[keyPath: path] },
             describe: { String(describing: $0[keyPath: path]) })
    }

    /// An optional field (unset by default) set from a parsed value.
    public static func optional<Value>(_ path: WritableKeyPath<Root, Value?> & Sendable, _ parser: ValueParser<Value>) -> Self {
        value(path, parser.map { Optional($0) })
    }
}
