import Foundation
import LectorProtocol
import LectorSystem

/// Where `lector` writes: standard output and error (tests capture them).
public struct ClientOutput: Sendable {
    public var standard: @Sendable (String) -> Void
    public var error: @Sendable (String) -> Void

    public init(standard: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.standard = standard
        self.error = error
    }

    /// Unbuffered standard output and error, a line per call, control characters from
    /// lectord escaped (``TerminalText``).
    public static let terminal = ClientOutput(
        standard: { FileHandle.standardOutput.write(Data((TerminalText.escaped($0) + "\n").utf8)) },
        error: { FileHandle.standardError.write(Data(("lector: " + TerminalText.escaped($0) + "\n").utf8)) })
}
