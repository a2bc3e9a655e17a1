import CMicroHTTPD
import Foundation

// The only file that calls libmicrohttpd. An `HTTPServer` owns one MHD daemon (an
// internal epoll thread pool); the router sees plain `HTTPRequest`/`HTTPResponse`
// values. A streamed body (`ResponseStream`: SSE, MJPEG) suspends its connection while
// it has nothing to send, so an idle stream costs no thread and no polling.

/// Why the HTTP server could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
}

/// One HTTP request, as the router sees it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public let method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    public let path: String
    /// Query arguments (the last value of a repeated name; a bare name maps to "").
    public let query: [String: String]
    /// Request headers by lower-cased name.
    public let headers: [String: String]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }
}

/// A response body: bytes, or a stream written by another thread.
public enum HTTPBody {
    case bytes([UInt8])
    case stream(ResponseStream)
}

/// One HTTP response.
public struct HTTPResponse {
    public var status: Int
    public var headers: [(String, String)]
    public var body: HTTPBody

    public init(status: Int, headers: [(String, String)] = [], body: HTTPBody = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

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

    fileprivate func attach(_ connection: OpaquePointer) {
        lock.lock()
        self.connection = connection
        lock.unlock()
    }

    /// The client has gone: the connection must not be touched again.
    fileprivate func detach() {
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
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
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

/// The per-request state libmicrohttpd keeps for us between handler calls.
private final class RequestContext {
    var uploaded = 0
    var stream: ResponseStream?
}

/// An HTTP server on a listening socket, built on libmicrohttpd.
public final class HTTPServer: @unchecked Sendable {
    /// Limits and threads.
    public struct Settings: Sendable {
        /// Threads polling connections (epoll each).
        public var threads = 4
        /// Connections held at once; beyond it new ones are closed at once.
        public var connectionLimit = 512
        /// Seconds a connection may stay idle (no byte received or sent) before it is closed.
        public var idleTimeout = 15
        /// Bytes of memory per connection, which bounds the request header size.
        public var memoryLimit = 32 * 1024
        /// Largest request body accepted.
        public var maximumBody = 16 * 1024

        public init() {}
    }

    private var daemon: OpaquePointer?
    private let handler: (HTTPRequest) -> HTTPResponse
    private let settings: Settings

    /// Serves `listeningDescriptor` (a bound, listening TCP or Unix socket, owned by the
    /// server from now on) with `handler`, called on the server's threads.
    /// The corresponding C function is `MHD_start_daemon`.
    public init(listeningDescriptor: Int32, settings: Settings, handler: @escaping (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) {
        self.handler = handler
        self.settings = settings
        let me = Unmanaged.passUnretained(self).toOpaque()
        daemon = lector_mhd_start(listeningDescriptor, UInt32(settings.threads), UInt32(settings.connectionLimit),
                                  UInt32(settings.idleTimeout), settings.memoryLimit,
                                  accessHandler, me, completedHandler, me)
        if daemon == nil {
            throw HTTPServerError(description: "libmicrohttpd could not start on descriptor \(listeningDescriptor)")
        }
    }

    /// Stops serving and closes the listening socket. The corresponding C function is `MHD_stop_daemon`.
    public func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    deinit { stop() }

    fileprivate func handle(_ connection: OpaquePointer, url: String, method: String,
                            uploadSize: UnsafeMutablePointer<Int>, context slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = slot.pointee else {
            slot.pointee = Unmanaged.passRetained(RequestContext()).toOpaque()
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            context.uploaded += uploadSize.pointee
            uploadSize.pointee = 0
            return .YES
        }
        let response: HTTPResponse
        if context.uploaded > settings.maximumBody {
            response = HTTPResponse(status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array("request body too large\n".utf8)))
        } else {
            let request = HTTPRequest(method: method, path: url,
                                      query: Self.values(connection, kind: .GET_ARGUMENT_KIND, lowercased: false),
                                      headers: Self.values(connection, kind: .HEADER_KIND, lowercased: true))
            response = handler(request)
        }
        return queue(response, on: connection, context: context)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case let .bytes(bytes):
            made = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), MHD_ResponseMemoryMode(rawValue: 2)!)
            }
        case let .stream(stream):
            context.stream = stream
            stream.attach(connection)
            made = MHD_create_response_from_callback(UInt64.max, 32 * 1024, contentReader,
                                                     Unmanaged.passRetained(stream).toOpaque(), streamReleaser)
        }
        guard let made else { return .NO }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    fileprivate func completed(context slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        context.stream?.detach()
    }

    private final class Collected { var values: [String: String] = [:]; var lowercased = false }

    private static func values(_ connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        let collected = Collected()
        collected.lowercased = lowercased
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            let collected = Unmanaged<Collected>.fromOpaque(cls!).takeUnretainedValue()
            if let key {
                let name = String(cString: key)
                collected.values[collected.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            }
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, slot in
    guard let cls, let connection, let uploadSize, let slot else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET",
                         uploadSize: uploadSize, context: slot)
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, _, slot, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(context: slot)
}

private let contentReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -1 }
    return Unmanaged<ResponseStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

private let streamReleaser: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseStream>.fromOpaque(cls).release()
}
