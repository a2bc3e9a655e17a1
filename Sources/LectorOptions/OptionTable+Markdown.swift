import Foundation

extension OptionTable {
    /// A column of the Markdown table beyond flag, key and meaning.
    public typealias Column = (heading: String, cell: @Sendable (Entry) -> String)

    /// The options as a Markdown table: flag, file key (when the program has a file),
    /// `extraColumns`, meaning. docs/configuration.md and README hold what it says.
    public func markdown(extraColumns: [Column] = []) -> String {
        let hasFile = options.contains { $0.spec.key != nil }
        let headings = ["flag"] + (hasFile ? ["file key"] : []) + extraColumns.map(\.heading) + ["meaning"]
        var rows = ["| " + headings.joined(separator: " | ") + " |", "|" + String(repeating: " --- |", count: headings.count)]
        for option in options {
            let key = option.spec.key.map { "`\($0)`" } ?? ""
            let cells = ["`\(option.spec.synopsis)`"] + (hasFile ? [key] : []) + extraColumns.map { $0.cell(option) } + [option.spec.help]
            rows.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return rows.joined(separator: "\n")
    }
}
