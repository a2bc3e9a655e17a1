import CV4L2
import Foundation
import Glibc
@testable import LectorCapture
@testable import LectorDaemon
@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorRecognition
@testable import LectorSystem
import LectorTestSupport
import Synchronization
import Testing

/// Capture against ``FakeV4L2Device``: the faults real drivers cannot produce on demand.
/// (The real driver is exercised by tests/vm/run.)
@Suite("V4L2 capture at the syscall seam")
struct CaptureTests {
    let logger = Logger(label: "test", level: .error)

    @Test("EINTR is retried, other errnos are typed errors naming the request")
    func eintr() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.faults = [.init(call: "open", errno: EINTR, count: 2), .init(call: "VIDIOC_QUERYCAP", errno: EINTR, count: 3)] }
        let device = try V4L2Device(path: "/dev/video-fake", syscalls: fake)
        #expect(try device.capabilities().card == "Fake Camera")
        #expect(fake.count("open") == 3 && fake.count("VIDIOC_QUERYCAP") == 4, "each EINTR retried")
        fake.with { $0.faults = [.init(call: "VIDIOC_G_FMT", errno: EIO)] }
        #expect(throws: SystemError(errno: EIO, call: "VIDIOC_G_FMT")) { try device.format() }
    }

    @Test("a node without VIDEO_CAPTURE (a UVC metadata node) is refused with a clear message")
    func metadataNode() {
        let fake = FakeV4L2Device()
        fake.with { $0.deviceCaps = UInt32(0x0080_0000 | V4L2_CAP_STREAMING) }  // V4L2_CAP_META_CAPTURE
        #expect(throws: CaptureError.notCapture(path: "/dev/video-fake", card: "Fake Camera")) {
            try V4L2Source(settings: .fake(fake), logger: logger)
        }
        #expect(fake.with { $0.openDescriptors.isEmpty }, "the probe closed the node")
    }

    @Test("--format that the camera does not offer is refused at start")
    func formatNotOffered() {
        let fake = FakeV4L2Device()
        var settings = CaptureSettings.fake(fake)
        settings.format = .nv12
        #expect(throws: CaptureError.negotiation(.formatNotOffered(asked: .nv12, offered: ["GREY"]))) {
            try V4L2Source(settings: settings, logger: logger)
        }
    }

    @Test("a camera that is not plugged in yet is waited for, not refused")
    func notPluggedIn() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.present = false }
        _ = try V4L2Source(settings: .fake(fake), logger: logger)
    }

    @Test("orientation controls become defaults")
    func metadata() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.controls = [LECTOR_CID_CAMERA_ORIENTATION: 0, LECTOR_CID_CAMERA_SENSOR_ROTATION: 90] }
        let source = try V4L2Source(settings: .fake(fake), logger: logger)
        #expect(source.metadata == CameraMetadata(position: .front, rotation: 270))
        #expect(SourceFactory.orientation(for: CameraSpec(source: .device(path: "/dev/video-fake")), source: source).rotation == 270)
    }

    @Test("one grab dequeues until EAGAIN, keeps the newest frame and gives the older ones back at once")
    func newestOnly() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.fillOnPoll = false }
        let session = try CaptureSession(settings: .fake(fake), logger: logger)
        #expect(fake.queuedCount == 4)
        fake.fill(3)
        let grab = try session.grab(timeoutMilliseconds: 10)
        let frame = try #require(grab.frame)
        #expect(frame.sequence == 2, "the newest")
        #expect(grab.skipped == 2 && grab.rejected == 0)
        #expect(fake.queuedCount == 3, "the two older buffers are queued again; the newest is lent")
        #expect(frame.bytes.count == 64 * 48 && frame.bytes[0] == 2, "zero-copy view of the driver buffer")
        frame.giveBack()
        frame.giveBack()  // a second give-back does nothing
        #expect(fake.queuedCount == 4)
        session.close()
    }

    @Test("damaged buffers are rejected and queued again", arguments: [
        (UInt32(V4L2_BUF_FLAG_ERROR), Int?.none),
        (UInt32(0), Int?.some(100)),  // bytesused shorter than a 64x48 GREY frame
    ])
    func rejects(flags: UInt32, bytesUsed: Int?) throws {
        let fake = FakeV4L2Device()
        fake.with { $0.fillOnPoll = false; $0.nextFrames = [(flags, bytesUsed)] }
        let session = try CaptureSession(settings: .fake(fake), logger: logger)
        fake.fill(1)
        let grab = try session.grab(timeoutMilliseconds: 10)
        #expect(grab.frame == nil && grab.rejected == 1)
        #expect(fake.queuedCount == 4)
        session.close()
    }

    @Test("MJPEG frames without SOI/EOI markers are rejected")
    func brokenJPEG() throws {
        let fake = FakeV4L2Device()
        fake.with {
            $0.formats = [.init(fourcc: PixelFormat.mjpeg.rawValue, compressed: true)]
            $0.fillOnPoll = false
        }
        let session = try CaptureSession(settings: .fake(fake), logger: logger)
        fake.fill(2)  // the fake fills buffers with a constant byte: no markers
        let grab = try session.grab(timeoutMilliseconds: 10)
        #expect(grab.frame == nil && grab.rejected == 2)
        session.close()
    }

    @Test("an MJPEG frame is read from the mapped buffer without a copy, decoded and recognized")
    func mjpeg() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("hello-640x480.jpg"))))
        let fake = FakeV4L2Device()
        fake.with {
            $0.formats = [.init(fourcc: PixelFormat.mjpeg.rawValue, compressed: true, sizes: [(640, 480)])]
            $0.content = jpeg + [0, 0, 0]  // UVC cameras pad with zeros after EOI
            $0.fillOnPoll = false
        }
        let session = try CaptureSession(settings: .fake(fake), logger: logger)
        fake.fill(1)
        let frame = try #require(try session.grab(timeoutMilliseconds: 10).frame)
        #expect(frame.format == .mjpeg && frame.bytesUsed == jpeg.count + 3)
        var luma = GrayImage(width: 0, height: 0)
        try LumaExtractor().extract(frame, into: &luma)
        frame.giveBack()
        #expect(luma.width == 640 && luma.height == 480)
        var options = RecognizerOptions.untimed
        options.deadlineMilliseconds = 30_000
        let text = try TextRecognizer(options: options).recognize(luma).text
        #expect(text.contains("HELLO LECTOR"), "read \(text)")
        session.close()
    }

    @Test("mappings outlive a lost device until the borrowed frame is given back")
    func unmapAfterGiveBack() throws {
        let fake = FakeV4L2Device()
        let session = try CaptureSession(settings: .fake(fake), logger: logger)
        let frame = try #require(try session.grab(timeoutMilliseconds: 10).frame)
        fake.with { $0.gone = true }
        #expect(throws: CaptureError.system(SystemError(errno: ENODEV, call: "VIDIOC_DQBUF"))) {
            try session.grab(timeoutMilliseconds: 10)
        }
        session.close()
        #expect(fake.with { $0.mappedCount } == 4, "still mapped: the recognizer reads the frame")
        #expect(frame.bytes.count == 64 * 48)
        frame.giveBack()
        #expect(fake.with { $0.mappedCount } == 0, "unmapped with the last give-back")
    }

    /// Runs a source on its own thread with a slow fake recognizer; returns what it saw.
    final class Harness: @unchecked Sendable {
        let mailbox = LatestFrameMailbox()
        let counters = FrameCounters()
        let stop = StopSignal()
        let states = Mutex<[DeviceInfo]>([])
        let maxInFlight = Mutex(0)
        let ended = DispatchGroup()
        let recognizeSeconds: Double

        init(recognizeSeconds: Double = 0.01) { self.recognizeSeconds = recognizeSeconds }

        func start(_ source: V4L2Source) {
            let sink = CameraFrameSink(mailbox: mailbox, counters: counters) { [self] info in states.withLock { $0.append(info) } }
            ended.enter()
            ended.enter()
            Thread.detachNewThread { [self] in
                try? source.run(into: sink, stop: stop)
                if mailbox.close() { counters.countDropped() }
                ended.leave()
            }
            Thread.detachNewThread { [self] in
                while let frame = mailbox.take() {
                    let inFlight = counters.snapshot.inFlight
                    maxInFlight.withLock { $0 = max($0, inFlight) }
                    Thread.sleep(forTimeInterval: recognizeSeconds)  // slower than a frame: frames are dropped
                    frame.giveBack()
                    counters.countRecognized()
                }
                ended.leave()
            }
        }

        /// Waits until `condition` holds (up to `seconds`: a wait, not a measure of speed,
        /// generous because CI runs beside other work).
        func wait(seconds: Double = 60, until condition: () -> Bool) -> Bool {
            let end = Date(timeIntervalSinceNow: seconds)
            while !condition() {
                if Date() > end { return false }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return true
        }

        func stateNames() -> [CameraState] {
            states.withLock { states in
                states.map(\.state).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
            }
        }

        /// Stops and waits until the source has ended; `stopped` runs between the two.
        func stopAndWait(stopped: () -> Void = {}) {
            stop.raise()
            stopped()
            ended.wait()
        }
    }

    @Test("latest frame only: captured = recognized + dropped + rejected + in flight; in flight <= 2, 0 after stop")
    func invariant() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.nextFrames = Array(repeating: (0, nil), count: 20) + [(UInt32(V4L2_BUF_FLAG_ERROR), nil)] }
        let harness = Harness()
        harness.start(try V4L2Source(settings: .fake(fake), logger: logger))
        #expect(harness.wait { harness.counters.snapshot.recognized >= 20 })
        harness.stopAndWait()
        let counts = harness.counters.snapshot
        #expect(counts.dropped > 0 && counts.rejected == 1, "\(counts)")
        #expect(counts.captured == counts.recognized + counts.dropped + counts.rejected, "nothing in flight after stop: \(counts)")
        #expect(harness.maxInFlight.withLock { $0 } <= 2)
        #expect(fake.with { $0.openDescriptors.isEmpty && $0.mappedCount == 0 }, "everything released")
    }

    @Test("ENODEV while streaming: reported lost, released, reopened when back, streaming again")
    func deviceLoss() throws {
        let fake = FakeV4L2Device()
        let harness = Harness()
        harness.start(try V4L2Source(settings: .fake(fake), logger: logger))
        #expect(harness.wait { harness.counters.snapshot.recognized >= 3 })
        fake.with { $0.gone = true }
        #expect(harness.wait { harness.stateNames().contains(.lost) })
        #expect(harness.wait { fake.with { $0.openDescriptors.isEmpty } }, "the descriptor is closed while lost")
        let recognized = harness.counters.snapshot.recognized
        fake.with { $0.gone = false }
        #expect(harness.wait { harness.counters.snapshot.recognized >= recognized + 3 }, "recognizes again without a restart")
        harness.stopAndWait()
        #expect(Array(harness.stateNames().prefix(5)) == [.opening, .streaming, .lost, .opening, .streaming])
        let lost = harness.states.withLock { $0.first { $0.state == .lost } }
        #expect(lost?.error?.contains("gone") == true || lost?.error?.contains("queue") == true, "\(String(describing: lost?.error))")
    }

    @Test("a device that stops delivering (poll timeouts) is reported lost and reopened")
    func stall() throws {
        let fake = FakeV4L2Device()
        var settings = CaptureSettings.fake(fake)
        settings.stallTimeout = 0.2
        let harness = Harness()
        harness.start(try V4L2Source(settings: settings, logger: logger))
        #expect(harness.wait { harness.counters.snapshot.recognized >= 1 })
        fake.with { $0.stalled = true }
        #expect(harness.wait { harness.stateNames().contains(.lost) })
        let lost = harness.states.withLock { $0.first { $0.state == .lost } }
        #expect(lost?.error?.hasPrefix("no frame for") == true)
        fake.with { $0.stalled = false }
        #expect(harness.wait { harness.stateNames().last == .streaming && harness.stateNames().count >= 4 })
        harness.stopAndWait()
    }

    @Test("injected STREAMON and DQBUF errors are survived: lost, retried, streaming again", arguments: [
        ("VIDIOC_STREAMON", EINVAL), ("VIDIOC_DQBUF", EIO), ("poll", EIO), ("VIDIOC_REQBUFS", EINVAL),
    ])
    func injected(call: String, errno: Int32) throws {
        let fake = FakeV4L2Device()
        let harness = Harness()
        harness.start(try V4L2Source(settings: .fake(fake), logger: logger))
        #expect(harness.wait { harness.counters.snapshot.recognized >= 1 })
        fake.with { $0.faults = [.init(call: call, errno: errno)] }
        if call != "VIDIOC_DQBUF" && call != "poll" {
            fake.with { $0.gone = true }  // force a reopen, so the armed fault fires in it
            #expect(harness.wait { harness.stateNames().contains(.lost) })
            fake.with { $0.gone = false }
        }
        let before = harness.counters.snapshot.recognized
        #expect(harness.wait { harness.counters.snapshot.recognized >= before + 3 })
        harness.stopAndWait()
        let errors = harness.states.withLock { $0.compactMap(\.error) }
        #expect(errors.contains { $0.contains(call) }, "the loss names \(call): \(errors)")
        #expect(harness.stateNames().last == .idle)
    }

    // Stop is told, not timed: a loop that missed it would wait out an hour's backoff,
    // or poll for ever, and the time limit (far above any machine's load) ends the test.
    @Test("stop ends the loop while it waits to retry (an hour's wait)", .timeLimit(.minutes(1)))
    func stopWhileWaiting() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.present = false }
        var settings = CaptureSettings.fake(fake)
        settings.retryBackoff = RetryBackoff(initial: 3600, maximum: 3600)
        let harness = Harness()
        harness.start(try V4L2Source(settings: settings, logger: logger))
        #expect(harness.wait { harness.stateNames().contains(.lost) })
        let opens = fake.count("open")
        harness.stopAndWait()
        #expect(fake.count("open") == opens, "no open after the stop")
        #expect(harness.stateNames().last == .idle)
    }

    @Test("stop ends the loop at the next poll while streaming", .timeLimit(.minutes(1)))
    func stopWhileStreaming() throws {
        let fake = FakeV4L2Device()
        fake.with { $0.stalled = true }
        let harness = Harness(recognizeSeconds: 0)
        harness.start(try V4L2Source(settings: .fake(fake), logger: logger))
        #expect(harness.wait { harness.stateNames().contains(.streaming) })
        var pollsAtStop = 0
        harness.stopAndWait { pollsAtStop = fake.count("poll") }
        #expect(fake.count("poll") - pollsAtStop <= 1, "at most the poll under way when stop was raised")
    }

    @Test("retry waits grow from 100 ms to 5 s, and start again after a recovery")
    func backoff() {
        var backoff = RetryBackoff()
        let waits = (0..<8).map { _ in backoff.next() }
        #expect(waits == [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5])
        backoff.reset()
        #expect(backoff.next() == 0.1)
    }
}
