import Foundation
import LectorProtocol
import LectorSystem

/// The one place that observes process signals (swift-service-lifecycle's shape):
/// SIGINT, SIGTERM and SIGHUP are blocked in every thread and received by one thread
/// with `sigwait`, which calls the handler outside signal context. SIGPIPE is ignored:
/// a closed reader shows up as EPIPE from `write`.
public final class SignalObserver: Sendable {
    private static let observed = [SIGINT, SIGTERM, SIGHUP]

    /// Blocks the signals; call before starting any other thread so they inherit the mask.
    public static func blockSignals() {
        Syscalls.ignoreBrokenPipeSignal()
        Syscalls.blockSignals(observed)
    }

    /// Starts the receiving thread; `handler` gets each signal number.
    public init(handler: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            while true { handler(Syscalls.waitForSignal(Self.observed)) }
        }
    }
}
