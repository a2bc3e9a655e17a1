import Foundation
import LectorEngine
import LectorProtocol
import LectorSystem

/// The recognizers of one camera: one ``TextRecognizer`` per slot, each with its own
/// Tesseract engine, all created at once (at start, or by a SIGHUP replacement), never
/// per frame. Slot `i` is used by one recognizer thread only; the pool lets other
/// threads stop, resume or replace them all.
///
/// Thread-safe: `lock` guards the recognizers in force and the ones in use.
public final class RecognizerPool: @unchecked Sendable {
    /// Recognizers (and threads) in the pool.
    public let count: Int
    private let lock = NSLock()
    /// The recognizer each slot uses for its next frame.
    private var current: [TextRecognizer]
    /// The recognizer each slot is using (the old one while a replacement waits).
    private var active: [TextRecognizer?]
    private var cancelled = false

    /// Loads `count` Tesseract engines with `options`.
    /// - Throws: when Tesseract cannot start (the first failure).
    public init(count: Int, options: RecognizerOptions) throws(RecognitionError) {
        precondition(count >= 1, "a pool has at least one recognizer")
        self.count = count
        current = try Self.make(count, options: options)
        active = Array(repeating: nil, count: count)
    }

    /// `count` recognizers with `options`, sharing the first one's text-line detectors
    /// (``DetectorPool``: as many networks as detections run at once).
    private static func make(_ count: Int, options: RecognizerOptions) throws(RecognitionError) -> [TextRecognizer] {
        let first = try TextRecognizer(options: options)
        var made = [first]
        for _ in 1..<count { made.append(try TextRecognizer(options: options, sharing: first.detectors)) }
        return made
    }

    /// The recognizer slot `slot` uses for the frame it is about to recognize (on that
    /// slot's thread).
    public func begin(slot: Int) -> TextRecognizer {
        lock.withLock {
            active[slot] = current[slot]
            return current[slot]
        }
    }

    /// Where slot `slot`'s last recognition spent its time inside Tesseract.
    public func lastTimings(slot: Int) -> RecognitionTimings {
        lock.withLock { active[slot] ?? current[slot] }.lastTimings
    }

    /// The layout the next frames are read with and, for `layout auto` without the
    /// detector, why.
    public var layout: (layout: ResolvedLayout, note: String?) {
        lock.withLock { (current[0].layout, current[0].layoutNote) }
    }

    /// With `lang auto`: the traineddata installed (nil without `auto`).
    public var installedLanguages: [String]? { lock.withLock { current[0].installedLanguages } }

    /// Whether the detector's lines are read with the neural line recognizer too and, for
    /// `--engine auto` without it, why.
    public var engine: (neural: Bool, note: String?) {
        lock.withLock { (current[0].readsNeural, current[0].engineNote) }
    }

    /// The settings the next frames are recognized with.
    public var options: RecognizerOptions { lock.withLock { current[0].options } }

    /// Stops every recognition in progress, or the next ones (shutdown); any thread.
    public func cancel() {
        lock.withLock {
            cancelled = true
            for recognizer in current { recognizer.cancel() }
            for recognizer in active { recognizer?.cancel() }
        }
    }

    /// Lets recognition run again after ``cancel()``.
    public func resume() {
        lock.withLock {
            cancelled = false
            for recognizer in current { recognizer.resume() }
            for recognizer in active { recognizer?.resume() }
        }
    }

    /// Recognizes the following frames with `options` (SIGHUP): `count` new engines are
    /// loaded here, on the caller's thread; each slot takes its new one before its next
    /// frame, a recognition in progress finishes with the old one.
    /// - Throws: when Tesseract cannot start with `options` (the old recognizers stay).
    public func replace(options: RecognizerOptions) throws(RecognitionError) {
        let made = try Self.make(count, options: options)
        lock.withLock {
            if cancelled { for recognizer in made { recognizer.cancel() } }
            current = made
        }
    }
}
