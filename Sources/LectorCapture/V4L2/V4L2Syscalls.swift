import CV4L2
import Glibc
import LectorProtocol
import LectorSystem

/// The system calls V4L2 capture makes, as one replaceable set: the only place in
/// Lector that calls the CV4L2 entry points.
///
/// The one Swift file outside LectorSystem that reaches the C library (it reads `errno`
/// after CV4L2's plain-libc or libv4l2 calls; tests/seam/allow-list names it): the
/// plain-libc half must stay beside the libv4l2 half, chosen at run time, and
/// LectorSystem must not link libv4l2, since `lector` links LectorSystem. `poll` goes
/// through ``Syscalls/poll(_:timeoutMilliseconds:)``.
///
/// This is the thin layer: every call returns what the C function returned, with a
/// failure as a negative errno (`-EINTR`, `-ENODEV`), and never retries. ``V4L2Device``
/// builds the typed, retrying API on top. Tests replace the whole set to inject the
/// faults a real driver cannot produce on demand (EINTR, a stall, a vanishing device).
public protocol V4L2Syscalls: Sendable {
    /// Opens a device node; a descriptor, or a negative errno.
    /// The corresponding C function is `open` (or `v4l2_open`).
    func open(_ path: String, flags: Int32) -> Int32
    /// Closes a descriptor; 0 or a negative errno. The corresponding C function is `close`.
    func close(_ fd: Int32) -> Int32
    /// Issues a request; the result or a negative errno. The corresponding C function is `ioctl`.
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    /// Maps `length` bytes of a driver buffer read-only and shared; the address, or a
    /// negative errno. The corresponding C function is `mmap`.
    func mmap(length: Int, fd: Int32, offset: Int64) -> Result<UnsafeMutableRawPointer, SystemError>
    /// Unmaps a buffer; 0 or a negative errno. The corresponding C function is `munmap`.
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32
    /// Waits for `events` on `fd`; the returned events (0 on timeout) or a negative errno.
    /// The corresponding C function is `poll`.
    func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> Int32
}

/// How capture reaches the driver.
public enum V4L2IOMode: String, CaseIterable, Sendable {
    /// Plain libc open/ioctl/mmap: what LD_PRELOAD interposers such as libcamerify see.
    case direct
    /// libv4l2's v4l2_open/v4l2_ioctl/v4l2_mmap: formats converted by libv4lconvert.
    case libv4l2

    /// The system calls of this mode.
    public var syscalls: any V4L2Syscalls {
        switch self {
        case .direct: DirectSyscalls()
        case .libv4l2: LibV4L2Syscalls()
        }
    }
}

/// Converts a C return value (-1 with `errno` set) into the seam's convention.
@inline(__always)
private func valueOrErrno(_ result: Int32) -> Int32 {
    result >= 0 ? result : -Glibc.errno
}

private func mapResult(_ address: UnsafeMutableRawPointer?, _ call: String) -> Result<UnsafeMutableRawPointer, SystemError> {
    // MAP_FAILED is (void *)-1.
    guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else {
        return .failure(SystemError(errno: Glibc.errno, call: call))
    }
    return .success(address)
}

/// Polls through LectorSystem's seam (EINTR is a timeout there, as here).
private func pollOne(_ fd: Int32, _ events: Int16, _ timeout: Int32) -> Int32 {
    var entry = [pollfd(fd: fd, events: events, revents: 0)]
    do {
        return try Syscalls.poll(&entry, timeoutMilliseconds: timeout) == 0 ? 0 : Int32(entry[0].revents)
    } catch {
        return -error.errno
    }
}

/// Plain libc calls, interceptable by LD_PRELOAD.
public struct DirectSyscalls: V4L2Syscalls {
    public init() {}
    public func open(_ path: String, flags: Int32) -> Int32 { valueOrErrno(lector_direct_open(path, flags)) }
    public func close(_ fd: Int32) -> Int32 { valueOrErrno(lector_direct_close(fd)) }
    public func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        valueOrErrno(lector_direct_ioctl(fd, request, argument))
    }
    public func mmap(length: Int, fd: Int32, offset: Int64) -> Result<UnsafeMutableRawPointer, SystemError> {
        mapResult(lector_direct_mmap(length, PROT_READ, MAP_SHARED, fd, offset), "mmap")
    }
    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        valueOrErrno(lector_direct_munmap(address, length))
    }
    public func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> Int32 {
        pollOne(fd, events, timeoutMilliseconds)
    }
}

/// libv4l2 calls (raw syscalls underneath, invisible to LD_PRELOAD interposers).
public struct LibV4L2Syscalls: V4L2Syscalls {
    public init() {}
    public func open(_ path: String, flags: Int32) -> Int32 { valueOrErrno(lector_libv4l2_open(path, flags)) }
    public func close(_ fd: Int32) -> Int32 { valueOrErrno(lector_libv4l2_close(fd)) }
    public func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        valueOrErrno(lector_libv4l2_ioctl(fd, request, argument))
    }
    public func mmap(length: Int, fd: Int32, offset: Int64) -> Result<UnsafeMutableRawPointer, SystemError> {
        // libv4l2 needs PROT_WRITE on its emulated buffers (it converts into them).
        mapResult(lector_libv4l2_mmap(length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset), "v4l2_mmap")
    }
    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        valueOrErrno(lector_libv4l2_munmap(address, length))
    }
    public func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> Int32 {
        pollOne(fd, events, timeoutMilliseconds)
    }
}

