/// What a rule looks at (`source = text|codes|both`).
public enum RuleSource: String, Sendable, CaseIterable {
    /// Lines of text (and their tracks' settled readings).
    case text
    /// QR codes and barcodes, each appearance (a CODE) once.
    case codes
    case both

    /// Whether the rule tests lines of text.
    public var readsText: Bool { self != .codes }
    /// Whether the rule tests codes.
    public var readsCodes: Bool { self != .text }
}
