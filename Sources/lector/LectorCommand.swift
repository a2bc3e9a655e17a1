import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// The `lector` command: connects, sends one request (or a WATCH), prints the answer.
public enum LectorCommand {
    /// Runs `lector` with `arguments` (without the program name); returns the exit status.
    public static func main(_ arguments: [String], output: ClientOutput = .terminal) -> Int32 {
        let command: ClientCommand
        do {
            command = try ClientCommand.parse(arguments)
        } catch {
            output.error("\(error)\nTry 'lector --help'.")
            return ClientCommand.ExitStatus.usage
        }
        if command.showVersion {
            output.standard("lector \(LectorRelease.version)")
            return ClientCommand.ExitStatus.ok
        }
        if command.showHelp {
            output.standard(command.generalHelp ? ClientCommand.usage : ClientCommand.usage(of: command.action))
            return ClientCommand.ExitStatus.ok
        }
        return run(command, output: output)
    }

    /// A reply of class ERROR.
    struct ErrorReply: Error {
        let message: String
    }

    /// Runs a parsed command.
    public static func run(_ command: ClientCommand, output: ClientOutput) -> Int32 {
        if command.action == .history, let database = command.database {
            return historyFromFile(database, command, output)
        }
        let path = command.socketPath ?? ClientCommand.defaultSocketPath()
        do {
            let connection = try LectorConnection(path: path)
            switch command.action {
            case .watch: try watch(command, connection, output)
            case .devices:
                let reply = try request(.devices, expecting: DevicesMessage.self, command, connection, output)
                if !command.json { ClientFormat.devices(reply).forEach(output.standard) }
            case .status:
                let reply = try request(.status, expecting: StatusMessage.self, command, connection, output)
                if !command.json { ClientFormat.status(reply).forEach(output.standard) }
            case .poll:
                var filters = WatchRequest()
                filters.enable = false
                filters.level = command.level
                filters.minimumConfidence = command.minimumConfidence
                _ = try request(.watch(filters), expecting: WatchMessage.self, command, connection,
                                ClientOutput(standard: { _ in }, error: output.error), quiet: true)
                let reply = try request(.poll, expecting: PollMessage.self, command, connection, output)
                if !command.json {
                    for text in reply.texts { ClientFormat.textLines(text).forEach(output.standard) }
                }
            case .orientation:
                let change = Request.orientation(device: command.devices.first, command.orientation)
                let reply = try request(change, expecting: OrientationMessage.self, command, connection, output)
                if !command.json { output.standard(ClientFormat.orientation(reply)) }
            case .snapshot:
                try snapshot(command, connection, output)
            case .speak:
                try speak(command, connection, output)
            case .history:
                let reply = try request(.history(command.history), expecting: HistoryMessage.self, command, connection, output,
                                        quiet: true)
                printHistory(reply.matches, command, output)
            }
            return ClientCommand.ExitStatus.ok
        } catch let error as ErrorReply {
            output.error(error.message)
            return ClientCommand.ExitStatus.errorReply
        } catch let error as ConnectionError {
            // A wait runs out on what was left of the whole command's time: say that.
            if case .timedOut = error {
                output.error("\(ConnectionError.timedOut(seconds: command.timeout))")
                return ClientCommand.ExitStatus.errorReply
            }
            output.error("\(error)")
            switch error {
            case .cannotConnect, .untrustedPeer: return ClientCommand.ExitStatus.cannotConnect
            default: break
            }
            return ClientCommand.ExitStatus.errorReply
        } catch let error as SpeakError {
            output.error("\(error)")
            if case .severalCameras = error { return ClientCommand.ExitStatus.usage }
            return ClientCommand.ExitStatus.errorReply
        } catch {
            output.error("\(error)")
            return ClientCommand.ExitStatus.errorReply
        }
    }

    /// `lector speak`: SIGINT and SIGTERM cut what is being said and end it (exit 0).
    private static func speak(_ command: ClientCommand, _ connection: LectorConnection, _ output: ClientOutput) throws {
        let stop = StopSignal()
        Syscalls.blockSignals([SIGINT, SIGTERM])
        Thread.detachNewThread {
            _ = Syscalls.waitForSignal([SIGINT, SIGTERM])
            stop.raise()
        }
        try ReadAloud.run(command.speak, connection: connection, stop: stop, log: output.error)
    }

    /// Sends `request` and waits for the reply of type `expected`, skipping stream
    /// messages; an ERROR throws ``ErrorReply``. With `--json` the reply is printed as is.
    static func request<Reply: ProtocolMessage>(_ request: Request, expecting expected: Reply.Type,
                                                        _ command: ClientCommand, _ connection: LectorConnection,
                                                        _ output: ClientOutput, quiet: Bool = false) throws -> Reply {
        try requestLine(request, expecting: expected, command, connection, output, quiet: quiet).reply
    }

    /// ``request(_:expecting:_:_:_:quiet:)`` that also returns the reply's line as received.
    private static func requestLine<Reply: ProtocolMessage>(_ request: Request, expecting expected: Reply.Type,
                                                            _ command: ClientCommand, _ connection: LectorConnection,
                                                            _ output: ClientOutput,
                                                            quiet: Bool = false) throws -> (line: [UInt8], reply: Reply) {
        try connection.send(request)
        let deadline = Date().addingTimeInterval(command.timeout)
        while true {
            let reply = try connection.receive(timeout: max(0.001, deadline.timeIntervalSinceNow))
            if case let .error(refusal) = reply.message {
                if command.json && !quiet { output.standard(String(decoding: reply.line, as: UTF8.self)) }
                throw ErrorReply(message: refusal.message)
            }
            if let typed = reply.message.message as? Reply {
                if command.json && !quiet { output.standard(String(decoding: reply.line, as: UTF8.self)) }
                return (reply.line, typed)
            }
        }
    }

