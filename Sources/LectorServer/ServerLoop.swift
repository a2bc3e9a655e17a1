import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem

/// The state of the server thread. Touched by that thread only.
///
/// Work per message is what the message needs: the kernel keeps the watched set
/// (``ReadinessSet``), a wake-up returns only the descriptors that are ready, and a
/// client's interest is changed (one `epoll_ctl`) only when it changes: a client with
/// nothing pending and room to read costs nothing while it is idle.
///
/// This file holds the loop's state, its rounds and the end of a client; each concern
/// has a file of its own: ServerLoop+Accept (new clients), +Read (requests),
/// +FanOut (publications to watchers, writes), +Inbox (events from other threads,
/// shutdown), +Housekeeping (timeouts, lines left waiting) and RequestHandler (replies).
///
/// The loop owns every client's descriptor: ``acceptClients()`` is the only place one
/// comes from, ``close(_:reason:)`` the only place one is closed; the listening socket
/// and ``readiness`` are the loop's too, closed when it ends.
package final class ServerLoop: @unchecked Sendable {
    /// Tokens of the two descriptors that are not clients (clients use their id ≥ 1).
    static let wakeToken: UInt64 = 0
    static let listenerToken = UInt64.max

    let listener: ListeningSocket
    /// The listening descriptor (tests inject faults on it).
    var listeningDescriptor: Int32 { listener.descriptor }
    let hub: CameraHub
    /// What answers HISTORY (nil: lectord keeps no history).
    let history: MatchRecorder?
    var configuration: SocketServer.Configuration
    let inbox: ServerInbox
    /// Renders SNAPSHOT replies off this thread.
    let renderer: ReplyRenderer
    /// The descriptors the loop waits on; owned by the loop, closed when it ends.
    let readiness: ReadinessSet
    let logger: Logger
    /// Guards everything below: held by the server thread except while it waits in
    /// `epoll_wait`, when a publishing thread may take it (``publishDirectly(_:)``).
    let state = NSLock()
    /// The server thread waits with no timeout (no stall timer runs).
    var sleepingWithoutTimer = false
    /// Some client's request lines, read earlier, can be answered now but were left for
    /// the next round (housekeeping's budget): that round must not wait.
    var linesLeftToAnswer = false
    /// The loop has ended.
    var stopped = false
    /// Connected clients, oldest first.
    var clients: [ClientConnection] = []
    /// The same clients by id (an event's token): an id is never reused, so an event
    /// for a client closed earlier in the same round cannot reach a newer client that
    /// got the same descriptor.
    var clientsByID: [Int: ClientConnection] = [:]
    var nextID = 1
    var shutdownDeadline: MonotonicInstant?
    var listenerOpen = true
    /// From ``SocketServer/publish(_:)`` to every watcher's line written (or queued, for
    /// a watcher whose socket is full), for STATUS.
    var publishTimes = RecentSamples<Double>()
    /// The last state pushed to watchers, per device.
    var lastDeviceStates: [String: DeviceInfo] = [:]
    /// Per device, the cause of the loss last logged while it retries (a camera that keeps
    /// failing for the same reason is logged once, not at every retry).
    var loggedLosses: [String: String] = [:]
    /// Raised after the first round of the loop that found nothing to do.
    let settled = StopSignal()

    init(listener: ListeningSocket, hub: CameraHub, configuration: SocketServer.Configuration, inbox: ServerInbox,
         renderer: ReplyRenderer, readiness: ReadinessSet, history: MatchRecorder? = nil, logger: Logger) {
        self.listener = listener
        self.history = history
        self.renderer = renderer
        self.hub = hub
        self.configuration = configuration
        self.inbox = inbox
        self.readiness = readiness
        self.logger = logger
    }

    /// Runs rounds until shutdown has drained (or its deadline passed): wait for ready
    /// descriptors, take the inbox, accept, read and write what is ready, housekeeping.
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
                    if events & Int32(POLLIN | POLLHUP | POLLERR) != 0 && !client.closing && !client.inputEnded { self.read(client) }
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
    func updateInterest(_ client: ClientConnection) {
        let wanted = interest(of: client)
        guard wanted != client.interest, !client.closed else { return }
        do {
            try readiness.modify(client.descriptor, events: wanted, token: UInt64(client.id))
            client.interest = wanted
        } catch {
            close(client, reason: "\(error)")
        }
    }

    /// Ends `client`: forgets it, stops watching and closes its descriptor (the only
    /// place a client's descriptor is closed); logs `reason` when there is one.
    func close(_ client: ClientConnection, reason: String?) {
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
