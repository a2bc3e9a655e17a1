import CMicroHTTPD
import Foundation

// The files MicroHTTPD*.swift are the only ones that call libmicrohttpd. An
// `HTTPServer` owns one MHD daemon (an internal epoll thread pool); the router sees
// plain `HTTPRequest`/`HTTPResponse` values. A streamed body (`ResponseStream`: SSE,
// MJPEG) suspends its connection while it has nothing to send, and so does a reply
// made later on the worker threads (`HTTPReply.later`) or after a delay
// (`HTTPReply.delayed`): none holds a thread that serves other connections.

/// Why the HTTP server could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
}

/// The per-request state libmicrohttpd keeps for us between handler calls.
private final class RequestContext: @unchecked Sendable {
    /// The request target as the client sent it.
    let target: String
    var headChecked = false
    var uploaded = 0
    var stream: ResponseStream?
    var waitingForWorker = false
    // `lock` guards `ready` (set by a worker thread).
    let lock = NSLock()
    var ready: HTTPResponse?

    init(target: String) { self.target = target }
}

/// An HTTP server on a listening socket, built on libmicrohttpd.
public final class HTTPServer: @unchecked Sendable {
    /// Limits and threads.
    public struct Settings: Sendable {
        /// Threads polling connections (epoll each).
        public var threads = 4
        /// Connections held at once; beyond it new ones are closed at once.
        public var connectionLimit = 512
        /// Connections held at once from one client address (TCP only).
        public var perAddressLimit = 32
        /// Seconds a connection may stay idle (no byte received or sent) before it is
        /// closed, and may take to send a whole request.
        public var idleTimeout = 15
        /// Bytes of memory per connection, which bounds the request header size.
        public var memoryLimit = 32 * 1024
        /// Largest request body accepted.
        public var maximumBody = 16 * 1024
        /// Threads making `HTTPReply.later` replies, and how many may wait for one.
        public var workers = 8
        public var workQueue = 64

        public init() {}
    }

    private var daemon: OpaquePointer?
    private let handler: (HTTPRequest) -> HTTPReply
    private let settings: Settings
    private let deadlines: RequestDeadlines
    private let workers: WorkerPool
    private let callbacks: UnsafeMutablePointer<lector_mhd_callbacks>

    /// Serves `listeningDescriptor` (a bound, listening TCP or Unix socket, owned by the
    /// server from now on) with `handler`, called on the server's threads.
    /// The corresponding C function is `MHD_start_daemon`.
    public init(listeningDescriptor: Int32, settings: Settings, handler: @escaping (HTTPRequest) -> HTTPReply) throws(HTTPServerError) {
        self.handler = handler
        self.settings = settings
        deadlines = RequestDeadlines(seconds: Double(settings.idleTimeout))
        workers = WorkerPool(threads: settings.workers, queueLimit: settings.workQueue, name: "lector-http-worker")
        callbacks = .allocate(capacity: 1)
        callbacks.initialize(to: lector_mhd_callbacks(handler: accessHandler, completed: completedHandler, connection: connectionHandler,
                                                      target: targetHandler, cls: Unmanaged.passUnretained(self).toOpaque()))
        daemon = lector_mhd_start(listeningDescriptor, UInt32(settings.threads), UInt32(settings.connectionLimit),
                                  UInt32(settings.perAddressLimit), UInt32(settings.idleTimeout), settings.memoryLimit, callbacks)
        if daemon == nil {
            throw HTTPServerError(description: "libmicrohttpd could not start on descriptor \(listeningDescriptor)")
        }
    }

    /// Stops serving and closes the listening socket. The corresponding C function is `MHD_stop_daemon`.
    public func stop() {
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        deadlines.stop()
    }

    deinit {
        stop()
        callbacks.deallocate()
    }

