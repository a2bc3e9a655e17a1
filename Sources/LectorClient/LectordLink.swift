import Foundation
import LectorProtocol
import LectorSystem

/// A client's connection to lectord that comes back: connects when it is due (again,
/// after lectord restarted, with a ``ReconnectBackoff``), sends typed ``Request``s and
/// remembers which replies are due (so an `ERROR` is matched to its request), and
/// decodes what arrives into ``ServerMessage``s. lector-mqtt polls it, lector-http's
/// event thread and request handler block on it. Not thread-safe: one owner (or a lock)
/// at a time. What to log is the caller's; the link reports what happened.
public final class LectordLink {
    /// A request sent and not yet answered.
    public struct PendingRequest: Equatable, Sendable {
        /// Its class (`STATUS`).
        public var name: String
        /// The camera it is about, when it names one.
        public var device: String?
    }

    /// What ``connectIfDue(now:)`` did.
    public enum Attempt {
        /// Connected, or not yet due: nothing new.
        case nothing
        /// A new connection is up; `again` after an earlier one.
        case connected(again: Bool)
        /// The attempt failed; the next is due at ``nextAttempt``.
        case failed(ConnectionError)
    }

    /// lectord's socket.
    public let path: String
    private let backoff: ReconnectBackoff
    /// Whether a new connection first reads lectord's VERSION (``version``).
    private let awaitsVersion: Bool
    /// Requests sent on each new connection (a WATCH).
    private let greeting: [Request]
    public private(set) var connection: LectorConnection?
    /// lectord's VERSION on this connection, when ``init(path:backoff:awaitsVersion:greeting:)`` asked to wait for it.
    public private(set) var version: VersionMessage?
    public private(set) var pending: [PendingRequest] = []
    /// When to try connecting next.
    public private(set) var nextAttempt = Date.distantPast
    private var failures = 0
    private var everConnected = false

    /// - Parameters:
    ///   - awaitsVersion: read lectord's VERSION (5 s at most) before the connection counts.
    ///   - greeting: requests sent on every new connection (a WATCH), their replies due.
    public init(path: String, backoff: ReconnectBackoff, awaitsVersion: Bool = false, greeting: [Request] = []) {
        self.path = path
        self.backoff = backoff
        self.awaitsVersion = awaitsVersion
        self.greeting = greeting
    }

    public var isConnected: Bool { connection != nil }
    /// The connected socket, for the caller's poll.
    public var descriptor: Int32? { connection?.descriptor }

    /// Connects when there is no connection and it is time.
    public func connectIfDue(now: Date = Date()) -> Attempt {
        guard connection == nil, now >= nextAttempt else { return .nothing }
        return connect(now: now)
    }

    /// Connects now, whatever the backoff says (a request that is waited for), waiting
    /// at most `versionTimeout` seconds for lectord's VERSION.
    func connect(now: Date = Date(), versionTimeout: Double = 5) -> Attempt {
        do {
            let fresh = try LectorConnection(path: path)
            if awaitsVersion { version = try fresh.read(VersionMessage.self, timeout: versionTimeout) }
            connection = fresh
            pending = []
            for request in greeting {
                try fresh.send(request)
                pending.append(PendingRequest(name: request.requestClass))
            }
            failures = 0
            defer { everConnected = true }
            return .connected(again: everConnected)
        } catch {
            connection = nil
            failures += 1
            nextAttempt = now.addingTimeInterval(backoff.wait(afterFailures: failures))
            return .failed(error)
        }
    }

    /// Sends a request and remembers that its reply is due; a broken connection is
    /// dropped (and its error thrown).
    public func send(_ request: Request, device: String? = nil) throws(ConnectionError) {
        guard let connection else { throw .closed(reason: "not connected to lectord") }
        do {
            try connection.send(request)
        } catch {
            drop()
            throw error
        }
        pending.append(PendingRequest(name: request.requestClass, device: device))
    }

    /// Whether a request of this class is waiting for its reply.
    public func isPending(_ name: String) -> Bool { pending.contains { $0.name == name } }

    /// The request a reply or `ERROR` of class `name` answers (replies come in request order).
    public func answered(byClass name: String) -> PendingRequest? {
        guard name == ErrorMessage.messageClass || pending.first?.name == name, !pending.isEmpty else { return nil }
        return pending.removeFirst()
    }

    /// The next line and its message, waiting at most `timeout` seconds (nil: for ever).
    /// A closed or broken connection is dropped; `.timedOut` and `.malformed` keep it.
    public func receive(timeout: Double?) throws(ConnectionError) -> (line: [UInt8], message: ServerMessage) {
        let (line, json) = try receiveJSON(timeout: timeout)
        do {
            return (line, try ServerMessage(json: json))
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// The next line and its JSON object, for a caller that reads a message its peer
    /// may have written in part (see ``receive(timeout:)``).
    public func receiveJSON(timeout: Double?) throws(ConnectionError) -> (line: [UInt8], message: JSONValue) {
        guard let connection else { throw .closed(reason: "not connected to lectord") }
        do {
            return try connection.readMessage(timeout: timeout)
        } catch {
            switch error {
            case .timedOut, .malformed: break
            default: drop()
            }
            throw error
        }
    }

    /// Closes the connection; the next attempt is due after the backoff's wait after a loss.
    public func drop(now: Date = Date()) {
        guard connection != nil else { return }
        connection = nil
        pending = []
        nextAttempt = now.addingTimeInterval(backoff.afterLoss)
    }
}
