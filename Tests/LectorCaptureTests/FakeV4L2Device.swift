import CV4L2
import Foundation
import Glibc
@testable import LectorCapture
@testable import LectorImaging
@testable import LectorSystem

/// A V4L2 capture device simulated at the syscall seam (``V4L2Syscalls``): it answers
/// the requests Lector makes, fills buffers on demand, and injects the faults a real
/// driver cannot produce on demand (EINTR, a vanished device, a stall).
final class FakeV4L2Device: V4L2Syscalls, @unchecked Sendable {
    // Everything below is guarded by `lock`.
    private let lock = NSLock()

    struct Format {
        var fourcc: UInt32
        var compressed = false
        var sizes: [(width: Int, height: Int)] = [(64, 48)]
        var rates: [Double] = [30]
    }

    /// A one-shot fault: the next `count` calls named `call` fail with `errno`.
    struct Fault {
        var call: String
        var errno: Int32
        var count = 1
    }

    var formats: [Format] = [Format(fourcc: PixelFormat.grey.rawValue)]
    var deviceCaps = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
    /// Control values by id (camera orientation, sensor rotation).
    var controls: [UInt32: Int32] = [:]
    /// Absent: open fails with ENOENT (unplugged).
    var present = true
    /// Gone while open: every call on an open descriptor fails with ENODEV.
    var gone = false
    /// No frames arrive (poll times out).
    var stalled = false
    /// Poll fills one buffer per call (a camera delivering frames).
    var fillOnPoll = true
    var faults: [Fault] = []
    /// What every filled buffer holds (a JPEG, say); nil fills it with the sequence number.
    var content: [UInt8]?
    /// Flags and byte counts for the next frames the device fills (consumed in order).
    var nextFrames: [(flags: UInt32, bytesUsed: Int?)] = []

    private(set) var calls: [String] = []
    private(set) var openDescriptors: Set<Int32> = []
    private(set) var mappedCount = 0
    private var nextFD: Int32 = 100
    private var current: (fourcc: UInt32, width: Int, height: Int) = (PixelFormat.grey.rawValue, 64, 48)
    private var memory: [UnsafeMutableRawBufferPointer] = []
    private var queued: [Int] = []
    private var done: [(index: Int, sequence: UInt32, flags: UInt32, bytesUsed: Int)] = []
    private var streaming = false
    private var sequence: UInt32 = 0

    init() {}

    deinit { memory.forEach { $0.deallocate() } }

    func with<T>(_ body: (FakeV4L2Device) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(self)
    }

    /// Fills up to `count` queued buffers at once (frames that arrived together).
    func fill(_ count: Int) { with { $0.fillLocked(count) } }

    var queuedCount: Int { with { $0.queued.count } }
    var isStreaming: Bool { with { $0.streaming } }
    func count(_ call: String) -> Int { with { $0.calls.filter { $0 == call }.count } }

    private func fillLocked(_ count: Int) {
        for _ in 0..<count where !queued.isEmpty {
            let index = queued.removeFirst()
            let next = nextFrames.isEmpty ? (flags: UInt32(0), bytesUsed: nil) : nextFrames.removeFirst()
            let size = frameSize()
            let buffer = memory[index]
            buffer.initializeMemory(as: UInt8.self, repeating: UInt8(truncatingIfNeeded: sequence))
            if let content {
                buffer.copyBytes(from: content.prefix(buffer.count))
            }
            done.append((index, sequence, next.flags, next.bytesUsed ?? content?.count ?? size))
            sequence &+= 1
        }
    }

    private func freeBuffersIfUnused() {
        guard mappedCount == 0 else { return }
        memory.forEach { $0.deallocate() }
        memory = []
    }

    private func frameSize() -> Int {
        guard let format = PixelFormat(rawValue: current.fourcc) else { return current.width * current.height }
        if format.isCompressed { return max(current.width * current.height, content?.count ?? 0) }
        return format.frameSize(width: current.width, height: current.height,
                                bytesPerLine: format.minimumBytesPerLine(width: current.width)) ?? current.width * current.height
    }

    /// The fault for `call`, if one is armed.
    private func fault(_ call: String) -> Int32? {
        calls.append(call)
        guard let index = faults.firstIndex(where: { $0.call == call }) else { return nil }
        let errno = faults[index].errno
        faults[index].count -= 1
        if faults[index].count <= 0 { faults.remove(at: index) }
        return errno
    }

    // MARK: V4L2Syscalls