    fileprivate func started(target: String) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(RequestContext(target: target)).toOpaque()
    }

    fileprivate func handle(_ connection: OpaquePointer, method: String, version: String, uploadSize: UnsafeMutablePointer<Int>,
                            context slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if slot.pointee == nil { slot.pointee = started(target: "/") }  // no target seen: refused as a bad path
        // Not nil: set just above or by the target callback.
        let context = Unmanaged<RequestContext>.fromOpaque(slot.pointee!).takeUnretainedValue()
        if !context.headChecked {
            context.headChecked = true
            let headers = Self.values(connection, kind: .HEADER_KIND)
            if let refusal = RequestFraming.refusal(version: version, headers: headers, maximumBody: settings.maximumBody) {
                return queue(refusal, on: connection, context: context)
            }
            return .YES  // libmicrohttpd now reads the body (after `100 Continue` when asked)
        }
        if uploadSize.pointee > 0 {
            context.uploaded += uploadSize.pointee
            uploadSize.pointee = 0
            if context.uploaded > settings.maximumBody { return queue(RequestFraming.tooLarge(settings.maximumBody), on: connection, context: context) }
            return .YES
        }
        if context.waitingForWorker {
            context.lock.lock()
            let ready = context.ready
            context.lock.unlock()
            // Resumed by the worker, which set `ready` first.
            return ready.map { queue($0, on: connection, context: context) } ?? .YES
        }
        if let record = Self.record(of: connection) { deadlines.owes(record, since: nil) }
        return answer(connection, method: method, context: context)
    }

    private func answer(_ connection: OpaquePointer, method: String, context: RequestContext) -> MHD_Result {
        let request: HTTPRequest
        switch RequestTarget.parse(context.target) {
        case let .failure(refusal):
            return queue(HTTPResponse.text(refusal.status, refusal.reason + "\n"), on: connection, context: context)
        case let .success(target):
            let headers = Dictionary(Self.values(connection, kind: .HEADER_KIND).map { ($0.name.lowercased(), $0.value) }) { _, last in last }
            request = HTTPRequest(method: method, path: target.path, query: target.query, headers: headers, client: Self.address(of: connection))
        }
        switch handler(request) {
        case let .now(response):
            return queue(response, on: connection, context: context)
        case let .later(make):
            context.waitingForWorker = true
            MHD_suspend_connection(connection)
            let resume = UncheckedConnection(connection)
            let accepted = workers.submit {
                let response = make()
                context.lock.lock()
                context.ready = response
                context.lock.unlock()
                MHD_resume_connection(resume.pointer)
            }
            if !accepted {
                context.lock.lock()
                context.ready = HTTPResponse.text(503, "busy: too many requests waiting for lectord\n")
                context.lock.unlock()
                MHD_resume_connection(connection)
            }
            return .YES
        case let .delayed(seconds, response):
            context.waitingForWorker = true
            MHD_suspend_connection(connection)
            let resume = UncheckedConnection(connection)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                context.lock.lock()
                context.ready = response
                context.lock.unlock()
                MHD_resume_connection(resume.pointer)
            }
            return .YES
        }
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

    fileprivate func completed(_ connection: OpaquePointer?, context slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection, let record = Self.record(of: connection) { deadlines.owes(record, since: Date()) }
        guard let slot, let raw = slot.pointee else { return }
        slot.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        context.stream?.detach()
    }

    fileprivate func connection(_ connection: OpaquePointer, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>, started: Bool) {
        if started {
            var buffer = [CChar](repeating: 0, count: 64)
            lector_mhd_client_address(connection, &buffer, buffer.count)
            let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let record = ConnectionRecord(socket: lector_mhd_connection_socket(connection), address: address)
            socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
            deadlines.opened(record)
        } else if let raw = socketContext.pointee {
            socketContext.pointee = nil
            deadlines.closed(Unmanaged<ConnectionRecord>.fromOpaque(raw).takeRetainedValue())
        }
    }

    private static func record(of connection: OpaquePointer) -> ConnectionRecord? {
        lector_mhd_socket_context(connection).map { Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func address(of connection: OpaquePointer) -> String { record(of: connection)?.address ?? "local" }

    private final class Collected { var values: [(name: String, value: String)] = [] }

    /// Every value of `kind`, in the order received, repeated names included.
    private static func values(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collected = Collected()
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            let collected = Unmanaged<Collected>.fromOpaque(cls!).takeUnretainedValue()
            if let key { collected.values.append((String(cString: key), value.map { String(cString: $0) } ?? "")) }
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.values
    }
}

/// A connection handed to a worker thread, which only resumes it.
private struct UncheckedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, _, uploadSize, slot in
    guard let cls, let connection, let uploadSize, let slot else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection, method: method.map { String(cString: $0) } ?? "GET", version: version.map { String(cString: $0) } ?? "",
                         uploadSize: uploadSize, context: slot)
}

private let targetHandler: lector_mhd_target_callback = { cls, target in
    let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
    return server.started(target: target.map { String(cString: $0) } ?? "/")
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(connection, context: slot)
}

private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        .connection(connection, socketContext: socketContext, started: code.rawValue == 0)  // MHD_CONNECTION_NOTIFY_STARTED
}

private let contentReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -1 }
    return Unmanaged<ResponseStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

private let streamReleaser: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseStream>.fromOpaque(cls).release()
}
