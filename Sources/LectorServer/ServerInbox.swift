import LectorPipeline
import LectorProtocol
import LectorSystem
import Synchronization

/// What other threads hand to the server thread.
enum ServerEvent: Sendable {
    /// A publication and when it was handed over.
    case publication(Publication, posted: MonotonicInstant)
    /// Codes that came into view, and their MATCHes.
    case codes(CodePublication)
    case deviceChanged(DeviceInfo)
    /// A heavy reply rendered off the server thread (``ReplyRenderer``), for a client.
    case rendered(client: Int, line: OutboundLine)
    case configure(SocketServer.Configuration)
    case shutdown
}

/// The hand-off from recognizer, source and signal threads to the server thread: a
/// lock-protected queue plus a wake event (an eventfd) that wakes the server's `poll`. Posting never
/// blocks on the server: when publications pile up (the server thread is slow) the
/// oldest waiting one is dropped, and counted (STATUS `inbox_dropped`).
final class ServerInbox: Sendable {
    /// Publications kept waiting at most; older ones are dropped.
    static let publicationLimit = 64

    /// The wake event, polled by the server; owned by the inbox and closed by ``close()``.
    let wakeDescriptor: Int32
    private let queue = Mutex<[ServerEvent]>([])
    private let droppedCount = Atomic<Int>(0)

    /// Publications dropped so far because the server thread fell behind.
    var dropped: Int { droppedCount.load(ordering: .relaxed) }

    init() throws(SystemError) {
        wakeDescriptor = try Syscalls.wakeEvent()
    }

    /// Queues `event` and wakes the server thread.
    func post(_ event: ServerEvent) {
        queue.withLock { events in
            if case .publication = event,
               events.count(where: { if case .publication = $0 { true } else { false } }) >= Self.publicationLimit,
               let oldest = events.firstIndex(where: { if case .publication = $0 { true } else { false } }) {
                events.remove(at: oldest)
                droppedCount.add(1, ordering: .relaxed)
            }
            events.append(event)
        }
        Syscalls.signalWake(wakeDescriptor)
    }

    /// Whether no event is waiting.
    var isEmpty: Bool { queue.withLock { $0.isEmpty } }

    /// Takes every waiting event (on the server thread).
    func takeAll() -> [ServerEvent] {
        Syscalls.drainWake(wakeDescriptor)
        return queue.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    func close() {
        Syscalls.close(wakeDescriptor)
    }
}
