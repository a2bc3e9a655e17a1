import Foundation
import Glibc
import LectorProtocol
import LectorSystem

/// The one place that observes process signals (swift-service-lifecycle's shape):
/// SIGINT, SIGTERM and SIGHUP are blocked in every thread and received by one thread
/// with `sigwait`, which calls the handler outside signal context. SIGPIPE is ignored:
/// a closed reader shows up as EPIPE from `write`.
public final class SignalObserver: Sendable {
    /// Blocks the signals; call before starting any other thread so they inherit the mask.
    public static func blockSignals() {
        signal(SIGPIPE, SIG_IGN)
        var set = observedSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static func observedSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        return set
    }

    /// Starts the receiving thread; `handler` gets each signal number.
    public init(handler: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            var set = Self.observedSet()
            while true {
                var received: Int32 = 0
                if sigwait(&set, &received) == 0 { handler(received) }
            }
        }
    }
}
