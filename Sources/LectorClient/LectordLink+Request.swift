import Foundation
import LectorProtocol

extension LectordLink {
    /// Sends `request` and returns lectord's reply, its line as sent and its message:
    /// the message of the same class, or an `ERROR` (stream messages in between are skipped). Connects first when needed,
    /// and again when lectord closed an idle connection; retries once on a fresh
    /// connection when the old one broke (not when lectord did not answer in time: it
    /// would not answer the retry sooner, and the caller's wait would double).
    /// - Throws: ``ConnectionError`` when lectord cannot be reached or does not answer
    ///   within `timeout` seconds.
    public func request(_ request: Request, timeout: Double = 5) throws(ConnectionError) -> (line: [UInt8], message: ServerMessage) {
        var attempt = 0
        while true {
            attempt += 1
            do throws(ConnectionError) {
                let deadline = Date(timeIntervalSinceNow: timeout)
                try connectForRequest(timeout: min(5, timeout))
                try self.send(request)
                while true {
                    let (line, message) = try receive(timeout: max(0.001, deadline.timeIntervalSinceNow))
                    if answered(byClass: message.messageClass) != nil { return (line, message) }
                }
            } catch {
                drop()
                if attempt >= 2 { throw error }
                switch error {
                case .cannotConnect, .untrustedPeer, .timedOut: throw error
                default: break
                }
            }
        }
    }

    /// Makes sure a usable connection is up: lectord closes one that stayed idle
    /// (`--idle-timeout`), so its parting ERROR is not read as the reply.
    private func connectForRequest(timeout: Double) throws(ConnectionError) {
        if let connection, connection.serverHasClosed() { drop() }
        guard connection == nil else { return }
        if case let .failed(error) = self.connect(versionTimeout: timeout) { throw error }
    }
}
