import Foundation
@testable import LectorCapture
@testable import LectorImaging
@testable import LectorPipeline
import LectorTestSupport
import Synchronization
import Testing

/// A buffer that records being given back, to check the mailbox's ownership rules.
final class TrackedBuffer: FrameBuffer, @unchecked Sendable {
    let returns = Mutex(0)
    private let storage = [UInt8](repeating: 0, count: 16)
    var bytes: UnsafeRawBufferPointer { storage.withUnsafeBytes { $0 } }
    func giveBack() { returns.withLock { $0 += 1 } }
    var returnCount: Int { returns.withLock { $0 } }
}

@Suite("Latest-frame mailbox")
struct MailboxTests {
    static func frame(_ sequence: UInt32, _ buffer: TrackedBuffer) -> Frame {
        Frame(format: .grey, width: 4, height: 4, sequence: sequence, timestamp: .now(), buffer: buffer)
    }

    @Test("a new frame replaces an unconsumed one, which goes back to its source at once")
    func replaces() {
        let mailbox = LatestFrameMailbox()
        let first = TrackedBuffer(), second = TrackedBuffer()
        #expect(mailbox.post(Self.frame(1, first)) == false)
        #expect(mailbox.post(Self.frame(2, second)) == true)
        #expect(first.returnCount == 1 && second.returnCount == 0)
        #expect(mailbox.take()?.sequence == 2)
        #expect(!mailbox.isOccupied)
    }

    @Test("close wakes a waiting taker and gives back the waiting frame")
    func close() async {
        let mailbox = LatestFrameMailbox()
        let buffer = TrackedBuffer()
        mailbox.post(Self.frame(1, buffer))
        #expect(mailbox.close())
        #expect(buffer.returnCount == 1)
        #expect(mailbox.take() == nil)
        let late = TrackedBuffer()
        #expect(mailbox.post(Self.frame(2, late)))
        #expect(late.returnCount == 1)
    }

    /// A fast producer and a slow consumer: frames are dropped, never queued, and the
    /// accounting adds up.
    @Test("fast source, slow recognizer: captured = recognized + dropped + in flight")
    func accounting() {
        let mailbox = LatestFrameMailbox()
        let counters = FrameCounters()
        let sink = CameraFrameSink(mailbox: mailbox, counters: counters)
        let buffers = (0..<200).map { _ in TrackedBuffer() }
        let consumerDone = DispatchSemaphore(value: 0)
        let consumer = Thread {
            defer { consumerDone.signal() }
            while let frame = mailbox.take() {
                Thread.sleep(forTimeInterval: 0.002)  // a recognizer slower than the source
                frame.giveBack()
                counters.countRecognized()
                let snapshot = counters.snapshot
                precondition(snapshot.inFlight <= 2, "more than one waiting and one in recognition")
            }
        }
        consumer.start()
        for (index, buffer) in buffers.enumerated() {
            sink.deliver(Self.frame(UInt32(index), buffer))
            Thread.sleep(forTimeInterval: 0.0002)
        }
        _ = mailbox.waitUntilEmpty()
        if mailbox.close() { counters.countDropped() }
        consumerDone.wait()  // the frame in recognition is finished, however loaded the machine
        let counts = counters.snapshot
        #expect(counts.captured == 200)
        #expect(counts.dropped > 0, "a slow recognizer must cause drops")
        #expect(counts.captured == counts.recognized + counts.dropped + counts.rejected + counts.inFlight)
        #expect(counts.inFlight == 0)
        #expect(buffers.allSatisfy { $0.returnCount == 1 }, "every buffer goes back exactly once")
    }
}
