import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// The benchmark's results: rows of the printed table, and the same as JSON.
final class Report {
    enum Status: String {
        case met = "met"
        case notMet = "NOT MET"
        case info = ""
    }

    struct Row {
        var section: String
        var item: String
        var value: String
        var target: String = ""
        var status: Status = .info
        /// Every number behind the row, for the JSON file.
        var numbers: [(String, Double)] = []
    }

    private(set) var rows: [Row] = []
    /// False in smoke mode: too few samples to judge targets; rows keep their target text.
    var judging = true
    private(set) var notes: [String] = []
    private var context: [(String, JSONValue)] = []

    func add(_ row: Row) {
        var row = row
        if !judging { row.status = .info }
        rows.append(row)
        // Printed as it comes, so a long run shows progress.
        print(Self.line(row))
    }

    func add(section: String, item: String, value: String, target: String = "", status: Status = .info,
             numbers: [(String, Double)] = []) {
        add(Row(section: section, item: item, value: value, target: target, status: status, numbers: numbers))
    }

    func note(_ text: String) {
        notes.append(text)
        print("  note: \(text)")
    }

    func setContext(_ key: String, _ value: JSONValue) { context.append((key, value)) }

    static func check(_ met: Bool) -> Status { met ? .met : .notMet }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func line(_ row: Row) -> String {
        let status = row.status == .info ? "" : "  [\(row.status.rawValue)]"
        let target = row.target.isEmpty ? "" : "  target \(row.target)"
        return "\(pad(row.section, 12)) \(pad(row.item, 46)) \(row.value)\(target)\(status)"
    }

    /// The whole table, grouped by section, as Markdown.
    func markdown() -> String {
        var out = "| section | measurement | value | target | status |\n|---|---|---|---|---|\n"
        for row in rows {
            let cells = [row.section, row.item, row.value, row.target, row.status.rawValue]
                .map { $0.replacingOccurrences(of: "|", with: "\\|") }
            out += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return out
    }

    func printSummary() {
        print("\n==== lector-bench summary ====")
        var section = ""
        for row in rows {
            if row.section != section {
                section = row.section
                print("-- \(section)")
            }
            print(Self.line(row))
        }
        let targets = rows.filter { $0.status != .info }
        print("targets: \(targets.filter { $0.status == .met }.count) met, \(targets.filter { $0.status == .notMet }.count) not met")
        for note in notes { print("note: \(note)") }
    }

    func json() -> JSONValue {
        .object(context + [
            ("rows", .array(rows.map { row in
                .object([("section", .string(row.section)), ("item", .string(row.item)), ("value", .string(row.value)),
                         ("target", .string(row.target)), ("status", .string(row.status == .info ? "info" : row.status.rawValue)),
                         ("numbers", .object(row.numbers.filter { $0.1.isFinite }.map { ($0.0, .number($0.1)) }))])
            })),
            ("notes", .array(notes.map { .string($0) })),
        ])
    }
}
