import LectorProtocol
import LectorSystem
import Synchronization

/// What other threads hand to the server thread.
enum ServerEvent: Sendable {
    /// A publication and when it was handed over.
    case publication(Publication, posted: MonotonicInstant)
    case deviceChanged(DeviceInfo)
    case configure(SocketServer.Configuration)
    case shutdown
}

/// The hand-off from recognizer, source and signal threads to the server thread: a
/// lock-protected queue plus a wake pipe that wakes the server's `poll`. Posting never
/// blocks on the server: when publications pile up (the server thread is slow) the
/// oldest waiting one is dropped.
final class ServerInbox: Sendable {
    /// Publications kept waiting at most; older ones are dropped.
    static let publicationLimit = 64

    /// The wake pipe's read end, polled by the server; both ends are owned by the inbox
    /// and closed by ``close()``.
    let wakeDescriptor: Int32
    private let signalDescriptor: Int32
    private let queue = Mutex<[ServerEvent]>([])

    init() throws(SystemError) {
        (wakeDescriptor, signalDescriptor) = try Syscalls.wakePipe()
    }

    /// Queues `event` and wakes the server thread.
    func post(_ event: ServerEvent) {
        queue.withLock { events in
            if case .publication = event,
               events.count(where: { if case .publication = $0 { true } else { false } }) >= Self.publicationLimit,
               let oldest = events.firstIndex(where: { if case .publication = $0 { true } else { false } }) {
                events.remove(at: oldest)
            }
            events.append(event)
        }
        Syscalls.signalWake(signalDescriptor)
    }

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
        Syscalls.close(signalDescriptor)
    }
}
