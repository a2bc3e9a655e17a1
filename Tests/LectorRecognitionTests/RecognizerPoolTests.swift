import Foundation
@testable import LectorCapture
@testable import LectorImaging
@testable import LectorLive
@testable import LectorPipeline
@testable import LectorRecognition
@testable import LectorSystem
import LectorTestSupport
import Testing

@Suite("Recognizer pool")
struct RecognizerPoolTests {
    @Test("--recognizers takes auto or 1-16", arguments: [
        ("auto", RecognizerCount.auto), ("1", .fixed(1)), ("2", .fixed(2)), ("16", .fixed(16)),
        ("0", nil), ("17", nil), ("-1", nil), ("two", nil), ("", nil),
    ] as [(String, RecognizerCount?)])
    func parses(text: String, expected: RecognizerCount?) {
        #expect(RecognizerCount(text) == expected, "'\(text)'")
    }

    @Test("auto: one per core beyond the first, shared among cameras, 1 to 4", arguments: [
        (1, 1, 1), (2, 1, 1), (4, 1, 3), (5, 1, 4), (16, 1, 4), (4, 2, 1), (8, 2, 3), (2, 4, 1),
    ])
    func auto(cores: Int, cameras: Int, expected: Int) {
        #expect(RecognizerCount.auto.resolved(cores: cores, cameras: cameras) == expected)
        #expect(RecognizerCount.fixed(3).resolved(cores: cores, cameras: cameras) == 3)
    }

    /// A deadline no loaded machine reaches: a recognition never fails here for time.
    static var patient: RecognizerOptions {
        var options = RecognizerOptions.untimed
        options.deadlineMilliseconds = 120_000
        return options
    }

    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [(capture: MonotonicInstant, text: String)] = []
        func add(_ publication: Publication) {
            lock.withLock { items.append((publication.text.captureTime, publication.text.text.text)) }
        }
        var all: [(capture: MonotonicInstant, text: String)] { lock.withLock { items } }
    }

    @Test("a result that finishes after a newer one was published is dropped and counted; tracks see capture order")
    func lateResultDropped() throws {
        let published = Published()
        let counters = FrameCounters()
        var live = LiveSettings()
        live.stack = nil
        live.gate = false
        let loop = try RecognitionLoop(device: "test", options: Self.patient, recognizers: 2, live: live,
                                       mailbox: LatestFrameMailbox(), counters: counters, orientation: OrientationControl(),
                                       logger: Logger(label: "test", level: .error)) { published.add($0) }
        #expect(loop.recognizers == 2)
        let luma = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        func frame(_ time: MonotonicInstant, _ sequence: UInt32) -> Frame {
            Frame(format: .grey, width: luma.width, height: luma.height, sequence: sequence, timestamp: time,
                  buffer: HeapFrameBuffer(copying: luma.pixels))
        }
        let older = MonotonicInstant.now(), newer = older.adding(milliseconds: 33), newest = older.adding(milliseconds: 66)
        // The newer frame's recognizer finishes first; the older frame's result comes late.
        loop.process(frame(newer, 2), slot: 1)
        loop.process(frame(older, 1), slot: 0)
        loop.process(frame(newest, 3), slot: 0)
        let results = published.all
        #expect(results.map(\.capture) == [newer, newest], "the late result is not published")
        #expect(results.allSatisfy { $0.text.contains("HELLO") }, "each recognizer reads the text: \(results.map(\.text))")
        let counts = counters.snapshot
        #expect(counts.recognized == 2, "\(counts)")
        #expect(counts.dropped == 1, "the late result counts as dropped")
    }

    @Test("two recognizer threads on one mailbox publish strictly increasing capture times")
    func concurrentOrder() throws {
        let published = Published()
        let counters = FrameCounters()
        let mailbox = LatestFrameMailbox()
        let loop = try RecognitionLoop(device: "test", options: Self.patient, recognizers: 2,
                                       mailbox: mailbox, counters: counters, orientation: OrientationControl(),
                                       logger: Logger(label: "test", level: .error)) { published.add($0) }
        let luma = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let done = DispatchGroup()
        for slot in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                loop.run(slot: slot)
                done.leave()
            }
        }
        let start = MonotonicInstant.now()
        for sequence in 0..<40 {
            let frame = Frame(format: .grey, width: luma.width, height: luma.height, sequence: UInt32(sequence),
                              timestamp: start.adding(milliseconds: Double(sequence) * 10), buffer: HeapFrameBuffer(copying: luma.pixels))
            if mailbox.post(frame) { counters.countDropped() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        _ = mailbox.waitUntilEmpty()
        mailbox.close()
        done.wait()
        let captures = published.all.map(\.capture)
        #expect(captures.count >= 2)
        #expect(zip(captures, captures.dropFirst()).allSatisfy { $0 < $1 }, "capture times strictly increase")
        #expect(counters.snapshot.recognized == captures.count)
    }
}
