import LectorHistory
import LectorProtocol

/// `lector history`: the MATCHes kept in lectord's history, asked of lectord (HISTORY)
/// or read from a database file (`--db`).
extension LectorCommand {
    /// `lector history --db PATH`: reads the file read-only, lectord running or not.
    static func historyFromFile(_ path: String, _ command: ClientCommand, _ output: ClientOutput) -> Int32 {
        do {
            let store = try HistoryStore(path: path, readOnly: true)
            printHistory(try store.matches(command.history), command, output)
            return ClientCommand.ExitStatus.ok
        } catch {
            output.error("\(error)")
            return ClientCommand.ExitStatus.errorReply
        }
    }

    /// Prints `matches` (newest first): readable lines, MATCH JSON objects (`--json`) or CSV (`--csv`).
    static func printHistory(_ matches: [MatchMessage], _ command: ClientCommand, _ output: ClientOutput) {
        if command.csv { output.standard(ClientFormat.historyCSVHeader) }
        for match in matches {
            if command.json {
                output.standard(String(decoding: match.bytes, as: UTF8.self))
            } else {
                output.standard(command.csv ? ClientFormat.historyCSV(match) : ClientFormat.historyLine(match))
            }
        }
    }
}
