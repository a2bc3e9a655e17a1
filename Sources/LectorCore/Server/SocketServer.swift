import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// The socket server: one thread runs a `poll` loop over the listening socket, every
/// client and a wake event. Recognizer threads hand publications over with
/// ``publish(_:)``, which never blocks; each client has its own bounded outbound
/// buffer (``OutboundQueue``), so a slow client loses stream messages and, if it takes
/// nothing for ``Configuration/clientTimeout``, is disconnected, while every other
/// client and the cameras go on at their own pace.
public final class SocketServer: Sendable {
    /// Limits and timeouts.
    public struct Configuration: Equatable, Sendable {
        /// Clients served at once; one more gets an ERROR and is closed.
        public var maximumClients = 32
        /// Seconds a client may leave pending output untaken before it is disconnected.
        public var clientTimeout = 10.0
        /// Bytes of stream messages a client's outbound buffer holds.
        public var clientBufferBytes = 1 << 20
        /// At shutdown, how long pending replies may take to be written.
        public var shutdownFlushSeconds = 0.3

        public init() {}
    }

    private let inbox: ServerInbox
    private let loop: ServerLoop
    private let finished = DispatchGroup()

    /// - Parameter listener: the listening socket; the server owns it from now on.
    public init(listener: ListeningSocket, hub: CameraHub, configuration: Configuration, logger: Logger) throws(SystemError) {
        inbox = try ServerInbox()
        loop = ServerLoop(listener: listener, hub: hub, configuration: configuration, inbox: inbox, logger: logger)
    }

    /// Starts the server thread.
    public func start() {
        finished.enter()
        Thread.detachNewThread { [loop, inbox, finished] in
            Thread.current.name = "lector-server"
            loop.run()
            inbox.close()
            finished.leave()
        }
    }

    /// The listening descriptor (tests inject faults on it).
    var listeningDescriptor: Int32 { loop.listeningDescriptor }

    /// Hands a recognized frame to the clients that watch its device (any thread; never blocks).
    public func publish(_ publication: Publication) { inbox.post(.publication(publication, posted: .now())) }

    /// Tells watchers a device's state changed (any thread; never blocks).
    public func deviceChanged(_ info: DeviceInfo) { inbox.post(.deviceChanged(info)) }

    /// Applies new limits (a configuration reload): the client cap and timeout at once,
    /// the buffer size to clients that connect from now on.
    public func reconfigure(_ configuration: Configuration) { inbox.post(.configure(configuration)) }

    /// Stops accepting, removes the socket path, writes pending replies (briefly), closes
    /// every client; returns when the server thread has ended.
    public func shutdown() {
        inbox.post(.shutdown)
        finished.wait()
    }
}

/// The TEXT lines a publication may need: one per detail level and confidence filter.
private struct TextVariant: Hashable {
    /// What ``Publication/textLine`` already holds.
    static let `default` = TextVariant(level: .word, minimumConfidence: 0)
    var level: DetailLevel
    var minimumConfidence: Double
}

/// The state of the server thread. Touched by that thread only.
final class ServerLoop: @unchecked Sendable {
    let listener: ListeningSocket
    /// The listening descriptor (tests inject faults on it).
    var listeningDescriptor: Int32 { listener.descriptor }
    let hub: CameraHub
    var configuration: SocketServer.Configuration
    let inbox: ServerInbox
    let logger: Logger
    /// Connected clients, oldest first.
    var clients: [ClientConnection] = []
    private var nextID = 1
    private var shutdownDeadline: MonotonicInstant?
    private var listenerOpen = true
    /// From ``SocketServer/publish(_:)`` to every watcher's line written (or queued, for
    /// a watcher whose socket is full), for STATUS.
    var publishTimes = RecentSamples<Double>()
    /// The last state pushed to watchers, per device.
    private var lastDeviceStates: [String: DeviceInfo] = [:]

    init(listener: ListeningSocket, hub: CameraHub, configuration: SocketServer.Configuration, inbox: ServerInbox, logger: Logger) {
        self.listener = listener
        self.hub = hub
        self.configuration = configuration
        self.inbox = inbox
        self.logger = logger
    }

