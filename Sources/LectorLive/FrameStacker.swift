import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// The capture side of live text: turns each captured frame into a stacked GREY frame.
///
/// The frame's luma is extracted (a copy; MJPEG is decoded), its buffer is given back
/// to the driver at once, and the luma is folded into a ``FrameStack``. The result lives
/// in Lector's own memory, so the zero-copy promise holds: no driver buffer waits for
/// the recognizer. One per camera, used by the source thread only.
///
/// A stacked frame's pixels are read out of the stack only when a recognizer takes it
/// (``StackedFrameBuffer``): a frame the mailbox replaces unread, or the change gate
/// skips, costs the fold alone.
///
/// Once the stack is full, it folds at most one frame per ``fullStackInterval``: its
/// mean already averages `capacity` frames, and a 30 or 60 fps camera then costs the
/// capture thread what a 16 fps one does. The frames between are given back unread.
///
/// While the recognizer has been busy for ``busyFoldInterval`` (a slow core reading a
/// scene, its frames waiting), it folds at most one frame per ``busyFoldInterval``: the
/// recognizer takes only the newest mean when it is done, and decoding and folding each
/// captured frame took a quarter of a still document camera's CPU at a third of a core,
/// CPU the scene's first text waited for (issue 40). A recognizer that keeps up (a
/// read shorter than the interval) sees every frame folded, as before.
public final class FrameStacker: @unchecked Sendable {
    // The source thread alone calls fold and reset; recognizer threads read stacked
    // frames out of the stack under `shared.lock`, which fold holds while it changes the
    // stack.
    /// Least time between two frames folded into a full stack (16 frames a second, with
    /// room for a 15 fps camera's timing jitter).
    public static let fullStackInterval = 60.0
    /// Least time between two frames folded while the recognizer has been busy this long
    /// (milliseconds): a scene change is then seen at most this much later than otherwise.
    public static let busyFoldInterval = 1000.0
    private let extractor = LumaExtractor()
    /// The stack. Read it on the source thread only (recognizers read stacked frames).
    public let stack: FrameStack
    private let shared: StackedFrameBuffer.Shared
    /// The buffer of the last stacked frame made: detached before the stack changes.
    private var latest: StackedFrameBuffer?
    private var luma = GrayImage(width: 0, height: 0)
    /// Capture time of the last frame folded.
    private var lastFolded: MonotonicInstant?
    /// Capture time of the last frame delivered while the recognizer was not busy.
    private var lastIdle: MonotonicInstant?
    private let logger: Logger?
    private let colorPreview: ColorPreviewDemand?
    /// Whether each stacked frame keeps its newest captured frame borrowed (``Frame/held``)
    /// for the evidence of a MATCH, instead of giving it back once folded.
    private let holdsCaptured: Bool

    /// - Parameters:
    ///   - capacity: frames averaged at most (1: none, still aligned and signed).
    ///   - colorPreview: while it is wanted, each stacked frame carries a copy of the
    ///     frame as captured.
    ///   - restartAfter: frames in a row that must show another scene before the stack
    ///     starts again (``FrameStack/Settings/restartAfter``); 1 for a source the
    ///     recognizer paces (a lossless replay: every frame is read, distinct frames too).
    ///   - holdsCaptured: each stacked frame keeps the frame it folded last borrowed,
    ///     uncopied, until the stacked frame is given back (evidence in colour).
    public init(capacity: Int, restartAfter: Int = 2, colorPreview: ColorPreviewDemand? = nil, holdsCaptured: Bool = false,
                logger: Logger? = nil) {
        var settings = FrameStack.Settings(capacity: capacity)
        settings.restartAfter = max(1, restartAfter)
        stack = FrameStack(settings: settings)
        shared = StackedFrameBuffer.Shared(stack: stack)
        self.colorPreview = colorPreview
        self.holdsCaptured = holdsCaptured
        self.logger = logger
    }

