import Glibc

/// A system call's failure: the errno value and the call's name.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let errno: Int32
    /// The C function that failed, e.g. `open` or `VIDIOC_DQBUF`.
    public let call: String

    public init(errno: Int32, call: String) {
        self.errno = errno
        self.call = call
    }

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// The device has gone (unplugged, unbound).
    public var isDeviceGone: Bool { errno == ENODEV || errno == ENXIO }
}

extension SystemError {
    /// The current errno of the calling thread, for `call`.
    static func current(_ call: String) -> SystemError { SystemError(errno: Glibc.errno, call: call) }
}