    func run() {
        logger.info("serving", [("socket", listener.path ?? "fd 3 (systemd)"), ("max_clients", "\(configuration.maximumClients)")])
        while true {
            var descriptors = [pollfd(fd: inbox.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            if listenerOpen { descriptors.append(pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)) }
            let base = descriptors.count
            let polled = clients
            for client in polled {
                var events: Int32 = 0
                if !client.closing && !client.inputEnded && client.outbound.pendingBytes < client.outbound.capacity {
                    events |= Int32(POLLIN)
                }
                if !client.outbound.isEmpty { events |= Int32(POLLOUT) }
                descriptors.append(pollfd(fd: client.descriptor, events: Int16(events), revents: 0))
            }
            do {
                // Sleep for good unless a timer runs (a stalled client, shutdown): idle costs nothing.
                let timing = shutdownDeadline != nil || clients.contains { $0.stalledSince != nil }
                _ = try Syscalls.poll(&descriptors, timeoutMilliseconds: timing ? 100 : -1)
            } catch {
                logger.error("poll failed", [("reason", "\(error)")])
                beginShutdown()
            }
            for event in inbox.takeAll() { handle(event) }
            if listenerOpen, descriptors[1].revents != 0 { acceptClients() }
            for (offset, client) in polled.enumerated() where !isClosed(client) {
                let events = Int32(descriptors[base + offset].revents)
                if events & Int32(POLLIN | POLLHUP | POLLERR) != 0 && !client.closing && !client.inputEnded { read(client) }
                if events & Int32(POLLOUT) != 0, !isClosed(client) { flush(client) }
                // Hung up (both directions; a half-close is only an end of input): nothing
                // can reach it any more, and poll would report it for ever.
                if events & Int32(POLLHUP | POLLERR) != 0, !isClosed(client) { close(client, reason: nil) }
            }
            housekeeping()
            if let deadline = shutdownDeadline,
               clients.allSatisfy({ $0.outbound.isEmpty }) || MonotonicInstant.now() >= deadline {
                for client in clients { close(client, reason: nil) }
                logger.info("server stopped")
                return
            }
        }
    }

    // MARK: Events from other threads

    private func handle(_ event: ServerEvent) {
        switch event {
        case let .publication(publication, posted):
            dispatch(publication)
            publishTimes.append(MonotonicInstant.now().milliseconds(since: posted))
        case let .deviceChanged(info):
            // Pushed on a change of state (or of its error), not on every report.
            let previous = lastDeviceStates[info.path]
            guard previous?.state != info.state || previous?.error != info.error else { return }
            lastDeviceStates[info.path] = info
            logger.info("device state", [("device", info.path), ("state", info.state.rawValue)] + (info.error.map { [("error", $0)] } ?? []))
            let message = devicesMessage().bytes
            for client in clients where client.watch.enable && !client.closing {
                client.outbound.enqueueReply(message)
                flush(client)
            }
        case let .configure(configuration):
            self.configuration.maximumClients = configuration.maximumClients
            self.configuration.clientTimeout = configuration.clientTimeout
            self.configuration.clientBufferBytes = configuration.clientBufferBytes
        case .shutdown: beginShutdown()
        }
    }

    private func beginShutdown() {
        guard shutdownDeadline == nil else { return }
        shutdownDeadline = MonotonicInstant.now().adding(milliseconds: configuration.shutdownFlushSeconds * 1000)
        if listenerOpen {
            listener.close()
            listenerOpen = false
        }
        for client in clients {
            client.watch.enable = false
            client.closing = true
            flush(client)
        }
    }

    /// Sends a publication to each client that watches its device, with that client's
    /// filters. Each distinct line is encoded once and shared by the clients it goes to.
    private func dispatch(_ publication: Publication) {
        let device = publication.text.device
        var frameLine: OutboundLine?
        var textLines: [TextVariant: OutboundLine] = [:]
        var trackLines: [OutboundLine]?
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
                    let variant = TextVariant(level: watch.level, minimumConfidence: watch.minimumConfidence)
                    let line = textLines[variant] ?? OutboundLine(variant == .default ? publication.textLine
                        : publication.text.message(level: variant.level, minimumConfidence: variant.minimumConfidence).bytes)
                    textLines[variant] = line
                    if line.count <= ProtocolVersion.maximumServerLine {
                        client.outbound.enqueueStream(line)
                    } else {
                        logger.once("long-text", .warning, "TEXT longer than the line limit, not sent", [("device", device)])
                    }
                }
            }
            if watch.frame {
                let line = frameLine ?? OutboundLine(publication.frame.message.bytes)
                frameLine = line
                client.outbound.enqueueStream(line)
            }
            if watch.tracks && !publication.tracks.isEmpty {
                let lines = trackLines ?? publication.trackMessages.map { OutboundLine($0.bytes) }
                trackLines = lines
                for line in lines { client.outbound.enqueueStream(line) }
            }
            flush(client)
        }
    }

    // MARK: Clients

    private func acceptClients() {
        while true {
            let descriptor: Int32
            do {
                guard case let .done(accepted) = try Syscalls.accept(listener.descriptor) else { return }
                descriptor = accepted
            } catch {
                // EMFILE, ENOBUFS…: try again on the next round.
                logger.once("accept", .warning, "cannot accept a client", [("reason", "\(error)")])
                return
            }
            logger.clearOnce("accept")
            let client = ClientConnection(id: nextID, descriptor: descriptor, capacity: configuration.clientBufferBytes)
            nextID += 1
            clients.append(client)
            if clients.count > configuration.maximumClients {
                logger.warning("client refused: too many clients", [("client", "\(client.id)"),
                                                                    ("max_clients", "\(configuration.maximumClients)")])
                client.outbound.enqueueReply(ErrorMessage(
                    "too many clients (at most \(configuration.maximumClients))").bytes)
                client.closing = true
            } else {
                logger.debug("client connected", [("client", "\(client.id)")])
                client.outbound.enqueueReply(VersionMessage(release: LectorRelease.version).bytes)
            }
            flush(client)
        }
    }

    /// Reads what the client sent and answers each whole line.
    private func read(_ client: ClientConnection) {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var budget = 256 * 1024  // per round, so one chatty client cannot starve the rest
        while budget > 0 && !client.closing && !client.inputEnded && !isClosed(client)
            && client.outbound.pendingBytes < client.outbound.capacity {
            let result: IOResult<Int>
            do {
                let outcome: Result<IOResult<Int>, SystemError> = chunk.withUnsafeMutableBytes { raw in
                    do throws(SystemError) { return .success(try Syscalls.read(client.descriptor, into: raw)) } catch { return .failure(error) }
                }
                result = try outcome.get()
            } catch {
                close(client, reason: "\(error)")
                return
            }
            guard case let .done(count) = result else { break }
            if count == 0 {
                // End of the client's input (`echo '{"class":"WATCH"}' | socat - UNIX:…`):
                // answer a last line without newline; a watcher goes on receiving, any
                // other client is closed once its replies are written.
                if !client.inbound.isEmpty && client.inbound.count < ProtocolVersion.maximumRequestLine {
                    client.inbound.append(UInt8(ascii: "\n"))
                    processLines(client)
                }
                client.inputEnded = true
                break
            }
            budget -= count
            client.inbound.append(contentsOf: chunk[0..<count])
            processLines(client)
        }
        flush(client)
    }

    /// Answers the whole lines read so far, while the client's outbound buffer has room
    /// (so that replies, which are never dropped, stay bounded too); the rest waits.
    private func processLines(_ client: ClientConnection) {
        var start = 0
        let bytes = client.inbound
        while !client.closing, client.outbound.pendingBytes < client.outbound.capacity,
              let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = bytes[start..<newline]
            start = newline + 1
            if line.count + 1 > ProtocolVersion.maximumRequestLine {
                refuseLongLine(client)
                return
            }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            answer(line, for: client)
        }
        client.inbound.removeFirst(start)
        if !client.closing, client.inbound.count >= ProtocolVersion.maximumRequestLine,
           !client.inbound.contains(UInt8(ascii: "\n")) {
            refuseLongLine(client)
        }
    }

    private func refuseLongLine(_ client: ClientConnection) {
        client.inbound.removeAll()
        client.outbound.enqueueReply(ErrorMessage(
            "request line longer than \(ProtocolVersion.maximumRequestLine) bytes; closing").bytes)
        client.watch.enable = false
        client.closing = true
        updateWatched()
        logger.warning("client sent an oversize request; closing", [("client", "\(client.id)")])
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
            close(client, reason: error.errno == EPIPE || error.errno == ECONNRESET ? nil : "\(error)")
        }
    }

    private func housekeeping() {
        let now = MonotonicInstant.now()
        for client in clients {
            // Lines left waiting while the buffer was full, now that it has room.
            if !client.closing, client.outbound.pendingBytes < client.outbound.capacity,
               client.inbound.contains(UInt8(ascii: "\n")) {
                processLines(client)
                flush(client)
            }
            if isClosed(client) { continue }
            // Input ended and every line answered: a client that does not watch is done.
            if client.inputEnded, !client.closing, !client.watch.enable, !client.inbound.contains(UInt8(ascii: "\n")) {
                client.closing = true
            }
            if client.closing && client.outbound.isEmpty {
                close(client, reason: nil)
            } else if let since = client.stalledSince, now.milliseconds(since: since) > configuration.clientTimeout * 1000 {
                logger.warning("client takes nothing; disconnecting", [("client", "\(client.id)"),
                    ("pending_bytes", "\(client.outbound.pendingBytes)"), ("dropped", "\(client.outbound.droppedTotal)")])
                close(client, reason: nil)
            }
        }
    }

    private func isClosed(_ client: ClientConnection) -> Bool { client.closed }

    private func close(_ client: ClientConnection, reason: String?) {
        guard !client.closed, let index = clients.firstIndex(where: { $0 === client }) else { return }
        clients.remove(at: index)
        client.closed = true
        Syscalls.close(client.descriptor)
        if let reason {
            logger.info("client closed", [("client", "\(client.id)"), ("reason", reason)])
        } else {
            logger.debug("client closed", [("client", "\(client.id)")])
        }
        if client.watch.enable { updateWatched() }
    }

    /// Tells the hub which devices somebody streams.
    func updateWatched() {
        var watched = Set<String>()
        for name in hub.names where clients.contains(where: { $0.watch.streams(name) }) {
            watched.insert(name)
        }
        hub.setWatched(watched)
    }
}
