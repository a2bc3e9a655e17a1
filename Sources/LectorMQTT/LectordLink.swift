import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// The bridge's connection to lectord: connects (again, with backoff, after lectord
/// restarts), subscribes with WATCH, sends requests and remembers which replies are due
/// so an `ERROR` can be matched to its request. Used from the bridge's thread only.
final class LectordLink {
    /// A request sent and not yet answered.
    struct PendingRequest {
        var name: String
        var device: String?
    }

    let path: String
    private let logger: Logger
    private(set) var connection: LectorConnection?
    private(set) var pending: [PendingRequest] = []
    /// When to try connecting next.
    private(set) var nextAttempt = Date.distantPast
    private var backoff = 0.25
    private var everConnected = false

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    var isConnected: Bool { connection != nil }
    var descriptor: Int32? { connection?.descriptor }

    /// Connects when it is time; returns true when a new connection came up (WATCH sent).
    func connectIfDue(now: Date) -> Bool {
        guard connection == nil, now >= nextAttempt else { return false }
        do {
            let connection = try LectorConnection(path: path)
            self.connection = connection
            pending = [PendingRequest(name: "WATCH")]
            var watch = JSONObjectBuilder(class: "WATCH")
            watch.add("enable", true)
            watch.add("devices", .array([.string("all")]))
            watch.add("text", true)
            watch.add("frame", false)
            watch.add("level", "block")
            // TRACK events, once lectord has them; unknown members are ignored before that.
            watch.add("tracks", true)
            try connection.send(watch.value)
            backoff = 0.25
            logger.clearOnce("lectord")
            logger.info(everConnected ? "reconnected to lectord" : "connected to lectord", [("socket", path)])
            everConnected = true
            return true
        } catch {
            connection = nil
            logger.once("lectord", .warning, "cannot reach lectord; retrying with backoff", [("socket", path), ("error", "\(error)")])
            nextAttempt = now.addingTimeInterval(backoff)
            backoff = min(backoff * 2, 5)
            return false
        }
    }

    /// Sends a request and remembers that its reply is due.
    func send(_ request: JSONValue, device: String? = nil) {
        guard let connection, let name = request["class"]?.stringValue else { return }
        do {
            try connection.send(request)
            pending.append(PendingRequest(name: name, device: device))
        } catch {
            drop(reason: "\(error)")
        }
    }

    /// Whether a request of this class is waiting for its reply.
    func isPending(_ name: String) -> Bool { pending.contains { $0.name == name } }

    /// The request a reply or `ERROR` answers (replies come in request order).
    func answered(by message: JSONValue) -> PendingRequest? {
        guard let name = message["class"]?.stringValue else { return nil }
        if name == "ERROR" || pending.first?.name == name {
            return pending.isEmpty ? nil : pending.removeFirst()
        }
        return nil
    }

    /// The complete lines that have arrived, at most `limit`; an empty array when none.
    /// A closed or broken connection is dropped (and retried later); `lost` says so.
    func readAvailable(limit: Int) -> (messages: [(line: [UInt8], message: JSONValue)], lost: Bool) {
        guard let connection else { return ([], false) }
        var messages: [(line: [UInt8], message: JSONValue)] = []
        while messages.count < limit {
            do {
                messages.append(try connection.readMessage(timeout: 0))
            } catch .timedOut {
                break
            } catch .malformed(let reason) {
                logger.warning("ignored a line from lectord", [("reason", reason)])
            } catch {
                drop(reason: "\(error)")
                return (messages, true)
            }
        }
        return (messages, false)
    }

    /// Closes the connection; the next attempt follows shortly.
    func drop(reason: String) {
        guard connection != nil else { return }
        logger.warning("lost lectord; reconnecting", [("socket", path), ("reason", reason)])
        connection = nil
        pending = []
        nextAttempt = Date().addingTimeInterval(backoff)
    }
}
