import Foundation
import LectorClient
import LectorProtocol

/// Request and reply with lectord (STATUS, DEVICES, SNAPSHOT, ORIENTATION) over one
/// ``LectordLink``, shared by the worker threads one request at a time: each request
/// connects when there is no connection (no backoff: a request is waited for), reads
/// lectord's VERSION first, and retries once on a fresh connection when the old one
/// broke. A request's `timeout` covers its wait for the link too, so when lectord does
/// not answer (stopped, frozen) every request ends within it instead of queueing behind
/// the one that waits.
public final class LectordRequests: @unchecked Sendable {
    public let socketPath: String
    // `lock` guards `link`.
    private let lock = NSLock()
    private let link: LectordLink

    public init(socketPath: String) {
        self.socketPath = socketPath
        link = LectordLink(path: socketPath, backoff: .none, awaitsVersion: true)
    }

    /// lectord's reply to `request`, its line as sent and its message: the message of
    /// the same class, or an `ERROR`.
    /// - Throws: ``ConnectionError`` when lectord cannot be reached or does not answer
    ///   within `timeout` seconds (`.timedOut`, also while another request held the link).
    public func request(_ request: Request, timeout: Double = 5) throws(ConnectionError) -> (line: [UInt8], message: ServerMessage) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        guard lock.lock(before: deadline) else { throw .timedOut(seconds: timeout) }
        defer { lock.unlock() }
        return try link.request(request, timeout: max(0.05, deadline.timeIntervalSinceNow))
    }
}
