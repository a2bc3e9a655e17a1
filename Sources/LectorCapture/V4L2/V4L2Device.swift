import CV4L2
import Foundation
import LectorProtocol
import LectorSystem

/// An open V4L2 device node: the typed layer over ``V4L2Syscalls``.
///
/// Every request retries EINTR; EAGAIN from DQBUF is a value (``Dequeued/wouldBlock``),
/// not an error; other failures throw a ``SystemError`` naming the request. EBADF and
/// EFAULT can only mean a bug in Lector, so they trap.
///
/// Owner: the capture loop that opened it. It alone calls ``close()``; the mapped
/// buffers (``MappedBufferPool``) use ``queue(index:)`` from other threads only until
/// the pool is retired, which happens before the close.
public final class V4L2Device: @unchecked Sendable {
    /// The path it was opened with (a by-id symlink stays a symlink here).
    public let path: String
    public let syscalls: any V4L2Syscalls
    /// The descriptor; -1 once closed. Written only by the owner's `close()`.
    public private(set) var fd: Int32

    /// Opens `path` non-blocking, read-write.
    /// - Throws: `SystemError` with call `open` (ENOENT while unplugged, EACCES, ...).
    public init(path: String, syscalls: any V4L2Syscalls) throws(SystemError) {
        self.path = path
        self.syscalls = syscalls
        var result: Int32
        repeat {
            result = syscalls.open(path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        } while result == -EINTR
        guard result >= 0 else { throw SystemError(errno: -result, call: "open") }
        fd = result
    }

    deinit { close() }

    /// Closes the descriptor (once; later calls do nothing). Never retried on EINTR:
    /// the descriptor is gone either way. The corresponding C function is `close`.
    public func close() {
        guard fd >= 0 else { return }
        _ = syscalls.close(fd)
        fd = -1
    }

    // MARK: Requests

    /// Issues `request` on `value`, retrying EINTR.
    /// - Throws: `SystemError` named `name` for any failure but EINTR.
    public func request<T>(_ request: UInt, _ name: String, _ value: inout T) throws(SystemError) {
        let result = self.result(of: request, value: &value)
        if result < 0 { throw SystemError(errno: -result, call: name) }
    }

    /// Issues `request` on `value`, retrying EINTR; the result or a negative errno.
    private func result<T>(of request: UInt, value: inout T) -> Int32 {
        while true {
            let result = withUnsafeMutableBytes(of: &value) { bytes in
                // A struct always has a base address (never zero-sized here).
                syscalls.ioctl(fd, request, bytes.baseAddress!)
            }
            if result == -EINTR { continue }
            precondition(result != -EBADF && result != -EFAULT,
                         "V4L2 request \(request) on fd \(fd): \(SystemError(errno: -result, call: "ioctl")) (a bug in Lector)")
            return result
        }
    }

    /// What the driver and the node are (VIDIOC_QUERYCAP).
    public func capabilities() throws(SystemError) -> V4L2Capabilities {
        var cap = v4l2_capability()
        try request(LECTOR_VIDIOC_QUERYCAP, "VIDIOC_QUERYCAP", &cap)
        let nodeCaps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        return V4L2Capabilities(driver: Self.string(cap.driver), card: Self.string(cap.card),
                                bus: Self.string(cap.bus_info), deviceCaps: nodeCaps)
    }

    /// Every capture pixel format, with its sizes and frame rates (VIDIOC_ENUM_FMT,
    /// VIDIOC_ENUM_FRAMESIZES, VIDIOC_ENUM_FRAMEINTERVALS).
    public func formatOffers() throws(SystemError) -> [FormatOffer] {
        var offers: [FormatOffer] = []
        for index in 0..<UInt32(256) {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            let result = result(of: LECTOR_VIDIOC_ENUM_FMT, value: &description)
            if result == -EINVAL { break }
            if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_ENUM_FMT") }
            let fourcc = description.pixelformat
            offers.append(FormatOffer(fourcc: fourcc, name: Self.string(description.description),
                                      compressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                                      emulated: description.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                                      sizes: try sizes(of: fourcc)))
        }
        return offers
    }

    private func sizes(of fourcc: UInt32) throws(SystemError) -> SizeOffers {
        var sizes: [SizeOffer] = []
        for index in 0..<UInt32(512) {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = fourcc
            let result = result(of: LECTOR_VIDIOC_ENUM_FRAMESIZES, value: &size)
            if result == -EINVAL || result == -ENOTTY { break }
            if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_ENUM_FRAMESIZES") }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let width = Int(size.discrete.width), height = Int(size.discrete.height)
                sizes.append(SizeOffer(width: width, height: height, rates: try rates(of: fourcc, width: width, height: height)))
            } else {
                let s = size.stepwise
                return .stepwise(SizeRange(minWidth: Int(s.min_width), maxWidth: Int(s.max_width), stepWidth: Int(max(s.step_width, 1)),
                                           minHeight: Int(s.min_height), maxHeight: Int(s.max_height), stepHeight: Int(max(s.step_height, 1))))
            }
        }
        return sizes.isEmpty ? .unknown : .discrete(sizes)
    }

