import LectorImaging
import LectorProtocol
import LectorSystem

/// One streaming run of a libcamera camera, from open to close: libcamera's
/// ``CaptureStream``, as ``CaptureSession`` is V4L2's.
///
/// Takes completed requests in rounds: the newest valid one of a round is lent out
/// zero-copy, older ones are queued again at once (skipped), damaged ones too (rejected).
/// Owner of the ``LibcameraRequestPool`` and so of the camera.
final class LibcameraStream: CaptureStream {
    let info: DeviceInfo
    private let pool: LibcameraRequestPool
    private let check: FrameCheck

    /// Takes ownership of `camera`, started with every request queued.
    /// - Parameters: path: the `--device` it was opened as.
    init(camera: LibcameraCamera, path: String) {
        pool = LibcameraRequestPool(camera: camera)
        let camera = camera.info
        check = FrameCheck(format: camera.format, width: camera.width, height: camera.height, stride: camera.bytesPerLine)
        var info = DeviceInfo(path: path, state: .streaming, name: camera.model.isEmpty ? camera.id : camera.model)
        info.driver = "libcamera"
        info.card = camera.model.isEmpty ? nil : camera.model
        info.bus = camera.id
        info.format = camera.format.fourcc
        info.width = camera.width
        info.height = camera.height
        info.fps = camera.fps
        self.info = info
    }

    var details: [(String, String)] {
        let camera = pool.camera.info
        return [("id", camera.id), ("model", camera.model), ("buffers", "\(camera.bufferCount)")]
    }

    func grab(timeoutMilliseconds: Int) throws(LibcameraError) -> CaptureGrab {
        if let failure = pool.takeQueueFailure() { throw failure }
        var grab = CaptureGrab()
        var newest: LibcameraCamera.Completed?
        for var completed in try round(timeoutMilliseconds: timeoutMilliseconds) {
            let bytes = pool.camera.bytes(index: completed.index)
            if completed.bytesUsed == 0 || completed.bytesUsed > bytes.count { completed.bytesUsed = bytes.count }
            if let damage = check.damage(bytes: bytes, bytesUsed: completed.bytesUsed, failed: completed.failed) {
                try pool.requeue(index: completed.index)
                grab.rejected += 1
                grab.damage = damage
                continue
            }
            if let older = newest {
                try pool.requeue(index: older.index)
                grab.skipped += 1
            }
            newest = completed
        }
        if let newest {
            grab.frame = check.frame(bytesUsed: newest.bytesUsed, sequence: newest.sequence, timestamp: newest.timestamp,
                                     buffer: pool.lend(index: newest.index))
        }
        return grab
    }

    /// The requests completed within `timeoutMilliseconds`, and any that completed right
    /// after the first: they are the capture loop's now.
    private func round(timeoutMilliseconds: Int) throws(LibcameraError) -> [LibcameraCamera.Completed] {
        var round: [LibcameraCamera.Completed] = []
        var wait = timeoutMilliseconds
        while true {
            switch pool.camera.next(timeoutMilliseconds: wait) {
            case let .frame(completed):
                pool.completed(index: completed.index)
                round.append(completed)
                wait = 0  // the rest of this round: what has completed already
            case .timedOut:
                return round
            case .disconnected:
                throw .disconnected
            }
        }
    }

    /// Stops the camera; it is destroyed once no frame borrows a buffer.
    func close() { pool.retire() }
}
