/// A value that does not fit its option. The command line puts the flag before the
/// message, a configuration file its `file:line: key:`.
public struct OptionValueError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with the value (`must be one of on|off, not 'maybe'`).
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