    /// Forgets the scene: the next frame starts a new stack (a camera that starts again).
    public func reset() {
        shared.lock.withLock { stack.reset() }
        lastFolded = nil
        lastIdle = nil
    }

    /// The least milliseconds since the last fold before a frame captured at `time` is
    /// folded: ``busyFoldInterval`` while the recognizer has been busy that long,
    /// ``fullStackInterval`` for a full stack, else 0.
    private func foldInterval(at time: MonotonicInstant, recognizerBusy: Bool) -> Double {
        // A frame was left out as another scene: the next one decides at once.
        if stack.awaitsConfirmation { return 0 }
        if recognizerBusy, let lastIdle, time.milliseconds(since: lastIdle) >= Self.busyFoldInterval { return Self.busyFoldInterval }
        return stack.settings.capacity > 1 && stack.count >= stack.settings.capacity ? Self.fullStackInterval : 0
    }

    /// Folds `frame` into the stack and returns the stack's mean as a GREY frame with the
    /// newest frame's sequence and timestamp; nil when the stack is full and folded a
    /// frame less than ``fullStackInterval`` ago, when the recognizer has been busy
    /// for ``busyFoldInterval`` and a frame was folded less than that ago, or when the
    /// stack left the frame out (``FrameStack/Outcome/skipped(_:)``: another scene in
    /// this frame alone so far; the frame counts as dropped). `frame`'s buffer is given
    /// back on every path (with `holdsCaptured`, a folded frame's when the stacked frame is).
    /// - Parameters:
    ///   - recognizerBusy: a stacked frame is still waiting for the recognizer.
    ///   - beforeFolding: called once the frame is known to be folded, before the stack
    ///     changes: the place to withdraw the previous stacked frame from the mailbox
    ///     (given back there unread, it is never read out).
    /// - Throws: when the frame cannot be decoded (it is then rejected).
    public func fold(_ frame: Frame, recognizerBusy: Bool = false, beforeFolding: () -> Void = {}) throws(FrameError) -> Frame? {
        if !recognizerBusy || lastIdle.map({ frame.timestamp < $0 }) ?? true { lastIdle = frame.timestamp }
        if stack.count > 0, let lastFolded, frame.timestamp >= lastFolded,
           frame.timestamp.milliseconds(since: lastFolded) < foldInterval(at: frame.timestamp, recognizerBusy: recognizerBusy) {
            frame.giveBack()
            return nil
        }
        lastFolded = frame.timestamp
        do {
            try extractor.extract(frame, into: &luma)
        } catch {
            frame.giveBack()
            logger?.frameRejected(frame, reason: error.description)
            throw error
        }
        let captured = colorPreview?.keep(frame)
        let held = holdsCaptured ? HeldCapture(frame) : nil
        if held == nil { frame.giveBack() }
        beforeFolding()
        let (outcome, buffer) = shared.lock.withLock {
            // The previous stacked frame keeps its mean if it can still be read.
            latest?.detach()
            let outcome = stack.add(luma)
            let buffer = StackedFrameBuffer(shared: shared)
            latest = buffer
            return (outcome, buffer)
        }
        switch outcome {
        case let .started(reason):
            logger?.debug("stack started", [("reason", reason.rawValue), ("seq", "\(frame.sequence)")])
        case let .skipped(reason):
            logger?.debug("frame left out of the stack", [("reason", reason.rawValue), ("seq", "\(frame.sequence)")])
            return nil
        case .folded:
            break
        }
        var stacked = Frame(format: .grey, width: stack.width, height: stack.height, sequence: frame.sequence,
                            timestamp: frame.timestamp, buffer: buffer)
        stacked.stackInfo = StackedFrameInfo(stacked: stack.count, generation: stack.generation, shift: stack.shift,
                                             signature: stack.signature, capturedFormat: frame.format,
                                             isFull: stack.count >= stack.settings.capacity, captured: captured)
        stacked.held = held
        return stacked
    }
}
