@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorServer
import LectorTestSupport
import Testing

@Suite("Server inbox")
struct ServerInboxTests {
    static func publication(_ sequence: UInt32) -> Publication {
        let image = GrayImage(width: 4, height: 4)
        let transform = OrientationTransform(orientation: .up, sourceWidth: 4, sourceHeight: 4)
        let report = TextReport(device: "demo", sequence: sequence, captureTime: .now(), unixTime: 1.8e9,
                                transform: transform, text: RecognizedText(), recognizeMilliseconds: 1)
        let frame = FrameReport(device: "demo", sequence: sequence, unixTime: 1.8e9, format: .grey, width: 4, height: 4,
                                orientation: .up, counters: FrameCounters.Snapshot(), latencyMilliseconds: 1,
                                recognizeMilliseconds: 1, overheadMilliseconds: 0)
        return Publication(text: report, textLine: report.message().bytes, frame: frame, upright: image)
    }

    @Test("drops the oldest publications beyond its limit and counts them", arguments: [10, 64, 65, 100])
    func countsDrops(posted: Int) throws {
        let inbox = try ServerInbox()
        defer { inbox.close() }
        for sequence in 0..<posted { inbox.post(.publication(Self.publication(UInt32(sequence)), posted: .now())) }
        inbox.post(.shutdown)
        let events = inbox.takeAll()
        let kept = events.compactMap { event -> UInt32? in
            if case let .publication(publication, _) = event { publication.text.sequence } else { nil }
        }
        let dropped = max(0, posted - ServerInbox.publicationLimit)
        #expect(inbox.dropped == dropped)
        #expect(kept == (dropped..<posted).map { UInt32($0) })
        #expect(events.count == kept.count + 1)
    }
}
