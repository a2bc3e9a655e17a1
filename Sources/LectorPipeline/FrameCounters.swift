import LectorProtocol
import LectorSystem
import Synchronization

/// Per-camera frame accounting. At every moment:
/// captured = recognized + dropped + rejected + unchanged + in flight, where in flight
/// is at most 2: one frame waiting in the mailbox and one being recognized. A frame
/// folded into a stack and then replaced counts as dropped (its buffer went back).
public final class FrameCounters: Sendable {
    /// A consistent copy of the counters.
    public struct Snapshot: Equatable, Sendable {
        /// Frames the source delivered.
        public var captured = 0
        /// Frames that went through recognition.
        public var recognized = 0
        /// Frames replaced in the mailbox before the recognizer took them.
        public var dropped = 0
        /// Frames refused: damaged buffer, decode error, recognition failure.
        public var rejected = 0
        /// Frames the change gate skipped: nothing changed since the last recognition.
        public var unchanged = 0

        public init() {}

        /// Frames delivered but not yet accounted for.
        public var inFlight: Int { captured - recognized - dropped - rejected - unchanged }
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public var snapshot: Snapshot { state.withLock { $0 } }

    public func countCaptured() { state.withLock { $0.captured += 1 } }
    public func countRecognized() { state.withLock { $0.recognized += 1 } }
    public func countDropped(_ count: Int = 1) { state.withLock { $0.dropped += count } }
    public func countRejected() { state.withLock { $0.rejected += 1 } }
    public func countUnchanged() { state.withLock { $0.unchanged += 1 } }
}
