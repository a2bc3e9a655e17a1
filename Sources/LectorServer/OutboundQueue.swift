import LectorProtocol
import LectorSystem

/// A client's bounded outbound buffer: whole lines waiting to be written.
///
/// Back-pressure in gpsd's and swift-nio's spirit: the producer never waits. Replies
/// (and the OVERFLOW notices) are always queued. A stream message (TEXT, FRAME) that
/// does not fit within `capacity` bytes first drops the oldest pending stream messages
/// that have not started to be written; if it still does not fit, it is dropped itself.
/// Every drop is counted, and the next stream message queued is preceded by
/// `{"class":"OVERFLOW","dropped":N,"dropped_total":M}`. An OVERFLOW notice not yet
/// written is dropped like a stream message when room is needed, its count carried into
/// the next one: a client that takes nothing holds at most `capacity` bytes, and each
/// new message costs it a bounded copy (no notices pile up to be walked past).
struct OutboundQueue {
    enum Kind: Equatable {
        case reply, stream
        /// An OVERFLOW notice for this many dropped messages.
        case notice(Int)

        var droppable: Bool { self != .reply }
    }

    private struct Entry {
        var line: OutboundLine
        var kind: Kind
    }

    /// Lines handed to one gathered write at most.
    static let linesPerWrite = 64

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
        append(OutboundLine(line), kind: .reply)
    }

    /// Queues a reply line that other clients may share; never dropped.
    mutating func enqueueReply(_ line: OutboundLine) {
        append(line, kind: .reply)
    }

    /// Queues a stream line (without newline), dropping older stream lines to make room.
    /// - Returns: false when the line itself was dropped.
    @discardableResult
    mutating func enqueueStream(_ line: [UInt8]) -> Bool { enqueueStream(OutboundLine(line)) }

    /// Queues a stream line that other clients may share, dropping older stream lines
    /// to make room.
    /// - Returns: false when the line itself was dropped.
    @discardableResult
    mutating func enqueueStream(_ line: OutboundLine) -> Bool {
        let size = line.count
        if pendingBytes + size > capacity {
            // Oldest first; the head is kept if it has started to be written.
            var index = written > 0 ? first + 1 : first
            while pendingBytes + size > capacity && index < entries.count {
                if entries[index].kind.droppable {
                    pendingBytes -= entries[index].line.count
                    if case let .notice(count) = entries[index].kind {
                        droppedSinceNotice += count  // said again, with the drops since, in the next notice
                    } else {
                        droppedSinceNotice += 1
                        droppedTotal += 1
                    }
                    entries.remove(at: index)
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
            // One notice waits at most: an unwritten one is folded into the new one (it is
            // near the end: the line after it is the newest).
            let firstUnwritten = written > 0 ? first + 1 : first
            if let index = entries[firstUnwritten...].lastIndex(where: { if case .notice = $0.kind { true } else { false } }),
               case let .notice(count) = entries[index].kind {
                droppedSinceNotice += count
                pendingBytes -= entries[index].line.count
                entries.remove(at: index)
            }
            append(OutboundLine(OverflowMessage(dropped: droppedSinceNotice, droppedTotal: droppedTotal).bytes),
                   kind: .notice(droppedSinceNotice))
            droppedSinceNotice = 0
        }
        append(line, kind: .stream)
        return true
    }

    private mutating func append(_ line: OutboundLine, kind: Kind) {
        pendingBytes += line.count
        entries.append(Entry(line: line, kind: kind))
    }

    /// Writes as much as `write` takes, in order, up to ``linesPerWrite`` lines a call.
    /// - Parameter write: one non-blocking gathered write of the given buffers.
    /// - Returns: the number of bytes written (0 when the socket took nothing).
    mutating func flush(_ write: (UnsafeBufferPointer<IOVector>) throws(SystemError) -> IOResult<Int>) throws(SystemError) -> Int {
        var total = 0
        while first < entries.count {
            let count = min(entries.count - first, Self.linesPerWrite)
            // A Result rather than a typed throw through withUnsafeTemporaryAllocation,
            // which only rethrows `any Error` in Swift 6.0 (Debian 13's swiftlang).
            let result = try withUnsafeTemporaryAllocation(of: IOVector.self, capacity: count) { vectors -> Result<IOResult<Int>, SystemError> in
                for slot in 0..<count {
                    let bytes = entries[first + slot].line.bytes
                    let skip = slot == 0 ? written : 0
                    vectors[slot] = IOVector(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + skip), iov_len: bytes.count - skip)
                }
                do throws(SystemError) {
                    return .success(try write(UnsafeBufferPointer(vectors)))
                } catch {
                    return .failure(error)
                }
            }.get()
            guard case var .done(taken) = result, taken > 0 else { break }
            total += taken
            pendingBytes -= taken
            // Advance over the lines written whole, then into the one written in part.
            while taken > 0 {
                let left = entries[first].line.count - written
                if taken < left {
                    written += taken
                    taken = 0
                } else {
                    taken -= left
                    written = 0
                    first += 1
                }
            }
            if written > 0 { break }  // the socket is full
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
