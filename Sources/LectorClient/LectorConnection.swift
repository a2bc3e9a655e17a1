import Foundation
import LectorProtocol
import LectorSystem

/// Why the client cannot talk to lectord.
public enum ConnectionError: Error, Equatable, CustomStringConvertible {
    /// Nobody listens on the path (exit status 69).
    case cannotConnect(path: String, SystemError)
    /// The socket is served by a user who is neither this one, root, nor the user the
    /// lectord service runs as (`lector`): possibly another local user impersonating
    /// lectord (exit status 69).
    case untrustedPeer(path: String, user: UInt32)
    /// The server closed the connection; `reason` is the ERROR it sent last, if its
    /// last line was one (`too many clients`, an idle timeout, an oversize request).
    case closed(reason: String?)
    /// No line within the timeout.
    case timedOut(seconds: Double)
    /// A line longer than the protocol allows, or not JSON.
    case malformed(String)
    case system(SystemError)

    public var description: String {
        switch self {
        case let .cannotConnect(path, error): "cannot connect to \(path): \(error.reason)"
        case let .untrustedPeer(path, user):
            "refusing to talk to \(path): it is served by uid \(user), not by you (uid \(Syscalls.userID)), root or the "
                + "\(LectorConnection.serviceUser) user; another user may be impersonating lectord"
        case let .closed(reason): reason.map { "lectord closed the connection: \($0)" } ?? "lectord closed the connection"
        case let .timedOut(seconds): "no answer from lectord within \(Self.seconds(seconds)) s"
        case let .malformed(reason): "unexpected data from lectord: \(reason)"
        case let .system(error): "\(error)"
        }
    }
}

extension ConnectionError {
    /// `10`, `3.7`: seconds as a person writes them.
    static func seconds(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths))" : "\(tenths)"
    }
}

/// A blocking connection to lectord's socket: writes request lines, reads server lines.
/// Owns its descriptor and closes it in `deinit`.
public final class LectorConnection {
    /// The connected socket, owned by the connection (for a caller's own poll).
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// The message of the last line read when it was an ERROR, else nil: why the
    /// server closed, when it closes next.
    private var lastError: String?

    /// The user the lectord service runs as (systemd/lectord.service).
    public static let serviceUser = "lector"

    /// Connects to `path` and checks who serves it: this user, root, or the
    /// ``serviceUser`` (`SO_PEERCRED`), so that no other local user can pass for lectord.
    public init(path: String) throws(ConnectionError) {
        let descriptor: Int32
        do { descriptor = try Syscalls.unixSocket(nonBlocking: false) } catch { throw .system(error) }
        do {
            try Syscalls.connect(descriptor, path: path)
        } catch {
            Syscalls.close(descriptor)
            throw .cannotConnect(path: path, error)
        }
        let peer: uid_t
        do { peer = try Syscalls.peerCredentials(descriptor).user } catch {
            Syscalls.close(descriptor)
            throw .system(error)
        }
        guard Self.trusts(peer) else {
            Syscalls.close(descriptor)
            throw .untrustedPeer(path: path, user: peer)
        }
        self.descriptor = descriptor
    }

    /// Whether a server run by `user` is to be trusted: this user, root, or the service user.
    static func trusts(_ user: uid_t) -> Bool {
        user == Syscalls.userID || user == 0 || user == Syscalls.userID(named: serviceUser)
    }

    deinit { Syscalls.close(descriptor) }

    /// Sends one request line.
    public func send(_ request: JSONValue) throws(ConnectionError) {
        var line = JSONWriter.bytes(request)
        line.append(UInt8(ascii: "\n"))
        try sendRaw(line)
    }

    /// Sends one typed request.
    public func send(_ request: Request) throws(ConnectionError) {
        try sendRaw(request.bytes + [UInt8(ascii: "\n")])
    }

