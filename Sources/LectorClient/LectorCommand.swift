import Foundation
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
        let path = command.socketPath ?? ClientCommand.defaultSocketPath()
        do {
            let connection = try LectorConnection(path: path)
            switch command.action {
            case .watch: try watch(command, connection, output)
            case .devices:
                let reply = try request(.request("DEVICES"), expecting: "DEVICES", command, connection, output)
                if !command.json { ClientFormat.devices(reply.message).forEach(output.standard) }
            case .status:
                let reply = try request(.request("STATUS"), expecting: "STATUS", command, connection, output)
                if !command.json { ClientFormat.status(reply.message).forEach(output.standard) }
            case .poll:
                var poll = JSONObjectBuilder(class: "WATCH")
                poll.add("enable", false)
                poll.add("level", command.level.rawValue)
                poll.add("min_confidence", command.minimumConfidence)
                _ = try request(poll.value, expecting: "WATCH", command, connection, ClientOutput(standard: { _ in }, error: output.error), quiet: true)
                let reply = try request(.request("POLL"), expecting: "POLL", command, connection, output)
                if !command.json {
                    for text in reply.message["texts"]?.arrayValue ?? [] { ClientFormat.textLines(text).forEach(output.standard) }
                }
            case .orientation:
                var change = JSONObjectBuilder(class: "ORIENTATION")
                change.add("device", command.devices.first)
                change.add("device_orientation", command.orientation.deviceOrientation?.rawValue)
                change.add("camera_position", command.orientation.cameraPosition?.rawValue)
                change.add("rotation", command.orientation.rotation)
                change.add("mirror", command.orientation.mirror)
                let reply = try request(change.value, expecting: "ORIENTATION", command, connection, output)
                if !command.json { output.standard(ClientFormat.orientation(reply.message)) }
            case .snapshot:
                try snapshot(command, connection, output)
            }
            return ClientCommand.ExitStatus.ok
        } catch let error as ErrorReply {
            output.error(error.message)
            return ClientCommand.ExitStatus.errorReply
        } catch let error as ConnectionError {
            output.error("\(error)")
            if case .cannotConnect = error { return ClientCommand.ExitStatus.cannotConnect }
            return ClientCommand.ExitStatus.errorReply
        } catch {
            output.error("\(error)")
            return ClientCommand.ExitStatus.errorReply
        }
    }

    /// Sends `message` and waits for the reply of class `expected`, skipping stream
    /// messages; an ERROR throws ``ErrorReply``. With `--json` the reply is printed as is.
    private static func request(_ message: JSONValue, expecting expected: String, _ command: ClientCommand,
                                _ connection: LectorConnection, _ output: ClientOutput,
                                quiet: Bool = false) throws -> (line: [UInt8], message: JSONValue) {
        try connection.send(message)
        let deadline = Date().addingTimeInterval(command.timeout)
        while true {
            let reply = try connection.readMessage(timeout: max(0.001, deadline.timeIntervalSinceNow))
            switch reply.message["class"]?.stringValue {
            case "ERROR":
                if command.json && !quiet { output.standard(String(decoding: reply.line, as: UTF8.self)) }
                throw ErrorReply(message: reply.message["message"]?.stringValue ?? "lectord refused the request")
            case expected:
                if command.json && !quiet { output.standard(String(decoding: reply.line, as: UTF8.self)) }
                return reply
            default:
                continue
            }
        }
    }

    private static func watch(_ command: ClientCommand, _ connection: LectorConnection, _ output: ClientOutput) throws {
        var watch = JSONObjectBuilder(class: "WATCH")
        watch.add("enable", true)
        if !command.devices.isEmpty { watch.add("devices", .array(command.devices.map(JSONValue.string))) }
        watch.add("text", true)
        watch.add("frame", command.json)
        watch.add("level", command.level.rawValue)
        watch.add("min_confidence", command.minimumConfidence)
        if command.changesOnly { watch.add("changes_only", true) }
        try connection.send(watch.value)
        var texts = 0
        while true {
            let (line, message) = try connection.readMessage()
            if command.json { output.standard(String(decoding: line, as: UTF8.self)) }
            switch message["class"]?.stringValue {
            case "ERROR":
                throw ErrorReply(message: message["message"]?.stringValue ?? "lectord refused the request")
            case "TEXT":
                if !command.json { ClientFormat.textLines(message).forEach(output.standard) }
                texts += 1
                if let count = command.count, texts >= count { return }
            case "OVERFLOW":
                if !command.json { output.error("\(message["dropped"]?.intValue ?? 0) messages dropped: reading too slowly") }
            case "DEVICES":
                if !command.json {
                    for device in message["devices"]?.arrayValue ?? [] {
                        if device["state"]?.stringValue == "lost" {
                            output.error("\(device["path"]?.stringValue ?? "?") is lost: \(device["error"]?.stringValue ?? "no reason given")")
                        }
                    }
                }
            default:
                continue
            }
        }
    }

    private static func snapshot(_ command: ClientCommand, _ connection: LectorConnection, _ output: ClientOutput) throws {
        var snapshot = JSONObjectBuilder(class: "SNAPSHOT")
        snapshot.add("device", command.devices.first)
        if command.boxes { snapshot.add("boxes", true) }
        snapshot.add("max_width", command.maximumWidth)
        let quietOutput = ClientOutput(standard: { _ in }, error: output.error)
        var reply: (line: [UInt8], message: JSONValue)
        do {
            reply = try request(snapshot.value, expecting: "SNAPSHOT", command, connection, quietOutput)
        } catch is ErrorReply {
            // Nothing recognized yet (the camera runs only while watched): watch until a
            // first TEXT of the device, then ask again.
            var watch = JSONObjectBuilder(class: "WATCH")
            watch.add("enable", true)
            if let device = command.devices.first { watch.add("devices", .array([.string(device)])) }
            watch.add("frame", false)
            watch.add("level", "block")
            _ = try request(watch.value, expecting: "WATCH", command, connection, quietOutput)
            let deadline = Date().addingTimeInterval(command.timeout)
            while try connection.readMessage(timeout: max(0.001, deadline.timeIntervalSinceNow)).message["class"]?.stringValue != "TEXT" {}
            reply = try request(snapshot.value, expecting: "SNAPSHOT", command, connection, quietOutput)
        }
        guard let data = reply.message["data"]?.stringValue, let jpeg = Base64.decode(data), let path = command.output else {
            throw ErrorReply(message: "SNAPSHOT reply without data")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(jpeg)) else {
            throw ErrorReply(message: "cannot write \(path)")
        }
        if command.json {
            output.standard(String(decoding: reply.line, as: UTF8.self))
        } else {
            output.standard("\(path): \(reply.message["width"]?.intValue ?? 0)x\(reply.message["height"]?.intValue ?? 0) JPEG, "
                            + "\(jpeg.count) bytes, frame \(reply.message["seq"]?.intValue ?? 0) of \(reply.message["device"]?.stringValue ?? "?")")
        }
    }
}

extension JSONValue {
    /// A request without members: `{"class":"STATUS"}`.
    static func request(_ name: String) -> JSONValue { JSONObjectBuilder(class: name).value }
}
