import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// Runs Tesseract so that a recognition can always be left: its deadline and a stop
/// hold whatever Tesseract is doing (layout analysis included), at the price of one
/// thread per engine.
///
/// A recognition still running one more deadline (at least ``stopGrace``) after its
/// deadline is abandoned to its ``EngineThread`` and reported as
/// ``RecognitionError/deadlineExceeded(milliseconds:)``; the next frame gets a new
/// engine. (Tesseract's own monitor usually stops a late recognition soon after the
/// deadline; abandoning one that would have returned costs a model load and a busy
/// thread, which on a slow machine feeds on itself.) While an abandoned recognition is still running,
/// frames are refused (``RecognitionError/busy``) rather than started beside it, so a
/// stream of pathological frames costs at most two threads. A stop (``cancel()``) waits
/// ``stopGrace`` for the engine to notice, then abandons it the same way.
///
/// Not thread-safe, except ``cancel()`` and ``resume()``.
package final class IsolatedRecognizer: @unchecked Sendable {
    /// How long after a stop (and, at least, past its deadline) a recognition is waited
    /// for before it is abandoned, in seconds.
    package static let stopGrace = 0.25

    /// How long past `deadline` milliseconds a recognition is waited for: one more
    /// deadline, at least ``stopGrace``.
    package static func deadlineGrace(_ deadline: Int) -> Double { max(stopGrace, Double(deadline) / 1000) }

    private let language: String
    private let dataPath: String?
    private let pageSegmentation: Int
    private let whitelist: String?
    /// The engine in use; nil after one was abandoned, until the next recognition.
    /// Replaced only on the recognizing thread; read under `lock` by ``cancel()``.
    private var current: EngineThread?
    /// The last abandoned engine, until its thread has ended.
    private var abandoned: EngineThread?
    private let lock = NSLock()
    private var cancelled = false

    package init(language: String, dataPath: String?, pageSegmentation: Int, whitelist: String? = nil) throws(RecognitionError) {
        self.language = language
        self.dataPath = dataPath
        self.pageSegmentation = pageSegmentation
        self.whitelist = whitelist
        current = try EngineThread(language: language, dataPath: dataPath, pageSegmentation: pageSegmentation, whitelist: whitelist)
    }

    deinit {
        current?.retire()
    }

    /// Where the last finished recognition spent its time.
    package var lastTimings: RecognitionTimings { current?.lastTimings ?? RecognitionTimings() }

    /// Stops a recognition in progress, or the next one; any thread.
    package func cancel() {
        let engine = lock.withLock {
            cancelled = true
            return current
        }
        engine?.cancelEngine()
        engine?.wake()
    }

    /// Lets recognition run again after ``cancel()``.
    package func resume() {
        let engine = lock.withLock {
            cancelled = false
            return current
        }
        engine?.resumeEngine()
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// Recognizes `image` on the engine's thread, waiting at most its deadline plus
    /// ``deadlineGrace(_:)``.
    /// - Parameter settings: page segmentation and whitelist for this read (a zone's).
    package func recognize(_ image: GrayImage, resolution: Int, deadline: Int, symbols: Bool,
                   settings: ReadSettings? = nil) throws(RecognitionError) -> RecognizedText {
        let job = EngineThread.Job(image: image, resolution: resolution, deadline: deadline, symbols: symbols, settings: settings)
        guard case let .text(text) = try run(job) else { return RecognizedText() }
        return text
    }

    /// Tesseract's orientation check of `image` (the engine must be `osd`) under the same
    /// deadline and stop as a read: Tesseract cannot stop it midway, so past `deadline`
    /// plus ``deadlineGrace(_:)`` it is abandoned like a late read.
    /// - Returns: the estimate, nil when Tesseract could not tell.
    package func detectOrientation(_ image: GrayImage, resolution: Int, deadline: Int) throws(RecognitionError) -> OrientationEstimate? {
        let job = EngineThread.Job(image: image, resolution: resolution, deadline: deadline, symbols: false, orientation: true)
        guard case let .orientation(estimate) = try run(job) else { return nil }
        return estimate
    }

    private func run(_ job: EngineThread.Job) throws(RecognitionError) -> EngineThread.Answer {
        let deadline = job.deadline
        if isCancelled { throw .cancelled }
        if let previous = abandoned {
            guard !previous.isAlive else { throw .busy }
            abandoned = nil
        }
        let engine: EngineThread
        if let current {
            engine = current
        } else {
            engine = try EngineThread(language: language, dataPath: dataPath, pageSegmentation: pageSegmentation, whitelist: whitelist)
            lock.withLock { current = engine }
            if isCancelled { engine.cancelEngine() }
        }
        engine.start(job)
        let limit = Date(timeIntervalSinceNow: Double(deadline) / 1000 + Self.deadlineGrace(deadline))
        if let outcome = engine.outcome(until: limit, shouldStop: { isCancelled }) { return try outcome.get() }
        if isCancelled, engine.outcome(until: Date(timeIntervalSinceNow: Self.stopGrace)) != nil { throw .cancelled }
        engine.abandon()
        lock.withLock { current = nil }
        abandoned = engine
        throw isCancelled ? .cancelled : .deadlineExceeded(milliseconds: deadline)
    }

    /// Whether any engine thread in the process was abandoned inside Tesseract and has
    /// not returned: the process must then end without running Tesseract's static
    /// destructors under it (see `lectord`'s exit).
    package static var anyAbandonedRunning: Bool { EngineThread.abandonedRunning.load(ordering: .relaxed) > 0 }
}
