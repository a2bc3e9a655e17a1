import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem
import Synchronization

/// The socket server: one thread runs an event loop (epoll, level-triggered) over the
/// listening socket, every client and a wake event. Recognizer threads hand publications over with
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
        /// Seconds a client that does not watch may go without sending a whole request
        /// before it is closed (with an ERROR saying so).
        public var idleTimeout = 60.0
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
        let inbox = try ServerInbox()
        self.inbox = inbox
        let renderer = ReplyRenderer { client, line in inbox.post(.rendered(client: client, line: line)) }
        let readiness = try ReadinessSet()
        try readiness.add(inbox.wakeDescriptor, events: UInt32(POLLIN), token: ServerLoop.wakeToken)
        try readiness.add(listener.descriptor, events: UInt32(POLLIN), token: ServerLoop.listenerToken)
        loop = ServerLoop(listener: listener, hub: hub, configuration: configuration, inbox: inbox, renderer: renderer,
                          readiness: readiness, logger: logger)
    }

    /// Starts the server thread.
    public func start() {
        finished.enter()
        Thread.detachNewThread { [loop, inbox, finished] in
            Thread.current.name = "lector-server"
            // Short bursts whose delay every watcher sees: ahead of recognition when the
            // machine is busy (as the capture thread; needs CAP_SYS_NICE or RLIMIT_NICE,
            // else it stays at 0).
            try? Syscalls.setThreadPriority(-5)
            loop.run()
            loop.renderer.stop()
            loop.readiness.close()
            inbox.close()
            finished.leave()
        }
    }

    /// The listening descriptor (tests inject faults on it).
    var listeningDescriptor: Int32 { loop.listeningDescriptor }

    /// Waits (at most `seconds`) until the server has answered what was waiting when it
    /// started, e.g. the WATCH of the client whose connection socket-activated lectord:
    /// a round of its loop found nothing to do. For `READY=1`.
    public func waitUntilSettled(seconds: Double) { _ = loop.settled.wait(seconds: seconds) }

    /// Hands a recognized frame to the clients that watch its device (any thread; never
    /// blocks). When the server thread is idle, the caller writes the lines itself
    /// (non-blocking sends, as the server thread would): no thread hand-off stands
    /// between a result and the sockets. Otherwise the publication waits in the inbox.
    public func publish(_ publication: Publication) {
        if loop.publishDirectly(publication) { return }
        inbox.post(.publication(publication, posted: .now()))
    }

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
///
/// Work per message is what the message needs: the kernel keeps the watched set
/// (``ReadinessSet``), a wake-up returns only the descriptors that are ready, and a
/// client's interest is changed (one `epoll_ctl`) only when it changes: a client with
/// nothing pending and room to read costs nothing while it is idle.
package final class ServerLoop: @unchecked Sendable {
    /// Tokens of the two descriptors that are not clients (clients use their id ≥ 1).
    static let wakeToken: UInt64 = 0
    static let listenerToken = UInt64.max

    let listener: ListeningSocket
    /// The listening descriptor (tests inject faults on it).
    var listeningDescriptor: Int32 { listener.descriptor }
    let hub: CameraHub
    var configuration: SocketServer.Configuration
    let inbox: ServerInbox
    /// Renders SNAPSHOT replies off this thread.
    let renderer: ReplyRenderer
    /// The descriptors the loop waits on; owned by the loop, closed when it ends.
    let readiness: ReadinessSet
    let logger: Logger
    /// Guards everything below: held by the server thread except while it waits in
    /// `epoll_wait`, when a publishing thread may take it (``publishDirectly(_:)``).
    private let state = NSLock()
    /// The server thread waits with no timeout (no stall timer runs).
    private var sleepingWithoutTimer = false
    /// Some client's request lines, read earlier, can be answered now but were left for
    /// the next round (housekeeping's budget): that round must not wait.
    private var linesLeftToAnswer = false
    /// The loop has ended.
    private var stopped = false
    /// Connected clients, oldest first.
    var clients: [ClientConnection] = []
    /// The same clients by id (an event's token): an id is never reused, so an event
    /// for a client closed earlier in the same round cannot reach a newer client that
    /// got the same descriptor.
    private var clientsByID: [Int: ClientConnection] = [:]
    private var nextID = 1
    private var shutdownDeadline: MonotonicInstant?
    private var listenerOpen = true
    /// From ``SocketServer/publish(_:)`` to every watcher's line written (or queued, for
    /// a watcher whose socket is full), for STATUS.
    var publishTimes = RecentSamples<Double>()
    /// The last state pushed to watchers, per device.
    private var lastDeviceStates: [String: DeviceInfo] = [:]
    /// Raised after the first round of the loop that found nothing to do.
    let settled = StopSignal()

    init(listener: ListeningSocket, hub: CameraHub, configuration: SocketServer.Configuration, inbox: ServerInbox,
         renderer: ReplyRenderer, readiness: ReadinessSet, logger: Logger) {
        self.listener = listener
        self.renderer = renderer
        self.hub = hub
        self.configuration = configuration
        self.inbox = inbox
        self.readiness = readiness
        self.logger = logger
    }

    func run() {
        logger.info("serving", [("socket", listener.path ?? "fd 3 (systemd)"), ("max_clients", "\(configuration.maximumClients)")])
        state.lock()
        defer { state.unlock() }
        while true {
            var ready: [ReadinessSet.Event] = []
            // Sleep for good unless a timer runs (a stalled client, shutdown, an idle
            // client's timeout): idle costs nothing.
            let timing = shutdownDeadline != nil || clients.contains { $0.stalledSince != nil }
            // Until settled, look without waiting: a round with nothing ready means what
            // was pending at start (a socket-activating client) is answered.
            let timeout: Int32 = !settled.isRaised || linesLeftToAnswer ? 0 : timing ? 100 : idleWakeMilliseconds()
            sleepingWithoutTimer = !timing
            state.unlock()
            do {
                ready = try readiness.wait(timeoutMilliseconds: timeout)
                if ready.isEmpty && !settled.isRaised { settled.raise() }
            } catch {
                state.lock()
                logger.error("epoll_wait failed", [("reason", "\(error)")])
                beginShutdown()
                state.unlock()
            }
            state.lock()
            sleepingWithoutTimer = false
            for event in inbox.takeAll() { handle(event) }
            for event in ready {
                switch event.token {
                case Self.wakeToken: continue
                case Self.listenerToken: if listenerOpen { acceptClients() }
                default:
                    guard let client = clientsByID[Int(event.token)], !client.closed else { continue }
                    let events = Int32(event.events)
                    if events & Int32(POLLIN | POLLHUP | POLLERR) != 0 && !client.closing && !client.inputEnded { read(client) }
                    if events & Int32(POLLOUT) != 0, !client.closed { flush(client) }
                    // Hung up (both directions; a half-close is only an end of input): nothing
                    // can reach it any more, and epoll would report it for ever.
                    if events & Int32(POLLHUP | POLLERR) != 0, !client.closed { close(client, reason: nil) }
                }
            }
            housekeeping()
            if let deadline = shutdownDeadline,
               clients.allSatisfy({ $0.outbound.isEmpty }) || MonotonicInstant.now() >= deadline {
                for client in clients { close(client, reason: nil) }
                stopped = true
                logger.info("server stopped")
                return
            }
        }
    }

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

    /// What `client` is to be watched for: input while it may send, no reply of its is
    /// being rendered and its replies have room; output while some is waiting.
    private func interest(of client: ClientConnection) -> UInt32 {
        var events: Int32 = 0
        if !client.closing && !client.inputEnded && !client.awaitingReply
            && client.outbound.pendingBytes < client.outbound.capacity {
            events |= Int32(POLLIN)
        }
        if !client.outbound.isEmpty { events |= Int32(POLLOUT) }
        return UInt32(events)
    }

    /// Tells the kernel a client's interest when it changed.
    private func updateInterest(_ client: ClientConnection) {
        let wanted = interest(of: client)
        guard wanted != client.interest, !client.closed else { return }
        do {
            try readiness.modify(client.descriptor, events: wanted, token: UInt64(client.id))
            client.interest = wanted
        } catch {
            close(client, reason: "\(error)")
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
            let device = info.name ?? info.path
            let previous = lastDeviceStates[device]
            guard previous?.state != info.state || previous?.error != info.error || previous?.warning != info.warning
                || previous?.zones != info.zones else { return }
            lastDeviceStates[device] = info
            logger.info("device state", [("device", device), ("state", info.state.rawValue)] + (info.error.map { [("error", $0)] } ?? []))
            let message = devicesMessage().bytes
            for client in clients where client.watch.enable && !client.closing {
                client.outbound.enqueueReply(message)
                flush(client)
            }
        case let .configure(configuration):
            self.configuration.maximumClients = configuration.maximumClients
            self.configuration.clientTimeout = configuration.clientTimeout
            self.configuration.idleTimeout = configuration.idleTimeout
            self.configuration.clientBufferBytes = configuration.clientBufferBytes
        case let .rendered(id, line):
            guard let client = clients.first(where: { $0.id == id }), client.awaitingReply else { return }
            client.awaitingReply = false
            client.lastRequest = .now()
            client.outbound.enqueueReply(line)
            processLines(client)
            flush(client)
        case .shutdown: beginShutdown()
        }
    }

    private func beginShutdown() {
        guard shutdownDeadline == nil else { return }
        shutdownDeadline = MonotonicInstant.now().adding(milliseconds: configuration.shutdownFlushSeconds * 1000)
        if listenerOpen {
            readiness.remove(listener.descriptor)
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
    /// - Returns: whether a client has request bytes waiting to be answered (the server
    ///   thread's housekeeping answers them once its buffer has room).
    @discardableResult
    private func dispatch(_ publication: Publication) -> Bool {
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
            flush(client)
            updateInterest(client)
            if !client.inbound.isEmpty { linesWaiting = true }
        }
        return linesWaiting
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
            do {
                try readiness.add(descriptor, events: UInt32(POLLIN), token: UInt64(client.id))
                client.interest = UInt32(POLLIN)
            } catch {
                // ENOMEM, ENOSPC (max_user_watches): as if it could not be accepted.
                logger.once("accept", .warning, "cannot watch a client", [("reason", "\(error)")])
                Syscalls.close(descriptor)
                return
            }
            clients.append(client)
            clientsByID[client.id] = client
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
        while budget > 0 && !client.closing && !client.inputEnded && !client.awaitingReply && !isClosed(client)
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
        while !client.closing, !client.awaitingReply, client.outbound.pendingBytes < client.outbound.capacity,
              let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = bytes[start..<newline]
            start = newline + 1
            if line.count + 1 > ProtocolVersion.maximumRequestLine {
                refuseLongLine(client)
                return
            }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            client.lastRequest = .now()
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
                close(client, reason: nil)
            } else if let since = client.stalledSince, now.milliseconds(since: since) > configuration.clientTimeout * 1000 {
                logger.warning("client takes nothing; disconnecting", [("client", "\(client.id)"),
                    ("pending_bytes", "\(client.outbound.pendingBytes)"), ("dropped", "\(client.outbound.droppedTotal)")])
                close(client, reason: nil)
            } else {
                updateInterest(client)
            }
        }
    }

    private func isClosed(_ client: ClientConnection) -> Bool { client.closed }

    /// Whether request lines read earlier wait for an answer they can now have (the
    /// client's buffer has room, no reply of its is being rendered).
    private func hasAnswerableLines(_ client: ClientConnection) -> Bool {
        !client.closing && !client.closed && !client.awaitingReply && client.outbound.pendingBytes < client.outbound.capacity
            && client.inbound.contains(UInt8(ascii: "\n"))
    }

    /// Milliseconds until the first idle client's timeout, -1 when no client can time out.
    private func idleWakeMilliseconds() -> Int32 {
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

    private func close(_ client: ClientConnection, reason: String?) {
        guard !client.closed, let index = clients.firstIndex(where: { $0 === client }) else { return }
        clients.remove(at: index)
        clientsByID[client.id] = nil
        client.closed = true
        readiness.remove(client.descriptor)
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