    /// Frame rates of one format and size, fastest first; empty when the driver does not say.
    public func rates(of fourcc: UInt32, width: Int, height: Int) throws(SystemError) -> [Double] {
        var rates: [Double] = []
        for index in 0..<UInt32(64) {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = fourcc
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            let result = result(of: LECTOR_VIDIOC_ENUM_FRAMEINTERVALS, value: &interval)
            if result == -EINVAL || result == -ENOTTY { break }
            if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_ENUM_FRAMEINTERVALS") }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                if let fps = Self.fps(interval.discrete) { rates.append(fps) }
            } else {
                // Stepwise/continuous: the fastest and the slowest bound the range.
                if let fastest = Self.fps(interval.stepwise.min) { rates.append(fastest) }
                if let slowest = Self.fps(interval.stepwise.max) { rates.append(slowest) }
                break
            }
        }
        return rates.sorted(by: >)
    }

    /// The current capture format (VIDIOC_G_FMT).
    public func format() throws(SystemError) -> CaptureFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try request(LECTOR_VIDIOC_G_FMT, "VIDIOC_G_FMT", &format)
        return CaptureFormat(format.fmt.pix)
    }

    /// Asks for a format and size (VIDIOC_S_FMT); returns what the driver chose, which
    /// may differ (drivers adjust rather than fail).
    public func setFormat(fourcc: UInt32, width: Int, height: Int) throws(SystemError) -> CaptureFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.pixelformat = fourcc
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try request(LECTOR_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format)
        return CaptureFormat(format.fmt.pix)
    }

    /// Asks for a frame rate (VIDIOC_S_PARM); returns the rate the driver set, nil if
    /// the driver cannot set one.
    public func setFrameRate(_ fps: Double) throws(SystemError) -> Double? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let denominator = UInt32((fps * 1000).rounded())
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: max(denominator, 1))
        let result = result(of: LECTOR_VIDIOC_S_PARM, value: &parm)
        if result == -EINVAL || result == -ENOTTY { return try frameRate() }
        if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_S_PARM") }
        return Self.fps(parm.parm.capture.timeperframe)
    }

    /// The current frame rate (VIDIOC_G_PARM); nil when the driver does not say.
    public func frameRate() throws(SystemError) -> Double? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let result = result(of: LECTOR_VIDIOC_G_PARM, value: &parm)
        if result == -EINVAL || result == -ENOTTY { return nil }
        if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_G_PARM") }
        return Self.fps(parm.parm.capture.timeperframe)
    }

    /// A control's value (VIDIOC_G_CTRL); nil when the driver has no such control.
    public func control(_ id: UInt32) throws(SystemError) -> Int32? {
        var control = v4l2_control(id: id, value: 0)
        let result = result(of: LECTOR_VIDIOC_G_CTRL, value: &control)
        if result == -EINVAL || result == -ENOTTY || result == -EACCES { return nil }
        if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_G_CTRL") }
        return control.value
    }

    // MARK: Streaming

    /// Asks for `count` mmap buffers (VIDIOC_REQBUFS); returns how many the driver made.
    /// A count of 0 frees them (only once none is mapped).
    public func requestBuffers(_ count: Int) throws(SystemError) -> Int {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try self.request(LECTOR_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
        return Int(request.count)
    }

    /// Where buffer `index` is mapped from (VIDIOC_QUERYBUF).
    public func queryBuffer(index: Int) throws(SystemError) -> (offset: Int64, length: Int) {
        var buffer = Self.captureBuffer(index: index)
        try request(LECTOR_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
        return (Int64(buffer.m.offset), Int(buffer.length))
    }

    /// Maps a buffer. The caller (``MappedBufferPool``) owns the mapping.
    public func map(offset: Int64, length: Int) throws(SystemError) -> UnsafeMutableRawPointer {
        try syscalls.mmap(length: length, fd: fd, offset: offset).get()
    }

    /// Unmaps a buffer mapped by ``map(offset:length:)``.
    public func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        let result = syscalls.munmap(address, length: length)
        precondition(result != -EINVAL, "munmap of a mapping Lector does not own")
    }

    /// Gives buffer `index` to the driver to fill (VIDIOC_QBUF).
    public func queue(index: Int) throws(SystemError) {
        var buffer = Self.captureBuffer(index: index)
        try request(LECTOR_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
    }

    /// What VIDIOC_DQBUF gave.
    public enum Dequeued {
        case buffer(DequeuedBuffer)
        /// No filled buffer waits (EAGAIN).
        case wouldBlock
    }

    /// Takes the oldest filled buffer from the driver (VIDIOC_DQBUF, non-blocking).
    public func dequeue() throws(SystemError) -> Dequeued {
        var buffer = Self.captureBuffer(index: 0)
        let result = result(of: LECTOR_VIDIOC_DQBUF, value: &buffer)
        if result == -EAGAIN { return .wouldBlock }
        if result < 0 { throw SystemError(errno: -result, call: "VIDIOC_DQBUF") }
        // A driver that does not stamp buffers (or stamps another clock): now is the best guess.
        let stamped = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
            && (buffer.timestamp.tv_sec != 0 || buffer.timestamp.tv_usec != 0)
        return .buffer(DequeuedBuffer(
            index: Int(buffer.index), bytesUsed: Int(buffer.bytesused), sequence: buffer.sequence,
            failed: buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0,
            timestamp: stamped ? MonotonicInstant(seconds: Int(buffer.timestamp.tv_sec), microseconds: Int(buffer.timestamp.tv_usec))
                : .now()))
    }

    /// Starts streaming (VIDIOC_STREAMON).
    public func streamOn() throws(SystemError) {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try request(LECTOR_VIDIOC_STREAMON, "VIDIOC_STREAMON", &type)
    }

    /// Stops streaming (VIDIOC_STREAMOFF); every buffer returns to the application.
    public func streamOff() throws(SystemError) {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try request(LECTOR_VIDIOC_STREAMOFF, "VIDIOC_STREAMOFF", &type)
    }

    /// What ``poll(timeoutMilliseconds:)`` saw.
    public enum Readiness: Equatable {
        /// A filled buffer waits.
        case ready
        case timedOut
        /// POLLERR/POLLHUP: the queue failed or the device went away.
        case failed
    }

    /// Waits until a buffer is filled, the timeout passes, or the device fails.
    /// The corresponding C function is `poll`; EINTR counts as a timeout (the caller loops).
    public func poll(timeoutMilliseconds: Int) throws(SystemError) -> Readiness {
        let result = syscalls.poll(fd, events: Int16(POLLIN), timeoutMilliseconds: Int32(clamping: timeoutMilliseconds))
        if result == -EINTR || result == 0 { return .timedOut }
        if result < 0 { throw SystemError(errno: -result, call: "poll") }
        if result & Int32(POLLIN) != 0 { return .ready }
        return .failed
    }

    // MARK: Helpers

    private static func captureBuffer(index: Int) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    private static func fps(_ fraction: v4l2_fract) -> Double? {
        guard fraction.numerator > 0, fraction.denominator > 0 else { return nil }
        return Double(fraction.denominator) / Double(fraction.numerator)
    }

    /// A fixed-size, NUL-padded C string field (`__u8 driver[16]`) as a String.
    static func string<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            let used = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<used], as: UTF8.self)
        }
    }
}

