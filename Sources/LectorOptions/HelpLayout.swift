import Foundation

/// How a program's `--help` frames its options: the lines before and after them, the
/// column where help sentences start and the width they wrap at.
public struct HelpLayout: Sendable {
    /// The usage line and the description, before the first group.
    public var header: [String]
    /// Lines after the last option (notes on the file, signals, credentials).
    public var footer: [String]
    /// The column (after the two-space indent) where help sentences start.
    public var helpColumn: Int
    /// Where lines wrap; nil: never.
    public var width: Int?
    /// The groups in `--help` order; nil: as their options come in the table.
    public var groupOrder: [String]?

    public init(header: [String], footer: [String] = [], helpColumn: Int, width: Int? = nil, groupOrder: [String]? = nil) {
        self.header = header
        self.footer = footer
        self.helpColumn = helpColumn
        self.width = width
        self.groupOrder = groupOrder
    }

    /// The `--help` lines of one option: `  --flag VALUE   Help sentence.`
    public func line(_ option: OptionSpec) -> [String] {
        let name = option.synopsis
        let head = "  " + name.padding(toLength: max(helpColumn, name.count + 1), withPad: " ", startingAt: 0)
        guard let width else { return [head + option.help] }
        return Self.wrapped(head, option.help, width: width)
    }

    /// `head` then `text` wrapped at `width` columns, continuation lines under the text
    /// (or `indent` columns in).
    public static func wrapped(_ head: String, _ text: String, indent: Int? = nil, width: Int = 120) -> [String] {
        let margin = String(repeating: " ", count: indent ?? head.count)
        var lines: [String] = []
        var line = head
        var lineHasWord = false
        for word in text.split(separator: " ") {
            if lineHasWord && line.count + 1 + word.count > width {
                lines.append(line)
                line = margin
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }
}
