import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem

// ServerLoop: fan-out, a publication to every client that watches its device, and the
// writes that carry each client's queued lines to its socket.

/// The TEXT lines a publication may need: one per detail level and confidence filter.
private struct TextVariant: Hashable {
    /// What ``Publication/textLine`` already holds.
    static let `default` = TextVariant(level: .word, minimumConfidence: 0)
    var level: DetailLevel
    var minimumConfidence: Double
}

extension ServerLoop {
    /// Publishes on the caller's thread when the server thread is not busy (it waits in
    /// `epoll_wait`, without the state lock) and nothing is waiting in the inbox (which
    /// keeps publications in order). Never blocks: when the lock is taken, returns false
    /// and the caller posts to the inbox.
    func publishDirectly(_ publication: Publication) -> Bool {
        let posted = MonotonicInstant.now()
        guard state.try() else { return false }
        defer { state.unlock() }
        guard shutdownDeadline == nil, !stopped, inbox.isEmpty else { return false }
        let needsServer = dispatch(publication)
        publishTimes.append(MonotonicInstant.now().milliseconds(since: posted))
        // Wake the server thread when this left it work no descriptor would report:
        // request lines read earlier that wait for room in a buffer this flush emptied,
        // or a socket that filled and needs the stall timer (which a server thread
        // asleep without a timeout does not run).
        if needsServer || sleepingWithoutTimer && clients.contains(where: { $0.stalledSince != nil }) {
            sleepingWithoutTimer = false
            Syscalls.signalWake(inbox.wakeDescriptor)
        }
        return true
    }

    /// Sends a publication to each client that watches its device, with that client's
    /// filters. Each distinct line is encoded once and shared by the clients it goes to.
    /// - Returns: whether a client has request bytes waiting to be answered (the server
    ///   thread's housekeeping answers them once its buffer has room).
    @discardableResult
    func dispatch(_ publication: Publication) -> Bool {
        var linesWaiting = false
        let device = publication.text.device
        var frameLine: OutboundLine?
        var defaultTextLine: OutboundLine?
        var textLines: [TextVariant: OutboundLine] = [:]
        var trackLines: [OutboundLine]?
        var matchLines: [OutboundLine]?
        for client in clients where client.watch.streams(device) && !client.closing {
            let watch = client.watch
            if watch.text {
                var send = true
                if watch.changesOnly {
                    // The tracks' voted text, not this frame's raw reading: flicker is not a change.
                    let text = publication.consensus
                    send = client.lastText[device] != text
                    client.lastText[device] = text
                }
                if send {
                    let line: OutboundLine
                    if watch.level == TextVariant.default.level && watch.minimumConfidence == TextVariant.default.minimumConfidence {
                        // Most clients: no hashing per client.
                        line = defaultTextLine ?? OutboundLine(publication.textLine)
                        defaultTextLine = line
                    } else {
                        let variant = TextVariant(level: watch.level, minimumConfidence: watch.minimumConfidence)
                        line = textLines[variant] ?? OutboundLine(
                            publication.text.message(level: variant.level, minimumConfidence: variant.minimumConfidence).bytes)
                        textLines[variant] = line
                    }
                    if line.count <= ProtocolVersion.maximumServerLine {
                        client.outbound.enqueueStream(line)
                    } else {
                        logger.once("long-text", .warning, "TEXT longer than the line limit, not sent", [("device", device)])
                    }
                }
            }
            if watch.frame {
                let line = frameLine ?? OutboundLine(publication.frameLine)
                frameLine = line
                client.outbound.enqueueStream(line)
            }
            if watch.tracks && !publication.tracks.isEmpty {
                let lines = trackLines ?? publication.trackMessages.map { OutboundLine($0.bytes) }
                trackLines = lines
                for line in lines { client.outbound.enqueueStream(line) }
            }
            if watch.matches && !publication.matches.isEmpty {
                let lines = matchLines ?? publication.matches.map { OutboundLine($0.bytes) }
                matchLines = lines
                for line in lines { client.outbound.enqueueStream(line) }
            }
            // A client whose socket is full waits for epoll's POLLOUT: no write is tried
            // for it per publication (four stalled watchers cost the others 13-22%).
            if client.stalledSince == nil { flush(client) }
            updateInterest(client)
            if !client.inbound.isEmpty { linesWaiting = true }
        }
        return linesWaiting
    }

    /// Sends codes that came into view to each client that watches their device: CODE
    /// lines with `codes`, the rules' MATCH lines with `matches`.
    func dispatch(_ publication: CodePublication) {
        let codeLines = publication.codes.map { OutboundLine($0.bytes) }
        let matchLines = publication.matches.map { OutboundLine($0.bytes) }
        for client in clients where client.watch.streams(publication.device) && !client.closing {
            let lines = (client.watch.codes ? codeLines : []) + (client.watch.matches ? matchLines : [])
            guard !lines.isEmpty else { continue }
            for line in lines { client.outbound.enqueueStream(line) }
            if client.stalledSince == nil { flush(client) }
            updateInterest(client)
        }
    }

    /// Writes what the socket takes; tracks how long it has taken nothing.
    func flush(_ client: ClientConnection) {
        guard !client.outbound.isEmpty else {
            client.stalledSince = nil
            return
        }
        do {
            let written = try client.outbound.flush { buffers throws(SystemError) in try Syscalls.write(client.descriptor, gathering: buffers) }
            if client.outbound.isEmpty {
                client.stalledSince = nil
            } else if written > 0 || client.stalledSince == nil {
                client.stalledSince = .now()
            }
        } catch {
            self.close(client, reason: error.errno == EPIPE || error.errno == ECONNRESET ? nil : "\(error)")
        }
    }
}
