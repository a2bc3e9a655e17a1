import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// Request/reply with lectord over one connection (STATUS, DEVICES, SNAPSHOT,
/// ORIENTATION), shared by the HTTP threads one request at a time; reconnects when
/// lectord went away.
public final class LectordLink: @unchecked Sendable {
    public let socketPath: String
    // `lock` guards `connection`.
    private let lock = NSLock()
    private var connection: LectorConnection?

    public init(socketPath: String) { self.socketPath = socketPath }

    /// Sends a typed request; see ``request(_:timeout:)-(JSONValue,_)``.
    public func request(_ request: Request, timeout: Double = 5) throws(ConnectionError) -> JSONValue {
        try self.request(request.json, timeout: timeout)
    }

    /// Sends `request` and returns lectord's reply: the message of the same class, or
    /// an `ERROR`. Retries once on a fresh connection when the old one broke.
    public func request(_ request: JSONValue, timeout: Double = 5) throws(ConnectionError) -> JSONValue {
        lock.lock()
        defer { lock.unlock() }
        let name = request["class"]?.stringValue ?? ""
        var attempt = 0
        while true {
            attempt += 1
            do throws(ConnectionError) {
                let connection = try connected()
                try connection.send(request)
                let deadline = Date(timeIntervalSinceNow: timeout)
                while true {
                    let message = try connection.readMessage(timeout: max(0.001, deadline.timeIntervalSinceNow)).message
                    let reply = message["class"]?.stringValue
                    if reply == name || reply == "ERROR" { return message }
                }
            } catch {
                self.connection = nil
                if attempt >= 2 { throw error }
                switch error {
                case .cannotConnect, .untrustedPeer: throw error
                default: break
                }
            }
        }
    }

    private func connected() throws(ConnectionError) -> LectorConnection {
        // lectord closes a connection that stayed idle (`--idle-timeout`): reconnect
        // rather than read its parting ERROR as the reply.
        if let connection, !connection.serverHasClosed() { return connection }
        let fresh = try LectorConnection(path: socketPath)
        _ = try fresh.read(class: "VERSION", timeout: 5)
        connection = fresh
        return fresh
    }
}
