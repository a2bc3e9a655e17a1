import LectorProtocol
import LectorSystem

/// One connected client, touched only by the server thread. Owns its descriptor until
/// the server closes it.
final class ClientConnection {
    /// A number for logs.
    let id: Int
    let descriptor: Int32
    /// Bytes read that do not yet form a whole line.
    var inbound: [UInt8] = []
    var outbound: OutboundQueue
    var watch = WatchSettings()
    /// For `changes_only`: the text last sent, per device.
    var lastText: [String: String] = [:]
    /// Since when output has been waiting without the socket taking any of it.
    var stalledSince: MonotonicInstant?
    /// The client shut down its sending side: read no more; a watcher goes on receiving.
    var inputEnded = false
    /// Stop reading; close once the outbound buffer is written (an oversize request,
    /// the end of a non-watching client's input, the client cap, shutdown).
    var closing = false
    /// A reply is being rendered off the server thread: the client's next lines wait
    /// for it (replies stay in request order).
    var awaitingReply = false
    /// The events the server's ``ReadinessSet`` watches it for.
    var interest: UInt32 = 0
    /// Closed and removed from the server's clients.
    var closed = false
    /// When the client connected or last had a whole request answered: the idle timeout
    /// counts from there.
    var lastRequest = MonotonicInstant.now()

    /// Whether the idle timeout applies: not watching anything (a WATCH that asks for no
    /// message is not watching), not waiting for a reply being rendered, not receiving
    /// one (a slow reader falls under the client timeout instead).
    var isIdle: Bool { !watch.streamsAnything && !awaitingReply && outbound.isEmpty }

    init(id: Int, descriptor: Int32, capacity: Int) {
        self.id = id
        self.descriptor = descriptor
        outbound = OutboundQueue(capacity: capacity)
    }
}
