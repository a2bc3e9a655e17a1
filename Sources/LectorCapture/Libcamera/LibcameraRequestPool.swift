import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// A streaming libcamera camera's requests, lent to the recognizer without copying and
/// queued again when given back (``MappedBufferPool``'s rules, for requests).
///
/// Owner of the ``LibcameraCamera``. ``giveBack(index:)`` may come from any thread; the
/// lock orders it against ``retire()``. Once retired (stopped, or the camera lost) no
/// request is queued any more, and the camera is destroyed (buffers unmapped) when the
/// last lent buffer comes back, so a frame being read stays valid.
final class LibcameraRequestPool: Sendable {
    enum Place { case camera, capture, lent }

    private struct State {
        var places: [Place]
        var retired = false
        var destroyed = false
        var queueFailure: LibcameraError?
    }

    let camera: LibcameraCamera
    private let state: Mutex<State>

    /// Takes ownership of `camera`, whose requests are all queued.
    init(camera: LibcameraCamera) {
        self.camera = camera
        state = Mutex(State(places: Array(repeating: .camera, count: camera.info.bufferCount)))
    }

    /// Records that the capture loop took request `index` from the completed queue.
    func completed(index: Int) {
        state.withLock { state in
            precondition(index >= 0 && index < state.places.count && state.places[index] == .camera,
                         "libcamera completed request \(index), which it did not hold")
            state.places[index] = .capture
        }
    }

    /// Queues a request the capture loop holds straight back (older or damaged).
    func requeue(index: Int) throws(LibcameraError) {
        let result: Result<Void, LibcameraError> = state.withLock { state in
            guard !state.retired else { return .success(()) }
            do throws(LibcameraError) {
                try camera.requeue(index: index)
                state.places[index] = .camera
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Lends request `index`'s buffer out as a frame's storage.
    func lend(index: Int) -> LibcameraBuffer {
        state.withLock { $0.places[index] = .lent }
        return LibcameraBuffer(pool: self, index: index)
    }

    /// A lent buffer comes back: queued again, or (retired) the camera destroyed once the
    /// last one is back. A second give-back of the same lending does nothing.
    func giveBack(index: Int) {
        state.withLock { state in
            guard state.places[index] == .lent else { return }
            state.places[index] = .capture
            if !state.retired {
                do throws(LibcameraError) {
                    try camera.requeue(index: index)
                    state.places[index] = .camera
                } catch {
                    if state.queueFailure == nil { state.queueFailure = error }
                }
            }
            destroyIfDone(&state)
        }
    }

    /// The first give-back that failed to queue, once.
    func takeQueueFailure() -> LibcameraError? {
        state.withLock { state in
            defer { state.queueFailure = nil }
            return state.queueFailure
        }
    }

    /// Stops the camera; it is destroyed as soon as no frame borrows a buffer.
    func retire() {
        state.withLock { state in
            guard !state.retired else { return }
            state.retired = true
            camera.stop()
            destroyIfDone(&state)
        }
    }

    private func destroyIfDone(_ state: inout State) {
        guard state.retired, !state.destroyed, !state.places.contains(.lent) else { return }
        state.destroyed = true
        camera.destroy()
    }
}

/// One lent libcamera buffer as a frame's storage (zero-copy); ``giveBack()`` queues
/// its request again. It keeps the pool, and so the mapping, alive while borrowed.
final class LibcameraBuffer: FrameBuffer, Sendable {
    let pool: LibcameraRequestPool
    let index: Int

    init(pool: LibcameraRequestPool, index: Int) {
        self.pool = pool
        self.index = index
    }

    var bytes: UnsafeRawBufferPointer { pool.camera.bytes(index: index) }

    func giveBack() { pool.giveBack(index: index) }
}
