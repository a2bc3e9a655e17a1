import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// One `lector` invocation, parsed.
public struct ClientCommand: Equatable, Sendable {
    /// The subcommands.
    public enum Action: String, CaseIterable, Sendable {
        case watch, devices, status, poll, snapshot, orientation, speak, history
    }

    public var action: Action
    /// nil: ``ClientCommand/defaultSocketPath()``.
    public var socketPath: String?
    public var json = false
    public var showHelp = false
    /// `lector --help`: the overview rather than one command's help.
    public var generalHelp = false
    /// `lector --version`.
    public var showVersion = false
    // watch
    public var devices: [String] = []
    public var level = DetailLevel.line
    public var minimumConfidence: Double?
    public var changesOnly = false
    /// Print line-track events (TRACK) instead of each frame's text.
    public var tracks = false
    /// `watch --matches`: print the MATCH messages of lectord's rules instead of text.
    public var matches = false
    /// `watch --codes`: print the QR codes and barcodes coming into view (CODE) instead of text.
    public var codes = false
    /// Exit 0 after this many TEXT messages (watch; with --tracks: TRACK messages; with --matches: MATCH messages).
    public var count: Int?
    // snapshot
    public var output: String?
    public var boxes = false
    public var maximumWidth: Int?
    // orientation
    public var orientation = OrientationSettings()
    // history
    public var history = HistoryQuery()
    /// `history --csv`: print CSV rows instead of lines.
    public var csv = false
    /// `history --db PATH`: read this database file instead of asking lectord.
    public var database: String?
    // speak
    public var speak = SpeakSettings()
    /// Seconds to wait for an answer (snapshot waits this long for a first TEXT).
    public var timeout = 10.0

    public init(action: Action) { self.action = action }

    /// The exit statuses.
    public enum ExitStatus {
        public static let ok: Int32 = 0
        /// lectord answered with an ERROR.
        public static let errorReply: Int32 = 1
        public static let usage: Int32 = 2
        /// EX_UNAVAILABLE: nobody listens on the socket.
        public static let cannotConnect: Int32 = 69
    }

