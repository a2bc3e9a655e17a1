import Foundation
import LectorProtocol
import LectorSystem

// ServerLoop: the work of every round that no descriptor reports: lines left waiting
// for room, clients done, idle or stalled, and the timers the loop sleeps by.

extension ServerLoop {
    /// Once per round, for every client: answers lines left waiting while its buffer was
    /// full, closes it when it is done, idle past ``SocketServer/Configuration/idleTimeout``
    /// or stalled past ``SocketServer/Configuration/clientTimeout``, else updates its interest.
    func housekeeping() {
        let now = MonotonicInstant.now()
        linesLeftToAnswer = false
        for client in clients {
            // Lines left waiting while the buffer was full, now that it has room: as
            // many as the socket takes, up to a budget per round (the next round comes
            // at once while some are left: no descriptor reports them).
            var budget = 256 * 1024
            while budget > 0, hasAnswerableLines(client) {
                let waiting = client.inbound.count
                processLines(client)
                flush(client)
                guard client.inbound.count < waiting else { break }
                budget -= waiting - client.inbound.count
            }
            if hasAnswerableLines(client) { linesLeftToAnswer = true }
            if isClosed(client) { continue }
            // Input ended and every line answered: a client that does not watch is done.
            if client.inputEnded, !client.closing, !client.awaitingReply, !client.watch.enable, !client.inbound.contains(UInt8(ascii: "\n")) {
                client.closing = true
            }
            if !client.closing, client.isIdle, now.milliseconds(since: client.lastRequest) >= configuration.idleTimeout * 1000 {
                logger.info("client idle; closing", [("client", "\(client.id)"), ("idle_timeout", "\(configuration.idleTimeout)")])
                client.outbound.enqueueReply(ErrorMessage(
                    "closing: no request for \(Self.seconds(configuration.idleTimeout)) s (idle timeout; WATCH to stay connected)").bytes)
                client.closing = true
                flush(client)
            }
            if client.closing && client.outbound.isEmpty {
                self.close(client, reason: nil)
            } else if let since = client.stalledSince, now.milliseconds(since: since) > configuration.clientTimeout * 1000 {
                logger.warning("client takes nothing; disconnecting", [("client", "\(client.id)"),
                    ("pending_bytes", "\(client.outbound.pendingBytes)"), ("dropped", "\(client.outbound.droppedTotal)")])
                self.close(client, reason: nil)
            } else {
                updateInterest(client)
            }
        }
    }

    /// Whether `client` was closed (by a failed read or write, or a hang-up).
    func isClosed(_ client: ClientConnection) -> Bool { client.closed }

    /// Whether request lines read earlier wait for an answer they can now have (the
    /// client's buffer has room, no reply of its is being rendered).
    private func hasAnswerableLines(_ client: ClientConnection) -> Bool {
        !client.closing && !client.closed && !client.awaitingReply && client.outbound.pendingBytes < client.outbound.capacity
            && client.inbound.contains(UInt8(ascii: "\n"))
    }

    /// Milliseconds until the first idle client's timeout, -1 when no client can time out.
    func idleWakeMilliseconds() -> Int32 {
        let now = MonotonicInstant.now()
        let left = clients.filter { !$0.closing && $0.isIdle }
            .map { configuration.idleTimeout * 1000 - now.milliseconds(since: $0.lastRequest) }
            .min()
        guard let left else { return -1 }
        return Int32(min(Double(Int32.max), max(0, left.rounded(.up))))
    }

    /// `60`, `2.5`: a number of seconds as the user wrote it.
    package static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    }
}
