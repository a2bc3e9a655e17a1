import CMicroHTTPD
import Foundation

/// One client connection as the server tracks it: its socket and address, and since
/// when it has owed the server a whole request (nil while a request is being answered).
final class ConnectionRecord {
    let socket: Int32
    let address: String
    /// Guarded by ``RequestDeadlines``' lock.
    var owingSince: Date?
    var cut = false

    init(socket: Int32, address: String) {
        self.socket = socket
        self.address = address
    }
}

/// A deadline for a whole request (head and body): a connection that has not sent one
/// within `seconds` of connecting (or of its previous answer) is ended, however it
/// trickles its bytes. libmicrohttpd's own timeout is an idle one, which every byte
/// resets, so 520 clients sending a byte every few seconds could hold every connection
/// slot for ever (slowloris). A thread looks every quarter of the deadline.
final class RequestDeadlines: @unchecked Sendable {
    private let seconds: Double
    // `lock` guards `records` and the records' mutable members.
    private let lock = NSLock()
    private var records: [ObjectIdentifier: ConnectionRecord] = [:]
    private var stopped = false

    init(seconds: Double) {
        self.seconds = seconds
        let thread = Thread { [self] in watch() }
        thread.name = "lector-http-deadlines"
        thread.start()
    }

    /// A new connection, owing its first request from now.
    func opened(_ record: ConnectionRecord) {
        lock.lock()
        record.owingSince = Date()
        records[ObjectIdentifier(record)] = record
        lock.unlock()
    }

    /// The connection has been closed (before libmicrohttpd closes its socket): never
    /// touch that socket again.
    func closed(_ record: ConnectionRecord) {
        lock.lock()
        records[ObjectIdentifier(record)] = nil
        lock.unlock()
    }

    /// A whole request arrived (nil) or its answer was sent and the next is owed (now).
    func owes(_ record: ConnectionRecord, since: Date?) {
        lock.lock()
        record.owingSince = since
        lock.unlock()
    }

    /// Connections ended for their deadline so far.
    private(set) var cutCount = 0

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: max(0.05, seconds / 4))
            let now = Date()
            lock.lock()
            if stopped {
                lock.unlock()
                return
            }
            // Under the lock: `closed` (which libmicrohttpd calls before it closes the
            // socket) waits for this, so a socket number is never reused under us.
            for record in records.values where !record.cut {
                if let since = record.owingSince, now.timeIntervalSince(since) > seconds {
                    record.cut = true
                    cutCount += 1
                    lector_mhd_shutdown_socket(record.socket)
                }
            }
            lock.unlock()
        }
    }
}
