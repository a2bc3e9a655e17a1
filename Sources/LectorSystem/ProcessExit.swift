import Glibc

/// Ending the process.
public enum ProcessExit {
    /// Flushes standard output and ends the process at once, without atexit handlers or
    /// C++ static destructors: for when another thread may still be inside a library
    /// whose globals those destructors would free under it.
    /// The corresponding C functions are `fflush` and `_exit`.
    public static func immediately(_ status: Int32) -> Never {
        fflush(nil)  // every output stream
        _exit(status)
    }
}
