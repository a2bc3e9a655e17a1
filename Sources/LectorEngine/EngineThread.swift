import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// One ``TesseractEngine`` on a thread of its own, so that the thread asking for a
/// recognition can stop waiting for it.
///
/// Tesseract consults its cancel callback and deadline only while it recognizes words;
/// its layout analysis of a large noisy frame can run for tens of seconds without
/// looking. ``IsolatedRecognizer`` waits for this thread with a timeout and, when it
/// passes, *abandons* it: the thread finishes Tesseract's call in the background, drops
/// the result, ends and frees its engine.
final class EngineThread: @unchecked Sendable {
    /// One recognition (or, on an `osd` engine, one orientation check) to run.
    struct Job {
        var image: GrayImage
        var resolution: Int
        var deadline: Int
        var symbols: Bool
        var settings: ReadSettings? = nil
        /// Tesseract's orientation and script detection instead of a read.
        var orientation = false
    }

    /// What a job gave.
    enum Answer {
        case text(RecognizedText)
        case orientation(OrientationEstimate?)
    }

    /// Engine threads abandoned while inside Tesseract and not yet back, process-wide.
    static let abandonedRunning = Atomic<Int>(0)

    // `condition` guards every var below; `engine` is used by the thread only, apart
    // from its thread-safe cancel() and resume().
    private let condition = NSCondition()
    private let engine: TesseractEngine
    private var job: Job?
    private var busy = false
    private var outcome: Result<Answer, RecognitionError>?
    private var timings = RecognitionTimings()
    private var abandoned = false
    private var retired = false
    private var alive = true

    /// Loads the engine (in the caller's thread, so that initialization errors surface
    /// there) and starts the thread.
    init(language: String, dataPath: String?, pageSegmentation: Int, whitelist: String? = nil) throws(RecognitionError) {
        engine = try TesseractEngine(language: language, dataPath: dataPath, pageSegmentation: pageSegmentation, whitelist: whitelist)
        let thread = Thread { [self] in serve() }
        thread.name = "lector-tesseract"
        thread.start()
    }

    /// Asks the engine to stop at its next check; any thread.
    func cancelEngine() { engine.cancel() }

    /// Lets the engine run again after ``cancelEngine()``.
    func resumeEngine() { engine.resume() }

    /// Where the last finished recognition spent its time.
    var lastTimings: RecognitionTimings { locked { timings } }

    /// Whether the thread has not ended yet (an abandoned one ends when Tesseract returns).
    var isAlive: Bool { locked { alive } }

    /// Hands `job` to the thread.
    func start(_ job: Job) {
        locked {
            precondition(!abandoned && !retired && self.job == nil && !busy && outcome == nil, "one job at a time")
            self.job = job
            condition.broadcast()
        }
    }

    /// Waits for the job's outcome until `limit`, or until `shouldStop` is true when
    /// ``wake()`` is called. Returns nil when the wait ended first (the job goes on).
    func outcome(until limit: Date, shouldStop: () -> Bool = { false }) -> Result<Answer, RecognitionError>? {
        locked {
            while outcome == nil && !shouldStop() {
                if !condition.wait(until: limit) { break }
            }
            defer { outcome = nil }
            return outcome
        }
    }

    /// Wakes a waiting ``outcome(until:shouldStop:)`` so it checks its stop condition.
    func wake() { locked { condition.broadcast() } }

    /// Leaves the job in progress behind: the thread ends when Tesseract returns.
    func abandon() {
        locked {
            abandoned = true
            job = nil  // not started yet: never will be
            if busy { Self.abandonedRunning.add(1, ordering: .relaxed) }
            condition.broadcast()
        }
        engine.cancel()
    }

    /// Ends the thread once it is idle (the recognizer is going away).
    func retire() {
        locked {
            retired = true
            condition.broadcast()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    private func serve() {
        while true {
            condition.lock()
            while job == nil && !retired && !abandoned { condition.wait() }
            guard let next = job, !abandoned else {
                alive = false
                condition.unlock()
                return
            }
            job = nil
            busy = true
            condition.unlock()

            let result = Result { () throws(RecognitionError) -> Answer in
                if next.orientation { return .orientation(try engine.detectOrientation(next.image, resolution: next.resolution)) }
                return .text(try engine.recognize(next.image, resolution: next.resolution, deadline: next.deadline,
                                                  symbols: next.symbols, settings: next.settings))
            }

            condition.lock()
            busy = false
            if abandoned {
                Self.abandonedRunning.subtract(1, ordering: .relaxed)
                alive = false
                condition.unlock()
                return
            }
            outcome = result
            timings = engine.lastTimings
            condition.broadcast()
            condition.unlock()
        }
    }
}
