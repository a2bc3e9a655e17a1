import CV4L2
import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// One streaming run of a device, from open to close (ustreamer's capture verbs: open,
/// grab, close): V4L2's ``CaptureStream``. A lost device ends the session; the
/// ``CaptureLoop`` starts a new one.
///
/// Owner of the device descriptor and, through its ``MappedBufferPool``, of the
/// mappings. Used by one thread, the capture loop, except for give-backs.
public final class CaptureSession {
    public let device: V4L2Device
    public let capabilities: V4L2Capabilities
    /// The path the session ended up on.
    public let mode: V4L2IOMode
    public let format: PixelFormat
    /// What the driver set.
    public let captureFormat: CaptureFormat
    public let fps: Double?
    public let metadata: CameraMetadata
    private let pool: MappedBufferPool
    /// What a complete frame looks like, checked before anyone sees one.
    private let check: FrameCheck
    private var closed = false

    /// Opens the device and negotiates, without streaming (for a probe at start-up).
    /// - Returns: the device (its owner is the caller), what it is, and what it offers.
    static func openAndDescribe(_ settings: CaptureSettings) throws(CaptureError)
        -> (device: V4L2Device, mode: V4L2IOMode, capabilities: V4L2Capabilities, offers: [FormatOffer]) {
        var mode: V4L2IOMode = settings.io == .libv4l2 ? .libv4l2 : .direct
        return try CaptureError.mapping {
            var device = try V4L2Device(path: settings.path, syscalls: settings.syscalls(mode))
            let capabilities = try device.capabilities()
            guard capabilities.capturesVideo else {
                throw CaptureError.notCapture(path: settings.path, card: capabilities.card)
            }
            guard capabilities.streams else { throw CaptureError.noStreaming(path: settings.path) }
            var offers = try device.formatOffers()
            if settings.io == .auto, !FormatNegotiation.hasNativeFormat(offers) {
                // Only libv4lconvert can turn these into something readable.
                device.close()
                mode = .libv4l2
                device = try V4L2Device(path: settings.path, syscalls: settings.syscalls(mode))
                offers = try device.formatOffers()
            }
            return (device, mode, capabilities, offers)
        }
    }

    /// Opens, negotiates, maps the buffers and starts streaming.
    /// - Throws: `CaptureError`; everything opened so far is released.
    public init(settings: CaptureSettings, logger: Logger) throws(CaptureError) {
        let (device, mode, capabilities, offers) = try Self.openAndDescribe(settings)
        self.device = device
        self.mode = mode
        self.capabilities = capabilities
        do {
            let choice: FormatNegotiation.Choice
            do {
                choice = try FormatNegotiation.choose(from: offers, format: settings.format, size: settings.size, fps: settings.fps)
            } catch {
                throw CaptureError.negotiation(error)
            }
            if !choice.reachesRequest {
                logger.once("negotiation", .warning, "the camera cannot reach the asked size or rate; using the nearest",
                            [("format", choice.format.fourcc)])
            }
            let current = try device.format()
            let set = try device.setFormat(fourcc: choice.format.rawValue, width: choice.width ?? settings.size?.width ?? current.width,
                                           height: choice.height ?? settings.size?.height ?? current.height)
            guard set.fourcc == choice.format.rawValue else {
                throw CaptureError.formatRefused(asked: choice.format, got: PixelFormat.fourccString(set.fourcc))
            }
            captureFormat = set
            format = choice.format
            if let asked = choice.fps {
                fps = try device.setFrameRate(asked)
            } else {
                fps = try device.frameRate()
            }
            metadata = try CameraMetadata(device: device)
            check = FrameCheck(format: choice.format, width: set.width, height: set.height, stride: set.bytesPerLine)
            pool = try MappedBufferPool(device: device, count: settings.bufferCount)
            do {
                try device.streamOn()
            } catch {
                pool.retire()
                _ = try? device.requestBuffers(0)
                throw error
            }
        } catch {
            device.close()
            throw CaptureError(any: error)
        }
    }

    deinit { close() }

    /// Waits up to `timeoutMilliseconds` for frames, then dequeues every filled buffer
    /// (until EAGAIN), gives back all but the newest valid one at once, and lends that
    /// one out without copying.
    /// - Throws: `CaptureError` when the device fails (ENODEV, EIO, POLLERR).
    public func grab(timeoutMilliseconds: Int) throws(CaptureError) -> CaptureGrab {
        var grab = CaptureGrab()
        return try CaptureError.mapping {
            // A give-back that could not be queued (EIO after a queue error, an injected
            // QBUF error) leaves the driver a buffer short: start a new session.
            if let failure = pool.takeQueueFailure() { throw failure }
            let readiness = try device.poll(timeoutMilliseconds: timeoutMilliseconds)
            if readiness == .timedOut { return grab }
            var newest: DequeuedBuffer?
            while true {
                let result: V4L2Device.Dequeued
                do {
                    result = try device.dequeue()
                } catch {
                    if let newest { try pool.requeue(index: newest.index) }
                    throw error
                }
                guard case let .buffer(buffer) = result else { break }
                pool.dequeued(index: buffer.index)
                let bytes = pool.bytes(index: buffer.index)
                if let damage = check.damage(bytes: bytes, bytesUsed: buffer.bytesUsed, failed: buffer.failed) {
                    grab.rejected += 1
                    grab.damage = damage
                    try pool.requeue(index: buffer.index)
                    continue
                }
                if let older = newest {
                    grab.skipped += 1
                    try pool.requeue(index: older.index)
                }
                newest = buffer
            }
            if readiness == .failed, !grab.dequeuedAny { throw CaptureError.queueFailed }
            if let newest {
                grab.frame = check.frame(bytesUsed: newest.bytesUsed, sequence: newest.sequence, timestamp: newest.timestamp,
                                         buffer: pool.lend(index: newest.index))
            }
            return grab
        }
    }

    /// Stops streaming and releases everything (once). Lent frames stay readable until
    /// given back; their mappings go then.
    public func close() {
        // A session whose init failed after setup has its device closed already.
        guard !closed, device.fd >= 0 else { return }
        closed = true
        _ = try? device.streamOff()
        pool.retire()
        device.close()
    }
}

extension CaptureSession: CaptureStream {
    var info: DeviceInfo {
        var info = DeviceInfo(path: device.path, state: .streaming, name: capabilities.card)
        info.driver = capabilities.driver
        info.card = capabilities.card
        info.bus = capabilities.bus
        info.format = format.fourcc
        info.width = captureFormat.width
        info.height = captureFormat.height
        info.fps = fps
        return info
    }

    var details: [(String, String)] {
        [("io", mode.rawValue), ("driver", capabilities.driver), ("card", capabilities.card)]
    }
}
