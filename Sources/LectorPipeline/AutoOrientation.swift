import Foundation
import LectorEngine
import LectorImaging
import LectorProtocol
import LectorRecognition
import LectorSystem

/// `rotation auto` for one camera: decides when the quarter turn is checked again and
/// runs the check (``OrientationDetector``) on the captured luma before it is turned
/// upright, so that the frame checked is already read the new way.
///
/// A check costs one OSD run (measured: about as long as recognizing the frame), so it
/// is not made for every frame: with live text's stack, when the stack starts again (a
/// new scene) and, when that check was unsure, once more when the scene's stack first
/// fills (its clearest image); without a stack, every ``recheckSeconds`` (every
/// ``retrySeconds`` while nothing was found); and after any change of the orientation
/// settings. An unsure check keeps the turn in force.
///
/// Thread-safe: with several recognizers, one checks while the others go on with the
/// turn in force.
public final class AutoOrientation: @unchecked Sendable {
    /// Seconds between checks without a stack, once a turn was found.
    public static let recheckSeconds = 5.0
    /// Seconds between checks without a stack while nothing was found.
    public static let retrySeconds = 1.0

    /// When a check is due; the pure part of the policy.
    public struct Schedule: Sendable, Equatable {
        private var revision: Int?
        private var generation: Int?
        private var checkedFull = false
        private var lastCheck: MonotonicInstant?
        private var found = false

        public init() {}

        /// Whether to check a frame of stack `generation` (nil: no stack) whose stack is
        /// `full`, captured at `time`, with the orientation settings at `revision`.
        public func isDue(generation: Int?, full: Bool, revision: Int, at time: MonotonicInstant) -> Bool {
            guard let lastCheck, revision == self.revision else { return true }
            if let generation {
                if generation != self.generation { return true }
                return full && !checkedFull && !found
            }
            return time.milliseconds(since: lastCheck) >= (found ? recheckSeconds : retrySeconds) * 1000
        }

        /// Notes a check of such a frame and whether it found a turn.
        public mutating func checked(generation: Int?, full: Bool, revision: Int, at time: MonotonicInstant, found: Bool) {
            if generation != self.generation { checkedFull = false }
            self.revision = revision
            self.generation = generation
            checkedFull = checkedFull || full
            lastCheck = time
            self.found = found
        }
    }

    private let lock = NSLock()
    private var schedule = Schedule()
    private var detector: OrientationDetector?
    /// The detector as ``cancel()`` reaches it without waiting for a check, and whether
    /// checks are stopped (guarded by `stopLock`).
    private let stopLock = NSLock()
    private var stoppable: OrientationDetector?
    private var stopped = false
    private var dataPath: String?
    private let logger: Logger
    /// Checks made and their total time (for the measurement script and tests).
    private var checks = 0
    private var totalMilliseconds = 0.0

    /// - Parameter dataPath: where `osd.traineddata` is (nil: Tesseract's default).
    public init(dataPath: String?, logger: Logger) {
        self.dataPath = dataPath
        self.logger = logger
    }

    /// Loads the OSD model now rather than at the first check, so that a missing model
    /// is said at start.
    /// - Throws: when Tesseract cannot load `osd` (`tesseract-ocr-osd` not installed).
    public func prepare() throws(RecognitionError) {
        lock.lock()
        defer { lock.unlock() }
        try makeDetector()
    }

    /// Stops a check in progress (it is abandoned after ``IsolatedRecognizer``'s stop
    /// grace) and the next ones, until ``resume()``; any thread.
    public func cancel() {
        stopLock.withLock {
            stopped = true
            return stoppable
        }?.cancel()
    }

    /// Lets checks run again after ``cancel()``.
    public func resume() {
        stopLock.withLock {
            stopped = false
            return stoppable
        }?.resume()
    }

    /// Loads the OSD model when not done yet (under `lock`).
    private func makeDetector() throws(RecognitionError) {
        guard detector == nil else { return }
        let made = try OrientationDetector(dataPath: dataPath)
        detector = made
        if stopLock.withLock({ stoppable = made; return stopped }) { made.cancel() }
    }

    /// Checks made so far and their mean time in milliseconds.
    public var checkStatistics: (count: Int, meanMilliseconds: Double) {
        lock.withLock { (checks, checks == 0 ? 0 : totalMilliseconds / Double(checks)) }
    }

    /// Checks the turn of captured image `luma` when due and `control` is automatic, and
    /// records what was found in `control`. Returns at once when another recognizer is
    /// checking.
    /// - Parameters:
    ///   - stack: the stacked frame's info (nil without live text's stack).
    ///   - deadline: milliseconds the check may take: the camera's `--deadline-ms`, as a
    ///     read (a check that runs late is abandoned and the turn in force stays).
    public func update(_ luma: GrayImage, stack: StackedFrameInfo?, at time: MonotonicInstant, control: OrientationControl,
                       deadline: Int) {
        let settings = control.current
        guard settings.isAutomatic, lock.try() else { return }
        defer { lock.unlock() }
        let revision = control.revision
        guard schedule.isDue(generation: stack?.generation, full: stack?.isFull ?? false, revision: revision, at: time) else { return }
        let started = MonotonicInstant.now()
        var estimate: OrientationEstimate?
        // The check's own time (the warning's after_ms) starts once the detector is made.
        var checking = started
        do {
            try makeDetector()
            checking = MonotonicInstant.now()
            estimate = try detector?.estimate(luma, mirrored: settings.mirror ?? false, deadline: deadline)
            logger.clearOnce("orientation check")
        } catch .cancelled {
            return
        } catch .deadlineExceeded, .busy {
            // Like a read that runs late: said once, the turn in force stays, and the check
            // is due again on the schedule (an abandoned one still running refuses the next).
            logger.once("orientation check", .warning, "orientation check ran out of time; keeping the orientation in force",
                        [("deadline_ms", "\(deadline)"),
                         ("after_ms", String(format: "%.0f", MonotonicInstant.now().milliseconds(since: checking)))])
        } catch {
            logger.once("orientation check", .warning, "cannot find the orientation", [("reason", "\(error)")])
        }
        let milliseconds = MonotonicInstant.now().milliseconds(since: started)
        checks += 1
        totalMilliseconds += milliseconds
        let confident = estimate.map { $0.confidence >= OrientationDetector.minimumConfidence } ?? false
        schedule.checked(generation: stack?.generation, full: stack?.isFull ?? false, revision: revision, at: time, found: confident)
        logger.debug("orientation checked", [("rotation", estimate.map { "\($0.rotation)" } ?? "unknown"),
                                             ("confidence", estimate.map { String(format: "%.2f", $0.confidence) } ?? "0"),
                                             ("ms", String(format: "%.1f", milliseconds))])
        if let estimate, confident, control.setDetectedRotation(estimate.rotation) {
            logger.info("orientation found", [("rotation", "\(estimate.rotation)"),
                                              ("orientation", control.imageOrientation.description),
                                              ("confidence", String(format: "%.2f", estimate.confidence))])
        }
    }
}
