import Foundation
import LectorImaging
import LectorSystem

/// The text-line detectors of one camera's recognizers: one network that they take by
/// turns, and more only for reads that detect every frame.
///
/// A network's buffers are most of a detector recognizer's memory (measured: 87 MB at
/// 640×480, about 255 MB at 720p and above). With live text the recognizers re-read the
/// lines they know and detect only when the scene changes and now and then, so they
/// share one network and wait for it when two detect at once (measured at 1280×720
/// with two recognizers: 327 MB, where a network each took 601 MB). A read without a
/// scene (`--stack off`: every frame is detected) loads another network when all are
/// busy, so that the pool reads as fast as with one detector per recognizer.
///
/// Thread-safe. Owner of its ``TextLineDetector``s, each used by one thread at a time.
public final class DetectorPool: @unchecked Sendable {
    /// The model file every detector loads.
    public let modelPath: String
    private let threads: Int
    /// Guards `idle` and `loaded`; signalled when a detector comes back.
    private let lock = NSCondition()
    /// Detectors loaded and not detecting now.
    private var idle: [TextLineDetector]
    private var loaded: Int
    /// ``probeMilliseconds()``'s time, once taken.
    private var probed: Double?

    /// Loads the first detector at once, so that a model that cannot be loaded is said
    /// at start, not at the first frame.
    /// - Parameter threads: ONNX Runtime's threads inside an operator, per detector.
    public init(modelPath: String, threads: Int) throws(DetectorError) {
        self.modelPath = modelPath
        self.threads = threads
        idle = [try TextLineDetector(modelPath: modelPath, threads: threads)]
        loaded = 1
    }

    /// Networks loaded so far: the most detections that ran at once.
    public var count: Int { lock.withLock { loaded } }

    /// Finds the text lines of `image` (``TextLineDetector/detect(_:)``) with an idle
    /// detector.
    /// - Parameters:
    ///   - waiting: when every detector is busy, wait for one (live text's rare
    ///     detections); false: load another (a read that detects every frame).
    ///   - maximumSide: the longer side the image is shrunk to at most (nil: the model's
    ///     usual, ``DetectorParameters/maximumSide``).
    public func detect(_ image: GrayImage, waiting: Bool, maximumSide: Int? = nil) throws(DetectorError) -> [DetectedLine] {
        let detector = try take(waiting: waiting)
        defer {
            lock.withLock { idle.append(detector) }
            lock.signal()
        }
        return try detector.detect(image, maximumSide: maximumSide)
    }

    /// Milliseconds one detection of ``DetectionSize/probe`` took: timed at the first call
    /// (a recognizer being loaded, or its first scene), then kept for every recognizer
    /// that shares these detectors: what a detection costs on this machine.
    func probeMilliseconds() throws(DetectorError) -> Double {
        if let probed = lock.withLock({ probed }) { return probed }
        let started = MonotonicInstant.now()
        _ = try detect(DetectionSize.probe, waiting: true)
        let milliseconds = MonotonicInstant.now().milliseconds(since: started)
        lock.withLock { probed = probed ?? milliseconds }
        return milliseconds
    }

    private func take(waiting: Bool) throws(DetectorError) -> TextLineDetector {
        let taken: TextLineDetector? = lock.withLock {
            while idle.isEmpty && waiting && loaded > 0 { lock.wait() }
            if let detector = idle.popLast() { return detector }
            loaded += 1
            return nil
        }
        if let taken { return taken }
        do {
            return try TextLineDetector(modelPath: modelPath, threads: threads)
        } catch {
            lock.withLock { loaded -= 1 }
            throw error
        }
    }
}
