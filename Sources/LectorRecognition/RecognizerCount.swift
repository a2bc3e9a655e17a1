/// How many recognizers (each a Tesseract engine on a thread of its own) one camera
/// runs: `--recognizers N|auto`.
public enum RecognizerCount: Equatable, Sendable, CustomStringConvertible {
    /// One per core beyond the first (which capture and the server share), shared out
    /// among the cameras, at least 1 and at most ``autoMaximum``.
    case auto
    /// Exactly this many, 1...``maximum``.
    case fixed(Int)

    /// The most `auto` chooses.
    public static let autoMaximum = 4
    /// The most that can be asked for.
    public static let maximum = 16

    /// Parses `auto` or a number 1...``maximum``.
    public init?(_ text: String) {
        if text == "auto" {
            self = .auto
        } else if let count = Int(text), (1...Self.maximum).contains(count) {
            self = .fixed(count)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case let .fixed(count): "\(count)"
        }
    }

    /// The number of recognizers for one of `cameras` cameras on a machine with `cores`
    /// cores.
    public func resolved(cores: Int, cameras: Int) -> Int {
        switch self {
        case let .fixed(count): count
        case .auto: min(Self.autoMaximum, max(1, (cores - 1) / max(1, cameras)))
        }
    }
}
