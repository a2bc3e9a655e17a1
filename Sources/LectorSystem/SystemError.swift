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

    public var description: String { "\(call): \(reason)" }

    /// What the errno means, in the C library's words ("Connection refused").
    /// The corresponding C function is `strerror`.
    public var reason: String { String(cString: strerror(errno)) }
}

extension SystemError {
    /// The current errno of the calling thread, for `call`.
    static func current(_ call: String) -> SystemError { SystemError(errno: Glibc.errno, call: call) }
}