/// What VIDIOC_QUERYCAP says about a node.
public struct V4L2Capabilities: Equatable, Sendable {
    public var driver: String
    public var card: String
    public var bus: String
    /// The capabilities of this node (`device_caps`), not of the whole device.
    public var deviceCaps: UInt32

    public init(driver: String, card: String, bus: String, deviceCaps: UInt32) {
        self.driver = driver
        self.card = card
        self.bus = bus
        self.deviceCaps = deviceCaps
    }

    /// Whether the node captures video (a UVC metadata node does not).
    public var capturesVideo: Bool { deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 }
    /// Whether it supports streaming I/O (mmap buffers).
    public var streams: Bool { deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0 }
}

/// The format the driver set: V4L2's `v4l2_pix_format`, the parts capture uses.
public struct CaptureFormat: Equatable, Sendable {
    public var fourcc: UInt32
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var sizeImage: Int

    public init(fourcc: UInt32, width: Int, height: Int, bytesPerLine: Int, sizeImage: Int) {
        self.fourcc = fourcc
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.sizeImage = sizeImage
    }

    init(_ pix: v4l2_pix_format) {
        self.init(fourcc: pix.pixelformat, width: Int(pix.width), height: Int(pix.height),
                  bytesPerLine: Int(pix.bytesperline), sizeImage: Int(pix.sizeimage))
    }
}

/// One buffer VIDIOC_DQBUF returned.
public struct DequeuedBuffer: Equatable, Sendable {
    public var index: Int
    public var bytesUsed: Int
    public var sequence: UInt32
    /// V4L2_BUF_FLAG_ERROR: the driver says the content is damaged.
    public var failed: Bool
    /// When the first byte was captured, CLOCK_MONOTONIC.
    public var timestamp: MonotonicInstant

    public init(index: Int, bytesUsed: Int, sequence: UInt32, failed: Bool, timestamp: MonotonicInstant) {
        self.index = index
        self.bytesUsed = bytesUsed
        self.sequence = sequence
        self.failed = failed
        self.timestamp = timestamp
    }
}
