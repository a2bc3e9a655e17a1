import LectorProtocol
import LectorSystem

/// One encoded line, newline included, in memory that stays put until the last client
/// has written it. A publication's lines are encoded once and shared by every client's
/// ``OutboundQueue``; since the bytes never move, a client's pending lines go to the
/// kernel in one gathered write, without copying.
final class OutboundLine: Sendable {
    /// The bytes, ending with a newline. Owned by this line.
    nonisolated(unsafe) let bytes: UnsafeRawBufferPointer

    /// - Parameter line: the line without its newline.
    init(_ line: [UInt8]) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: line.count + 1, alignment: 1)
        line.withUnsafeBytes { storage.copyMemory(from: $0) }
        storage[line.count] = UInt8(ascii: "\n")
        bytes = UnsafeRawBufferPointer(storage)
    }

    /// Bytes with the newline.
    var count: Int { bytes.count }

    deinit { bytes.deallocate() }
}
