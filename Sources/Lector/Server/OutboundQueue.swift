/// A client's bounded outbound buffer: whole lines waiting to be written.
///
/// Back-pressure in gpsd's and swift-nio's spirit: the producer never waits. Replies
/// (and the OVERFLOW notices) are always queued. A stream message (TEXT, FRAME) that
/// does not fit within `capacity` bytes first drops the oldest pending stream messages
/// that have not started to be written; if it still does not fit, it is dropped itself.
/// Every drop is counted, and the next stream message queued is preceded by
/// `{"class":"OVERFLOW","dropped":N,"dropped_total":M}`.
struct OutboundQueue {
    enum Kind { case reply, stream }

    private struct Entry {
        var bytes: [UInt8]
        var kind: Kind
    }

    /// Bytes the stream messages may fill (replies may go beyond).
    let capacity: Int
    private var entries: [Entry] = []
    private var first = 0
    /// Bytes of `entries[first]` already written.
    private var written = 0
    /// Bytes queued and not yet written.
    private(set) var pendingBytes = 0
    /// Stream messages dropped since the last OVERFLOW notice, and in all.
    private(set) var droppedSinceNotice = 0
    private(set) var droppedTotal = 0

    init(capacity: Int) { self.capacity = capacity }

    var isEmpty: Bool { first == entries.count }

    /// Queues a reply line (without newline); never dropped.
    mutating func enqueueReply(_ line: [UInt8]) {
        append(line, kind: .reply)
    }

    /// Queues a stream line (without newline), dropping older stream lines to make room.
    /// - Returns: false when the line itself was dropped.
    @discardableResult
    mutating func enqueueStream(_ line: [UInt8]) -> Bool {
        let size = line.count + 1
        if pendingBytes + size > capacity {
            // Oldest first; the head is kept if it has started to be written.
            var index = written > 0 ? first + 1 : first
            while pendingBytes + size > capacity && index < entries.count {
                if entries[index].kind == .stream {
                    pendingBytes -= entries[index].bytes.count
                    entries.remove(at: index)
                    droppedSinceNotice += 1
                    droppedTotal += 1
                } else {
                    index += 1
                }
            }
            if pendingBytes + size > capacity {
                droppedSinceNotice += 1
                droppedTotal += 1
                return false
            }
        }
        if droppedSinceNotice > 0 {
            append(ServerMessages.overflow(dropped: droppedSinceNotice, total: droppedTotal), kind: .reply)
            droppedSinceNotice = 0
        }
        append(line, kind: .stream)
        return true
    }

    private mutating func append(_ line: [UInt8], kind: Kind) {
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        pendingBytes += bytes.count
        entries.append(Entry(bytes: bytes, kind: kind))
    }

    /// Writes as much as `write` takes, in order.
    /// - Parameter write: one non-blocking write of the given bytes.
    /// - Returns: the number of bytes written (0 when the socket took nothing).
    mutating func flush(_ write: (UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int>) throws(SystemError) -> Int {
        var total = 0
        while first < entries.count {
            let offset = written
            let outcome: Result<IOResult<Int>, SystemError> = entries[first].bytes.withUnsafeBytes { raw in
                do throws(SystemError) {
                    return .success(try write(UnsafeRawBufferPointer(rebasing: raw[offset...])))
                } catch {
                    return .failure(error)
                }
            }
            guard case let .done(count) = try outcome.get(), count > 0 else { break }
            total += count
            written += count
            pendingBytes -= count
            if written == entries[first].bytes.count {
                written = 0
                first += 1
            }
        }
        // Compact now and then so the array does not grow without bound.
        if first > 64 && first * 2 > entries.count {
            entries.removeFirst(first)
            first = 0
        } else if first == entries.count {
            entries.removeAll(keepingCapacity: true)
            first = 0
        }
        return total
    }
}