    private static func watch(_ command: ClientCommand, _ connection: LectorConnection, _ output: ClientOutput) throws {
        var watch = WatchRequest()
        watch.enable = true
        if !command.devices.isEmpty { watch.devices = command.devices }
        let instead = command.tracks || command.matches || command.codes
        watch.text = !instead
        watch.frame = command.json && !instead
        if command.tracks { watch.tracks = true }
        if command.matches { watch.matches = true }
        if command.codes { watch.codes = true }
        watch.level = command.level
        watch.minimumConfidence = command.minimumConfidence
        if command.changesOnly { watch.changesOnly = true }
        try connection.send(.watch(watch))
        var texts = 0
        // Each device's loss is told once, until it streams again.
        var lost: [String: String] = [:]
        while true {
            let (line, message) = try connection.receive()
            if command.json { output.standard(String(decoding: line, as: UTF8.self)) }
            switch message {
            case let .error(refusal):
                throw ErrorReply(message: refusal.message)
            case let .text(text):
                if !command.json { ClientFormat.watchLines(text).forEach(output.standard) }
                texts += 1
                if let count = command.count, texts >= count { return }
            case let .track(track):
                if !command.json { output.standard(ClientFormat.trackLine(track)) }
                texts += 1
                if let count = command.count, texts >= count { return }
            case let .match(match):
                if !command.json { output.standard(ClientFormat.matchLine(match)) }
                texts += 1
                if let count = command.count, texts >= count { return }
            case let .code(code):
                if !command.json { output.standard(ClientFormat.codeLine(code)) }
                texts += 1
                if let count = command.count, texts >= count { return }
            case let .overflow(overflow):
                if !command.json { output.error("\(overflow.dropped) messages dropped: reading too slowly") }
            case let .devices(devices):
                if !command.json {
                    for device in devices.devices {
                        var info = device.info
                        info.path = info.name ?? info.path  // the camera's name (proto_minor 5)
                        // Retries pass through `opening`: only a camera that streams again was found.
                        guard info.state == .lost else {
                            if info.state == .streaming, lost.removeValue(forKey: info.path) != nil {
                                output.error("\(info.path) is streaming again")
                            }
                            continue
                        }
                        let reason = info.error ?? "no reason given"
                        if lost[info.path] == nil { output.error("\(info.path) is lost: \(reason)") }
                        lost[info.path] = reason
                    }
                }
            default:
                continue
            }
        }
    }

    private static func snapshot(_ command: ClientCommand, _ connection: LectorConnection, _ output: ClientOutput) throws {
        let snapshot = Request.snapshot(device: command.devices.first, boxes: command.boxes, maximumWidth: command.maximumWidth)
        let quietOutput = ClientOutput(standard: { _ in }, error: output.error)
        var reply: (line: [UInt8], reply: SnapshotMessage)
        do {
            reply = try requestLine(snapshot, expecting: SnapshotMessage.self, command, connection, quietOutput)
        } catch let refusal as ErrorReply where refusal.message.contains("nothing recognized yet") {
            // Nothing recognized yet (the camera runs only while watched): watch until a
            // first TEXT of the device, then ask again; a camera that is lost meanwhile ends it.
            var watch = WatchRequest()
            watch.enable = true
            if let device = command.devices.first { watch.devices = [device] }
            watch.frame = false
            watch.level = .block
            _ = try request(.watch(watch), expecting: WatchMessage.self, command, connection, quietOutput)
            let deadline = Date().addingTimeInterval(command.timeout)
            waiting: while true {
                switch try connection.receive(timeout: max(0.001, deadline.timeIntervalSinceNow)).message {
                case .text: break waiting
                case let .error(error): throw ErrorReply(message: error.message)
                case let .devices(devices):
                    let named = devices.devices.filter { command.devices.first == nil || $0.info.path == command.devices.first || $0.info.name == command.devices.first }
                    if let lost = named.first(where: { $0.info.state == .lost }), named.count == 1 {
                        throw ErrorReply(message: "\(lost.info.name ?? lost.info.path) is lost: \(lost.info.error ?? "no reason given"); nothing to snapshot")
                    }
                default: continue
                }
            }
            reply = try requestLine(snapshot, expecting: SnapshotMessage.self, command, connection, quietOutput)
        }
        let (line, message) = reply
        guard let path = command.output else { throw ErrorReply(message: "SNAPSHOT reply without data") }
        if path == "-" {
            // The JPEG itself on standard output (`lector snapshot -o - | display`).
            FileHandle.standardOutput.write(Data(message.data))
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(message.data)) else {
            throw ErrorReply(message: "cannot write \(path)")
        }
        if command.json {
            output.standard(String(decoding: line, as: UTF8.self))
        } else {
            output.standard("\(path): \(message.width)x\(message.height) JPEG, \(message.data.count) bytes, frame \(message.sequence) of \(message.device)")
        }
    }
}
