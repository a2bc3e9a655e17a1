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

    /// - Parameters:
    ///   - listener: the listening socket; the server owns it from now on.
    ///   - history: what answers HISTORY requests (nil: lectord keeps no history).
    public init(listener: ListeningSocket, hub: CameraHub, configuration: Configuration, history: MatchRecorder? = nil,
                logger: Logger) throws(SystemError) {
        let inbox = try ServerInbox()
        self.inbox = inbox
        let renderer = ReplyRenderer { client, line in inbox.post(.rendered(client: client, line: line)) }
        let readiness = try ReadinessSet()
        try readiness.add(inbox.wakeDescriptor, events: UInt32(POLLIN), token: ServerLoop.wakeToken)
        try readiness.add(listener.descriptor, events: UInt32(POLLIN), token: ServerLoop.listenerToken)
        loop = ServerLoop(listener: listener, hub: hub, configuration: configuration, inbox: inbox, renderer: renderer,
                          readiness: readiness, history: history, logger: logger)
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

    /// Hands codes that came into view (CODE, and MATCH of rules on codes) to the clients
    /// that watch their device (any thread; never blocks).
    public func publishCodes(_ publication: CodePublication) { inbox.post(.codes(publication)) }

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