    /// Sends bytes as they are (tests send malformed requests with it).
    public func sendRaw(_ line: [UInt8]) throws(ConnectionError) {
        var offset = 0
        while offset < line.count {
            let outcome: Result<IOResult<Int>, SystemError> = line.withUnsafeBytes { raw in
                do throws(SystemError) {
                    return .success(try Syscalls.write(descriptor, from: UnsafeRawBufferPointer(rebasing: raw[offset...])))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case let .success(.done(count)): offset += count
            case .success(.wouldBlock): continue
            case let .failure(error):
                guard error.errno == EPIPE else { throw .system(error) }
                throw .closed(reason: closingReason())
            }
        }
    }

    /// The next line, without its newline.
    /// - Parameter timeout: seconds to wait at most; nil waits for ever.
    public func readLine(timeout: Double? = nil) throws(ConnectionError) -> [UInt8] {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 65536 {
                    buffer.removeFirst(start)
                    start = 0
                }
                lastError = Self.errorMessage(line)
                return line
            }
            if buffer.count - start > ProtocolVersion.maximumServerLine {
                throw .malformed("a line longer than \(ProtocolVersion.maximumServerLine) bytes")
            }
            if let timeout {
                let ready: Bool
                do { ready = try Syscalls.waitReadable(descriptor, timeoutMilliseconds: Int32(max(0, timeout * 1000))) } catch { throw .system(error) }
                if !ready { throw .timedOut(seconds: timeout) }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let outcome: Result<IOResult<Int>, SystemError> = chunk.withUnsafeMutableBytes { raw in
                do throws(SystemError) { return .success(try Syscalls.read(descriptor, into: raw)) } catch { return .failure(error) }
            }
            switch outcome {
            case .success(.done(0)): throw .closed(reason: lastError)
            case let .success(.done(count)): buffer.append(contentsOf: chunk[0..<count])
            case .success(.wouldBlock): continue
            case let .failure(error): throw error.errno == ECONNRESET ? .closed(reason: lastError) : .system(error)
            }
        }
    }

    /// Whether the server has closed its end (an idle timeout, a restart): reads what
    /// is waiting without blocking. A connection kept for later requests checks this
    /// before reusing itself.
    public func serverHasClosed() -> Bool {
        while true {
            do {
                guard try Syscalls.waitReadable(descriptor, timeoutMilliseconds: 0) else { return false }
            } catch {
                return true
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let outcome: Result<IOResult<Int>, SystemError> = chunk.withUnsafeMutableBytes { raw in
                do throws(SystemError) { return .success(try Syscalls.read(descriptor, into: raw)) } catch { return .failure(error) }
            }
            switch outcome {
            case .success(.done(0)), .failure: return true
            case let .success(.done(count)): buffer.append(contentsOf: chunk[0..<count])
            case .success(.wouldBlock): return false
            }
        }
    }

    /// After a write found the connection closed: the ERROR among the last lines the
    /// server sent (read now, without waiting long), if any.
    private func closingReason() -> String? {
        var reason = lastError
        while let line = try? readLine(timeout: 0.2) {
            reason = Self.errorMessage(line)
        }
        return reason
    }

    /// The message of `line` when it is an ERROR (the server writes `class` first).
    private static func errorMessage(_ line: [UInt8]) -> String? {
        guard line.starts(with: Array(#"{"class":"ERROR""#.utf8)) else { return nil }
        return (try? ErrorMessage(json: JSONParser.parse(line)))?.message
    }

    /// The next line, parsed as a JSON object.
    public func readMessage(timeout: Double? = nil) throws(ConnectionError) -> (line: [UInt8], message: JSONValue) {
        let line = try readLine(timeout: timeout)
        do {
            return (line, try JSONParser.parse(line))
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// The next line, decoded into its typed message (unknown classes as
    /// ``ServerMessage/other(_:)``); the line is kept for `--json` output.
    public func receive(timeout: Double? = nil) throws(ConnectionError) -> (line: [UInt8], message: ServerMessage) {
        let line = try readLine(timeout: timeout)
        do {
            return (line, try ServerMessage(line: line))
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// Reads until a message of type `type` arrives, skipping the others (stream
    /// messages), for at most `timeout` seconds.
    public func read<Message: ProtocolMessage>(_ type: Message.Type, timeout: Double = 10) throws(ConnectionError) -> Message {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let line = try readLine(timeout: max(0.001, deadline.timeIntervalSinceNow))
            do {
                let json = try ServerMessage.parseObject(line)
                if json["class"]?.stringValue == Message.messageClass { return try Message(json: json) }
            } catch {
                throw .malformed("\(error)")
            }
        }
    }

    /// Reads until a message of class `name` arrives, skipping the others (stream
    /// messages), for at most `timeout` seconds.
    public func read(class name: String, timeout: Double = 10) throws(ConnectionError) -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let message = try readMessage(timeout: max(0.001, deadline.timeIntervalSinceNow)).message
            if message["class"]?.stringValue == name { return message }
        }
    }
}
