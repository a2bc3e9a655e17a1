import Glibc

/// Process signals, observed synchronously: blocked in every thread, then received by
/// one thread that waits for them.
extension Syscalls {
    /// Ignores SIGPIPE: a write to a closed reader fails with EPIPE instead of ending the
    /// process. The corresponding C function is `signal`.
    public static func ignoreBrokenPipeSignal() {
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Blocks `signals` in the calling thread; threads started afterwards inherit the
    /// mask. The corresponding C function is `pthread_sigmask`.
    public static func blockSignals(_ signals: [Int32]) {
        var set = signalSet(signals)
        let result = pthread_sigmask(SIG_BLOCK, &set, nil)
        precondition(result == 0, "pthread_sigmask failed with \(result): a bug")
    }

    /// Waits until one of `signals` (blocked with ``blockSignals(_:)``) is pending and
    /// takes it. The corresponding C function is `sigwait`.
    /// - Returns: The signal's number.
    public static func waitForSignal(_ signals: [Int32]) -> Int32 {
        var set = signalSet(signals)
        while true {
            var received: Int32 = 0
            if sigwait(&set, &received) == 0 { return received }
        }
    }

    private static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}