    /// The socket when `--socket` is not given (``LectordSocket/defaultPath(environment:)``).
    public static func defaultSocketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        LectordSocket.defaultPath(environment: environment)
    }

    public static let usage = """
    Usage: lector COMMAND [options]

    Talks to lectord, which reads text from cameras.

    Commands:
      watch         Print recognized text as it comes (one line per text line).
      devices       List the cameras and their state.
      status        Show uptime, clients and per-camera counters and timings.
      poll          Print the latest text of each camera.
      snapshot      Save the frame that produced the latest text as JPEG.
      orientation   Change how a camera's image is turned upright.
      speak         Read each line aloud as it settles (espeak-ng), or into WAV files.
      history       List the MATCHes lectord kept (or a history file holds), newest first.

    Options for every command:
      --socket PATH     lectord's socket (default \(LectordSocket.searched)).
      --json            Print lectord's JSON lines unchanged.
      --help            Show help for the command.
      --version         Show lector's version (before any command).

    Exit status: 0 ok, 1 lectord answered with an error, 2 usage error, 69 cannot connect.
    Run 'lector COMMAND --help' for a command's options.
    """

    /// The options every command takes, as its help lists them.
    static let commonOptions = """
          --socket PATH            lectord's socket.
          --json                   Print lectord's JSON lines unchanged.
          --timeout SECONDS        Wait this long for an answer (default 10).
          --help                   Show this help.
        """

    /// Help of one command.
    public static func usage(of action: Action) -> String {
        let common = commonOptions
        switch action {
        case .watch:
            return """
            Usage: lector watch [--device D]... [--level block|line|word|symbol] [--min-confidence C] [--changes-only] [--tracks] [--matches] [--codes] [--count N] [--json]

            Prints each recognized text line as "DEVICE CONFIDENCE TEXT" while lectord reads it; with --tracks,
            each line track's events: + ID "TEXT" (settled), ~ ID "TEXT" (changed), - ID (gone); with --matches,
            each match of lectord's rules: DEVICE/ZONE RULE "TEXT" [GROUPS] CONFIDENCE; with --codes, each QR code
            or barcode coming into view: DEVICE/ZONE FORMAT "TEXT".

              --device D               Only this camera (repeatable; default all).
              --level L                Detail of the JSON stream (default line; with --json: word).
              --min-confidence C       Leave out words below this confidence, 0-1.
              --changes-only           Only when the text differs from the last one.
              --tracks                 Print line-track events instead of each frame's text.
              --matches                Print the matches of lectord's rules instead of each frame's text.
              --codes                  Print the QR codes and barcodes coming into view instead of each frame's text.
              --count N                Exit after N recognized frames.
            \(common)
            """
        case .devices:
            return "Usage: lector devices [--json]\n\nLists the cameras: path, state, format, size, fps, orientation.\n\n\(common)"
        case .status:
            return "Usage: lector status [--json]\n\nShows uptime, clients and per-camera counters, rates and timings.\n\n\(common)"
        case .poll:
            return """
            Usage: lector poll [--level block|line|word|symbol] [--min-confidence C] [--json]

            Prints the latest recognized text of each camera.

              --level L                Detail of the JSON answer (default line).
              --min-confidence C       Leave out words below this confidence, 0-1.
            \(common)
            """
        case .snapshot:
            return """
            Usage: lector snapshot [--device D] -o FILE [--boxes] [--max-width N]

            Saves the upright frame that produced the latest text as JPEG (waiting for a first text if needed).

              --device D               The camera (needed when there are several).
              -o, --output FILE        Where to write the JPEG (- for standard output).
              --boxes                  Draw the recognized word boxes.
              --max-width N            Shrink the image to at most N pixels wide.
            \(common)
            """
        case .speak:
            return SpeakSettings.usage + "\n" + common
        case .history:
            return """
            Usage: lector history [--device D] [--rule R] [--since TIME] [--limit N] [--json|--csv] [--db PATH]

            Lists the MATCHes of lectord's rules kept in its history (lectord --history), newest first:
            TIME DEVICE/ZONE RULE "TEXT" [GROUPS] CONFIDENCE, then known NAME, rejected: REASON, the crop's file.

              --device D               Only this camera's.
              --rule R                 Only this rule's (its own name, as MATCH rule).
              --since TIME             Only those since TIME: RFC 3339 UTC (2026-12-04T21:00:00Z, or 2026-12-04),
                                       or a while ago: 30m, 12h, 7d.
              --limit N                At most N (default \(HistoryQuery.defaultLimit), at most \(HistoryQuery.maximumLimit)).
              --csv                    Print CSV rows with a header instead.
              --db PATH                Read this history file directly (read-only, lectord running or not).
            \(common)
              With --json each MATCH is printed as one JSON object a line.
            """
        case .orientation:
            return """
            Usage: lector orientation [--device D] [--device-orientation O] [--camera-position P] [--rotation DEG|auto] [--mirror true|false]

            Changes live how a camera's image is turned upright and prints the resulting EXIF orientation.

              --device D               The camera (needed when there are several).
              --device-orientation O   portrait|portrait-upside-down|landscape-left|landscape-right|face-up|face-down|unknown.
              --camera-position P      front|back|external.
              --rotation DEG|auto      0|90|180|270 clockwise degrees that make the image upright; auto: found from the text.
              --mirror true|false      Mirror left-right after the rotation.
            \(common)
            """
        }
    }

    /// Parses `lector`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> ClientCommand {
        guard let first = arguments.first else { throw UsageError("no command given") }
        if first == "--version" || first == "version" {
            var command = ClientCommand(action: .status)
            command.showVersion = true
            return command
        }
        if first == "--help" || first == "-h" || first == "help" {
            var command = ClientCommand(action: arguments.count > 1 ? Action(rawValue: arguments[1]) ?? .status : .status)
            command.showHelp = true
            command.generalHelp = arguments.count == 1 || Action(rawValue: arguments[1]) == nil
            return command
        }
        guard let action = Action(rawValue: first) else {
            throw UsageError("unknown command '\(first)'; commands: \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var command = ClientCommand(action: action)
        var scanner = ArgumentScanner(Array(arguments.dropFirst()))
        var levelGiven = false
        while let argument = scanner.next() {
            try command.take(argument, from: &scanner, levelGiven: &levelGiven)
        }
        if command.showHelp { return command }
        if action == .watch && command.json && !levelGiven { command.level = .word }
        if action == .snapshot && command.output == nil { throw UsageError("lector snapshot needs -o FILE") }
        if action == .history && command.csv && command.json { throw UsageError("give either --json or --csv, not both") }
        if action == .orientation {
            if command.orientation == OrientationSettings() {
                throw UsageError("lector orientation needs --device-orientation, --camera-position, --rotation or --mirror")
            }
            if (command.orientation.rotation != nil || command.orientation.mirror != nil || command.orientation.automaticRotation != nil)
                && command.orientation.deviceOrientation != nil {
                throw UsageError("give either --rotation/--mirror or --device-orientation, not both")
            }
        }
        return command
    }

    /// Takes one option of `lector ACTION` (and its value from `scanner`) into the command.
    private mutating func take(_ argument: String, from scanner: inout ArgumentScanner, levelGiven: inout Bool) throws(UsageError) {
        switch (argument, action) {
        case ("--help", _), ("-h", _): showHelp = try scanner.flag(argument)
        case ("--socket", _):
            let path = try scanner.value(for: argument)
            guard !path.isEmpty else { throw UsageError("--socket needs a path, not an empty one") }
            socketPath = path
        case ("--json", _): json = try scanner.flag(argument)
        case ("--timeout", _): timeout = try scanner.number(for: argument, in: 0.1...86400)
        case ("--device", .watch): devices.append(try scanner.value(for: argument))
        case ("--device", .history): history.device = try scanner.value(for: argument)
        case ("--rule", .history): history.rule = try scanner.value(for: argument)
        case ("--since", .history):
            let text = try scanner.value(for: argument)
            guard let since = Self.since(text, now: Date()) else {
                throw UsageError("--since takes an RFC 3339 UTC time (2026-12-04T21:00:00Z, 2026-12-04) or a while ago since 1970 (30m, 12h, 7d), not '\(text)'")
            }
            history.since = since
        case ("--limit", .history): history.limit = try scanner.integer(for: argument, in: 1...HistoryQuery.maximumLimit)
        case ("--csv", .history): csv = try scanner.flag(argument)
        case ("--db", .history):
            let path = try scanner.value(for: argument)
            guard !path.isEmpty else { throw UsageError("--db needs a path, not an empty one") }
            database = path
        case ("--device", .snapshot), ("--device", .orientation):
            devices = [try scanner.value(for: argument)]
        case ("--level", .watch), ("--level", .poll):
            level = try scanner.choice(for: argument, DetailLevel.init(rawValue:), choices: DetailLevel.allCases.map(\.rawValue))
            levelGiven = true
        case ("--min-confidence", .watch), ("--min-confidence", .poll):
            minimumConfidence = try scanner.number(for: argument, in: 0...1)
        case ("--changes-only", .watch): changesOnly = try scanner.flag(argument)
        case ("--tracks", .watch): tracks = try scanner.flag(argument)
        case ("--matches", .watch): matches = try scanner.flag(argument)
        case ("--codes", .watch): codes = try scanner.flag(argument)
        case ("--count", .watch): count = try scanner.integer(for: argument, in: 1...Int(Int32.max))
        case (_, .speak) where SpeakSettings.options.contains(argument): try speak.take(argument, from: &scanner)
        case ("-o", .snapshot), ("--output", .snapshot): output = try scanner.value(for: argument)
        case ("--boxes", .snapshot): boxes = try scanner.flag(argument)
        case ("--max-width", .snapshot): maximumWidth = try scanner.integer(for: argument, in: 16...16384)
        case ("--device-orientation", .orientation):
            orientation.deviceOrientation = try scanner.choice(
                for: argument, DeviceOrientation.init(rawValue:), choices: DeviceOrientation.allCases.map(\.rawValue))
        case ("--camera-position", .orientation):
            orientation.cameraPosition = try scanner.choice(
                for: argument, CameraPosition.init(rawValue:), choices: CameraPosition.allCases.map(\.rawValue))
        case ("--rotation", .orientation):
            // auto (lectord 1.6): the quarter turn found from the text; .some(nil) stands for it here.
            let rotation: Int? = try scanner.choice(for: argument, { (text: String) -> Int?? in
                text == "auto" ? .some(nil) : ValueSyntax.rotation(text).map { .some($0) }
            },
                                                    choices: ["0", "90", "180", "270", "auto"])
            orientation.rotation = rotation
            orientation.automaticRotation = rotation == nil ? true : nil
        case ("--mirror", .orientation):
            orientation.mirror = try scanner.choice(for: argument, { ["true": true, "false": false][$0] }, choices: ["true", "false"])
        default:
            throw UsageError(argument.hasPrefix("-") ? "unknown option \(argument) for 'lector \(action.rawValue)'"
                                                     : "unexpected argument '\(argument)'")
        }
    }

    /// `--since`'s value as HISTORY's `since`: an RFC 3339 UTC time or date as given, or
    /// `N` followed by s, m, h or d (that long before `now`, not before 1970); nil for
    /// anything else (also a while too long to be a time: `999999999999d`, `1e400s`).
    static func since(_ text: String, now: Date) -> String? {
        if let unit = text.last, let seconds = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][String(unit)],
           let count = Double(text.dropLast()) {
            let unixTime = now.timeIntervalSince1970 - count * seconds
            guard count >= 0, unixTime.isFinite, unixTime >= 0 else { return nil }
            return MonotonicInstant.rfc3339(unixTime: unixTime)
        }
        let digits = text.prefix(10)
        guard digits.count == 10, digits.enumerated().allSatisfy({ index, character in
            index == 4 || index == 7 ? character == "-" : character.isASCII && character.isNumber
        }) else { return nil }
        return text
    }
}
