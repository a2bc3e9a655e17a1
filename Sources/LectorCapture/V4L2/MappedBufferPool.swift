import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// The driver's capture buffers, mapped into memory: requested, mapped and queued
/// together, lent to the recognizer without copying, queued again when given back.
///
/// Owner of every mapping. ``giveBack(index:)`` may come from any thread (the
/// recognizer, the mailbox); the lock orders it against ``retire()``. After the pool is
/// retired (stream stopped or device lost) nothing is queued any more, and each mapping
/// is unmapped once the last lent buffer comes back, so a frame the recognizer is still
/// reading stays valid even after the device has gone.
public final class MappedBufferPool: Sendable {
    /// Where each buffer is, for the one state machine the lock guards.
    enum Place { case driver, capture, lent }

    private struct State {
        var places: [Place]
        var retired = false
        var unmapped = false
        /// The first QBUF failure of a give-back (the capture loop reports it).
        var queueFailure: SystemError?
    }

    private let device: V4L2Device
    private let mappings: [Mapping]
    private let state: Mutex<State>

    struct Mapping: @unchecked Sendable {
        // The address is only read through `bytes`, and unmapped once, under the lock.
        let address: UnsafeMutableRawPointer
        let length: Int
    }

    /// Requests `count` buffers, maps and queues every one.
    /// - Throws: `SystemError`; whatever was mapped is unmapped and the buffers freed.
    public init(device: V4L2Device, count: Int) throws(SystemError) {
        self.device = device
        let granted = try device.requestBuffers(count)
        guard granted >= 2 else {
            _ = try? device.requestBuffers(0)
            throw SystemError(errno: ENOMEM, call: "VIDIOC_REQBUFS")
        }
        var mappings: [Mapping] = []
        do {
            for index in 0..<granted {
                let (offset, length) = try device.queryBuffer(index: index)
                mappings.append(Mapping(address: try device.map(offset: offset, length: length), length: length))
            }
            for index in 0..<granted { try device.queue(index: index) }
        } catch {
            for mapping in mappings { device.unmap(mapping.address, length: mapping.length) }
            _ = try? device.requestBuffers(0)
            throw error
        }
        self.mappings = mappings
        state = Mutex(State(places: Array(repeating: .driver, count: granted)))
    }

    deinit {
        // Only reached when no frame borrows a buffer: each lending holds the pool.
        state.withLock { state in
            state.retired = true
            unmapIfDone(&state)
        }
    }

    /// Number of buffers.
    public var count: Int { mappings.count }

    /// How many buffers the driver holds (to fill) now.
    public var queuedCount: Int { state.withLock { $0.places.filter { $0 == .driver }.count } }

    /// Records that the capture loop dequeued buffer `index`.
    func dequeued(index: Int) {
        state.withLock { state in
            precondition(index >= 0 && index < state.places.count && state.places[index] == .driver,
                         "the driver returned buffer \(index), which it did not hold")
            state.places[index] = .capture
        }
    }

    /// Queues a buffer the capture loop holds straight back (an older or rejected one).
    func requeue(index: Int) throws(SystemError) {
        let result: Result<Void, SystemError> = state.withLock { state in
            guard !state.retired else { return .success(()) }
            do throws(SystemError) {
                try device.queue(index: index)
                state.places[index] = .driver
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Lends buffer `index` out as a frame's storage, valid until given back.
    func lend(index: Int) -> MappedBuffer {
        state.withLock { $0.places[index] = .lent }
        return MappedBuffer(pool: self, index: index)
    }

    /// The mapped bytes of buffer `index`.
    func bytes(index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: mappings[index].address, count: mappings[index].length)
    }

    /// A lent buffer comes back: it is queued again (or, once retired, unmapped with the
    /// rest when it was the last one out). Safe from any thread; a second give-back of
    /// the same lending does nothing.
    func giveBack(index: Int) {
        state.withLock { state in
            guard state.places[index] == .lent else { return }
            state.places[index] = .capture
            if !state.retired {
                do throws(SystemError) {
                    try device.queue(index: index)
                    state.places[index] = .driver
                } catch {
                    // The capture loop sees the same failure on its next poll or DQBUF.
                    if state.queueFailure == nil { state.queueFailure = error }
                }
            }
            unmapIfDone(&state)
        }
    }

    /// The first give-back that failed to queue, once (then forgotten).
    func takeQueueFailure() -> SystemError? {
        state.withLock { state in
            defer { state.queueFailure = nil }
            return state.queueFailure
        }
    }

    /// Ends the pool's life: no buffer is queued any more; the mappings go as soon as no
    /// frame borrows one. Call after VIDIOC_STREAMOFF (or once the device is gone) and
    /// before closing the device.
    public func retire() {
        state.withLock { state in
            state.retired = true
            unmapIfDone(&state)
        }
    }

    private func unmapIfDone(_ state: inout State) {
        guard state.retired, !state.unmapped, !state.places.contains(.lent) else { return }
        state.unmapped = true
        for mapping in mappings { device.unmap(mapping.address, length: mapping.length) }
    }
}

/// One mapped driver buffer as a frame's storage: zero-copy; ``giveBack()`` queues it
/// to the driver again.
/// Made for each lending; it keeps the pool (and so the mapping) alive while borrowed.
public final class MappedBuffer: FrameBuffer, Sendable {
    let pool: MappedBufferPool
    let index: Int

    init(pool: MappedBufferPool, index: Int) {
        self.pool = pool
        self.index = index
    }

    public var bytes: UnsafeRawBufferPointer { pool.bytes(index: index) }

    public func giveBack() { pool.giveBack(index: index) }
}
