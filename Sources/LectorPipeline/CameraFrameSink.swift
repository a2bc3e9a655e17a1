import LectorCapture
import LectorImaging
import LectorLive
import LectorProtocol
import LectorSystem

/// A camera's ``FrameSink``: its mailbox and counters, with its stack and recorder.
public struct CameraFrameSink: FrameSink {
    public let mailbox: LatestFrameMailbox
    public let counters: FrameCounters
    /// Folds every frame into the camera's stack before it is posted; nil: frames are
    /// posted as captured (zero-copy).
    public let stacker: FrameStacker?
    /// `--record`: takes a copy of every frame delivered.
    public let recorder: FrameRecorder?
    private let stateChanged: @Sendable (DeviceInfo) -> Void

    /// - Parameter stateChanged: told whenever the source opens, streams, is lost or ends.
    public init(mailbox: LatestFrameMailbox, counters: FrameCounters, stacker: FrameStacker? = nil, recorder: FrameRecorder? = nil,
                stateChanged: @escaping @Sendable (DeviceInfo) -> Void = { _ in }) {
        self.mailbox = mailbox
        self.counters = counters
        self.stacker = stacker
        self.recorder = recorder
        self.stateChanged = stateChanged
    }

    /// Reports what the source now is (opening, streaming with format and size, lost).
    public func report(_ info: DeviceInfo) { stateChanged(info) }

    /// Hands over a frame: it replaces any frame the recognizer has not taken yet. With
    /// a stacker, the frame is folded into the stack first (its buffer goes back at once)
    /// and the stack's mean is what waits (a full stack's frames between two folds, and
    /// those a slow recognizer would not see, are dropped unread: ``FrameStacker``); a
    /// frame that cannot be decoded is rejected. The stack's previous mean,
    /// if still waiting, is withdrawn before the fold and dropped unread.
    public func deliver(_ frame: Frame) {
        counters.countCaptured()
        recorder?.offer(frame)
        var posted = frame
        if let stacker {
            do {
                let stacked = try stacker.fold(frame, recognizerBusy: mailbox.isOccupied) {
                    // Replaced by the mean about to be folded: dropped as the post would
                    // drop it, but before the stack changes, so it is never read out.
                    guard let waiting = mailbox.takeIfWaiting() else { return }
                    waiting.giveBack()
                    counters.countDropped()
                }
                guard let stacked else {
                    counters.countDropped()  // a full stack's frame between two folds, a slow recognizer's, or one left out
                    return
                }
                posted = stacked
            } catch {
                counters.countRejected()
                return
            }
        }
        if mailbox.post(posted) { counters.countDropped() }
    }

    /// Counts a frame that arrived but failed validation before anyone saw it.
    public func reject() {
        counters.countCaptured()
        counters.countRejected()
    }

    public func skip() {
        counters.countCaptured()
        counters.countDropped()
    }

    /// Waits until the recognizer has taken the last frame (lossless pacing).
    /// - Returns: false once the camera is shutting down.
    public func waitForRoom() -> Bool { mailbox.waitUntilEmpty() }
}
