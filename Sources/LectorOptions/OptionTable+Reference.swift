import Foundation

/// The hidden flag every program answers with its section of docs/configuration.md
/// (``OptionTable/reference(extraColumns:)``) instead of running: scripts/make-docs
/// reads the programs' tables this way. It is no option of theirs: given with anything
/// else it is an unknown option.
public enum OptionReference {
    public static let flag = "--options-markdown"

    /// Whether `arguments` (without the program name) ask for the reference alone.
    public static func isAsked(by arguments: [String]) -> Bool { arguments == [flag] }
}

extension OptionTable {
    /// The program's section of docs/configuration.md, in Markdown: its usage line, what
    /// it does, its configuration file, what `--help` says after the options, and every
    /// option (``markdown(extraColumns:)``).
    public func reference(extraColumns: [Column] = []) -> String {
        let usage = layout.header.first?.replacingOccurrences(of: "Usage: ", with: "") ?? program
        let description = layout.header.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var parts = ["## \(program)", "`\(usage)`", description.joined(separator: " ")]
        if let defaultConfigPath {
            parts.append("Default configuration file: `\(defaultConfigPath)` (read when present and `--config` is not given).")
        } else {
            parts.append("No configuration file: command-line flags only.")
        }
        parts += paragraphs(layout.footer)
        parts.append(markdown(extraColumns: extraColumns))
        return parts.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// `lines` as paragraphs: blocks between blank lines, each joined into one line.
    private func paragraphs(_ lines: [String]) -> [String] {
        var paragraphs: [String] = []
        var block: [String] = []
        for line in lines + [""] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                if !block.isEmpty { paragraphs.append(block.joined(separator: " ")) }
                block = []
            } else {
                block.append(trimmed)
            }
        }
        return paragraphs
    }
}
