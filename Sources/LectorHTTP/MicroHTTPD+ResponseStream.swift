import CMicroHTTPD
import Foundation

/// A response body produced by another thread (SSE lines, MJPEG parts), sent as it
/// comes. Bounded: a client that does not read ends its stream instead of growing it.
/// Thread-safe; the connection it serves is resumed when data arrives.
public final class ResponseStream: @unchecked Sendable {
    // `lock` guards every member below.
    private let lock = NSLock()
    private var chunks: [[UInt8]] = []
    private var offset = 0
    private var pendingBytes = 0
    private var ended = false
    private var gone = false
    private var connection: OpaquePointer?
    private var suspended = false
    private var closeHandlers: [@Sendable () -> Void] = []
    /// Pending bytes beyond which the client is considered stalled and the stream ends.
    public let limit: Int

    public init(limit: Int = 1 << 20) { self.limit = limit }

    /// Whether the client has gone (or the stream was ended).
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return gone || ended
    }

    /// Calls `handler` once when the client has gone (at once if it already has).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if gone {
            lock.unlock()
            handler()
            return
        }
        closeHandlers.append(handler)
        lock.unlock()
    }

    /// Queues `bytes`. Returns false when the client has gone or fell `limit` behind
    /// (the stream then ends).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool { enqueue(bytes, replacingUnsent: false) }

    /// Queues `bytes` in place of every chunk not yet started (latest-only: a preview
    /// frame replaces the one the client has not begun to receive).
    @discardableResult
    public func replaceUnsent(_ bytes: [UInt8]) -> Bool { enqueue(bytes, replacingUnsent: true) }

    /// Ends the stream after what is queued.
    public func finish() {
        lock.lock()
        ended = true
        resumeLocked()
        lock.unlock()
    }

    private func enqueue(_ bytes: [UInt8], replacingUnsent: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !gone, !ended else { return false }
        if replacingUnsent, !chunks.isEmpty {
            let keep = offset > 0 ? 1 : 0
            for chunk in chunks[keep...] { pendingBytes -= chunk.count }
            chunks.removeSubrange(keep...)
        }
        if pendingBytes + bytes.count > limit {
            ended = true
            chunks.removeAll()
            pendingBytes = 0
            resumeLocked()
            return false
        }
        chunks.append(bytes)
        pendingBytes += bytes.count
        resumeLocked()
        return true
    }

    private func resumeLocked() {
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }

    func attach(_ connection: OpaquePointer) {
        lock.lock()
        self.connection = connection
        lock.unlock()
    }

    /// The client has gone: the connection must not be touched again.
    func detach() {
        lock.lock()
        connection = nil
        gone = true
        let handlers = closeHandlers
        closeHandlers = []
        chunks.removeAll()
        lock.unlock()
        for handler in handlers { handler() }
    }

    /// libmicrohttpd's content reader: copies what is queued, or suspends the connection.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let first = chunks.first {
            let count = min(max, first.count - offset)
            first.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + offset, byteCount: count)
            }
            offset += count
            if offset == first.count {
                chunks.removeFirst()
                pendingBytes -= first.count
                offset = 0
            }
            return count
        }
        if ended || gone { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        if let connection {
            suspended = true
            MHD_suspend_connection(connection)
        }
        return 0
    }
}