    func open(_ path: String, flags: Int32) -> Int32 {
        with { fake in
            if let errno = fake.fault("open") { return -errno }
            guard fake.present, !fake.gone else { return -ENOENT }
            fake.nextFD += 1
            fake.openDescriptors.insert(fake.nextFD)
            return fake.nextFD
        }
    }

    func close(_ fd: Int32) -> Int32 {
        with { fake in
            fake.calls.append("close")
            fake.openDescriptors.remove(fd)
            if fake.openDescriptors.isEmpty {
                // The last close ends streaming; the buffers go once nothing maps them
                // (a mapping keeps the file, and so vb2's queue, alive).
                fake.streaming = false
                fake.queued = []
                fake.done = []
                fake.freeBuffersIfUnused()
            }
            return 0
        }
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        with { $0.ioctlLocked(fd, request, argument) }
    }

    private func ioctlLocked(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let name = Self.names[request] ?? "ioctl \(request)"
        if let errno = fault(name) { return -errno }
        precondition(openDescriptors.contains(fd), "ioctl on a descriptor the fake did not open")
        if gone { return -ENODEV }
        switch request {
        case LECTOR_VIDIOC_QUERYCAP:
            let cap = argument.assumingMemoryBound(to: v4l2_capability.self)
            cap.pointee = v4l2_capability()
            withUnsafeMutableBytes(of: &cap.pointee.driver) { _ = memcpy($0.baseAddress!, "fake", 4) }
            withUnsafeMutableBytes(of: &cap.pointee.card) { _ = memcpy($0.baseAddress!, "Fake Camera", 11) }
            cap.pointee.capabilities = deviceCaps | UInt32(V4L2_CAP_DEVICE_CAPS)
            cap.pointee.device_caps = deviceCaps
        case LECTOR_VIDIOC_ENUM_FMT:
            let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            let index = Int(description.pointee.index)
            guard index < formats.count else { return -EINVAL }
            description.pointee.pixelformat = formats[index].fourcc
            description.pointee.flags = formats[index].compressed ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
        case LECTOR_VIDIOC_ENUM_FRAMESIZES:
            let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard let format = formats.first(where: { $0.fourcc == size.pointee.pixel_format }),
                  Int(size.pointee.index) < format.sizes.count else { return -EINVAL }
            let picked = format.sizes[Int(size.pointee.index)]
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(picked.width), height: UInt32(picked.height))
        case LECTOR_VIDIOC_ENUM_FRAMEINTERVALS:
            let interval = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
            guard let format = formats.first(where: { $0.fourcc == interval.pointee.pixel_format }),
                  Int(interval.pointee.index) < format.rates.count else { return -EINVAL }
            interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            interval.pointee.discrete = v4l2_fract(numerator: 1000, denominator: UInt32(format.rates[Int(interval.pointee.index)] * 1000))
        case LECTOR_VIDIOC_G_FMT, LECTOR_VIDIOC_S_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            if request == LECTOR_VIDIOC_S_FMT {
                if streaming || !memory.isEmpty { return -EBUSY }
                let asked = format.pointee.fmt.pix
                if let offered = formats.first(where: { $0.fourcc == asked.pixelformat }) {
                    let size = offered.sizes.min { abs($0.width - Int(asked.width)) < abs($1.width - Int(asked.width)) } ?? (64, 48)
                    current = (offered.fourcc, size.width, size.height)
                }
            }
            format.pointee.fmt.pix.pixelformat = current.fourcc
            format.pointee.fmt.pix.width = UInt32(current.width)
            format.pointee.fmt.pix.height = UInt32(current.height)
            let pixel = PixelFormat(rawValue: current.fourcc)
            format.pointee.fmt.pix.bytesperline = UInt32(pixel?.minimumBytesPerLine(width: current.width) ?? 0)
            format.pointee.fmt.pix.sizeimage = UInt32(frameSize())
        case LECTOR_VIDIOC_G_PARM, LECTOR_VIDIOC_S_PARM:
            let parm = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            parm.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: 30)
        case LECTOR_VIDIOC_G_CTRL:
            let control = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let value = controls[control.pointee.id] else { return -EINVAL }
            control.pointee.value = value
        case LECTOR_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            if streaming { return -EBUSY }
            memory.forEach { $0.deallocate() }
            memory = (0..<Int(request.pointee.count)).map { _ in
                UnsafeMutableRawBufferPointer.allocate(byteCount: max(frameSize(), 1), alignment: 16)
            }
            queued = []
            done = []
        case LECTOR_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            let index = Int(buffer.pointee.index)
            guard index < memory.count else { return -EINVAL }
            buffer.pointee.m.offset = UInt32(index * 4096)
            buffer.pointee.length = UInt32(memory[index].count)
        case LECTOR_VIDIOC_QBUF:
            let index = Int(argument.assumingMemoryBound(to: v4l2_buffer.self).pointee.index)
            guard index < memory.count, !queued.contains(index), !done.contains(where: { $0.index == index }) else { return -EINVAL }
            queued.append(index)
        case LECTOR_VIDIOC_DQBUF:
            guard streaming else { return -EINVAL }
            guard !done.isEmpty else { return -EAGAIN }
            let frame = done.removeFirst()
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            buffer.pointee.index = UInt32(frame.index)
            buffer.pointee.bytesused = UInt32(frame.bytesUsed)
            buffer.pointee.sequence = frame.sequence
            buffer.pointee.flags = frame.flags | UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
            let now = MonotonicInstant.now().nanoseconds
            buffer.pointee.timestamp = timeval(tv_sec: Int(now / 1_000_000_000), tv_usec: Int(now % 1_000_000_000 / 1000))
        case LECTOR_VIDIOC_STREAMON:
            streaming = true
        case LECTOR_VIDIOC_STREAMOFF:
            streaming = false
            queued = []
            done = []
        default:
            return -ENOTTY
        }
        return 0
    }

    func mmap(length: Int, fd: Int32, offset: Int64) -> Result<UnsafeMutableRawPointer, SystemError> {
        with { fake in
            if let errno = fake.fault("mmap") { return .failure(SystemError(errno: errno, call: "mmap")) }
            let index = Int(offset / 4096)
            guard index < fake.memory.count, let base = fake.memory[index].baseAddress else {
                return .failure(SystemError(errno: EINVAL, call: "mmap"))
            }
            fake.mappedCount += 1
            return .success(base)
        }
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        with { fake in
            fake.calls.append("munmap")
            fake.mappedCount -= 1
            if fake.openDescriptors.isEmpty { fake.freeBuffersIfUnused() }
            return 0
        }
    }

    func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> Int32 {
        let result: Int32? = with { fake in
            if let errno = fake.fault("poll") { return -errno }
            if fake.gone { return Int32(POLLERR | POLLHUP) }
            if !fake.done.isEmpty { return Int32(POLLIN) }
            if fake.streaming, !fake.stalled, fake.fillOnPoll, !fake.queued.isEmpty {
                fake.fillLocked(1)
                return Int32(POLLIN)
            }
            return nil
        }
        if let result { return result }
        usleep(UInt32(min(timeoutMilliseconds, 5)) * 1000)  // a short stand-in for the timeout
        return 0
    }

    private static let names: [UInt: String] = [
        LECTOR_VIDIOC_QUERYCAP: "VIDIOC_QUERYCAP", LECTOR_VIDIOC_ENUM_FMT: "VIDIOC_ENUM_FMT",
        LECTOR_VIDIOC_ENUM_FRAMESIZES: "VIDIOC_ENUM_FRAMESIZES", LECTOR_VIDIOC_ENUM_FRAMEINTERVALS: "VIDIOC_ENUM_FRAMEINTERVALS",
        LECTOR_VIDIOC_G_FMT: "VIDIOC_G_FMT", LECTOR_VIDIOC_S_FMT: "VIDIOC_S_FMT", LECTOR_VIDIOC_G_PARM: "VIDIOC_G_PARM",
        LECTOR_VIDIOC_S_PARM: "VIDIOC_S_PARM", LECTOR_VIDIOC_G_CTRL: "VIDIOC_G_CTRL", LECTOR_VIDIOC_REQBUFS: "VIDIOC_REQBUFS",
        LECTOR_VIDIOC_QUERYBUF: "VIDIOC_QUERYBUF", LECTOR_VIDIOC_QBUF: "VIDIOC_QBUF", LECTOR_VIDIOC_DQBUF: "VIDIOC_DQBUF",
        LECTOR_VIDIOC_STREAMON: "VIDIOC_STREAMON", LECTOR_VIDIOC_STREAMOFF: "VIDIOC_STREAMOFF",
    ]
}

extension CaptureSettings {
    /// Settings whose every I/O path is `fake`.
    static func fake(_ fake: FakeV4L2Device, path: String = "/dev/video-fake") -> CaptureSettings {
        var settings = CaptureSettings(path: path)
        settings.syscalls = { _ in fake }
        return settings
    }
}
