import Foundation
import LectorProtocol
import LectorSystem

// ServerLoop: reading what clients send and answering each whole request line.

extension ServerLoop {
    /// Reads what the client sent and answers each whole line.
    func read(_ client: ClientConnection) {
        var chunk = [UInt8](repeating: 0, count: 16384)
        var budget = 256 * 1024  // per round, so one chatty client cannot starve the rest
        while budget > 0 && !client.closing && !client.inputEnded && !client.awaitingReply && !isClosed(client)
            && client.outbound.pendingBytes < client.outbound.capacity {
            let result: IOResult<Int>
            do {
                let outcome: Result<IOResult<Int>, SystemError> = chunk.withUnsafeMutableBytes { raw in
                    do throws(SystemError) { return .success(try Syscalls.read(client.descriptor, into: raw)) } catch { return .failure(error) }
                }
                result = try outcome.get()
            } catch {
                self.close(client, reason: "\(error)")
                return
            }
            guard case let .done(count) = result else { break }
            if count == 0 {
                // End of the client's input (`echo '{"class":"WATCH"}' | socat - UNIX:…`):
                // answer a last line without newline; a watcher goes on receiving, any
                // other client is closed once its replies are written.
                if !client.inbound.isEmpty && client.inbound.count < ProtocolVersion.maximumRequestLine {
                    client.inbound.append(UInt8(ascii: "\n"))
                    processLines(client)
                }
                client.inputEnded = true
                break
            }
            budget -= count
            client.inbound.append(contentsOf: chunk[0..<count])
            processLines(client)
        }
        flush(client)
    }

    /// Answers the whole lines read so far, while the client's outbound buffer has room
    /// (so that replies, which are never dropped, stay bounded too); the rest waits.
    func processLines(_ client: ClientConnection) {
        var start = 0
        let bytes = client.inbound
        while !client.closing, !client.awaitingReply, client.outbound.pendingBytes < client.outbound.capacity,
              let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = bytes[start..<newline]
            start = newline + 1
            if line.count + 1 > ProtocolVersion.maximumRequestLine {
                refuseLongLine(client)
                return
            }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            client.lastRequest = .now()
            answer(line, for: client)
        }
        client.inbound.removeFirst(start)
        if !client.closing, client.inbound.count >= ProtocolVersion.maximumRequestLine,
           !client.inbound.contains(UInt8(ascii: "\n")) {
            refuseLongLine(client)
        }
    }

    /// Answers a request line over the limit with an ERROR and closes the client once
    /// that is written.
    private func refuseLongLine(_ client: ClientConnection) {
        client.inbound.removeAll()
        client.outbound.enqueueReply(ErrorMessage(
            "request line longer than \(ProtocolVersion.maximumRequestLine) bytes; closing").bytes)
        client.watch.enable = false
        client.closing = true
        updateWatched()
        logger.warning("client sent an oversize request; closing", [("client", "\(client.id)")])
    }
}
