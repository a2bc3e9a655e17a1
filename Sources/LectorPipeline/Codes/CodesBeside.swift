import Foundation
import LectorCapture
import LectorImaging
import LectorProtocol
import LectorRecognition
import LectorSystem
import Synchronization

/// Codes read beside a text read: while a camera's recognizers are all reading text (a
/// read can take seconds on a slow core), the newest frame waiting in the mailbox is
/// copied (its luma, without taking it) and its codes read, so a code is announced
/// within a frame or two of appearing. Each frame is read for codes once: the recognizer
/// skips the codes of a frame read here (``CodeWatch/claim(_:)``), and a still scene
/// whose full stack was read for codes is not read again.
final class CodesBeside: @unchecked Sendable {
    /// How often the mailbox is looked at while text is read.
    static let interval = 0.04
    private let stopped = Atomic<Bool>(false)

    /// Ends the thread at its next look (the camera's run ended).
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Looks at `mailbox` every ``interval`` while `isReading()` says text is read, and
    /// reads the codes of each new frame waiting there; returns once stopped.
    func run(mailbox: LatestFrameMailbox, watch: CodeWatch, isReading: () -> Bool,
             settings: () -> (options: RecognizerOptions, orientation: ImageOrientation),
             publish: (CodePublication) -> Void) {
        let extractor = LumaExtractor()
        var luma = GrayImage(width: 0, height: 0)
        var upright = GrayImage(width: 0, height: 0)
        var pause = Self.interval
        while !stopped.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: pause)
            let (options, orientation) = settings()
            // Codes off (a text camera): a look twice a second, for a reload that turns them on.
            pause = CodeWatch.places(options).isEmpty ? 0.5 : Self.interval
            guard pause == Self.interval, isReading() else { continue }
            let taken: (sequence: UInt32, time: MonotonicInstant)? = mailbox.withWaitingFrame { frame in
                guard watch.claim(time: frame.timestamp, stack: frame.stackInfo, beside: true) else { return nil }
                do { try extractor.extract(frame, into: &luma) } catch { return nil }
                return (frame.sequence, frame.timestamp)
            }
            guard let taken else { continue }
            let transform = OrientationTransform(orientation: orientation, sourceWidth: luma.width, sourceHeight: luma.height)
            transform.apply(luma, into: &upright)
            let news = watch.look(at: upright, transform: transform, options: options, sequence: taken.sequence,
                                  time: taken.time)
            if !news.isEmpty {
                publish(CodePublication(device: news[0].device, codes: news, upright: upright, unixTime: taken.time.unixTime))
            }
        }
    }
}
