/// How deep a TEXT message goes.
public enum DetailLevel: String, CaseIterable, Sendable, Comparable {
    case block, line, word, symbol

    private var depth: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.depth < rhs.depth }
}
