import Foundation
@testable import LectorImaging
@testable import LectorPipeline
import LectorProtocol
import LectorSystem
import LectorTestSupport
import Testing

@Suite("Evidence of accepted MATCHes")
struct EvidenceStoreTests {
    private static func match(seq: UInt32, time: String, box: PixelBox = PixelBox(x: 40, y: 30, width: 100, height: 20)) -> MatchMessage {
        MatchMessage(device: "gate/1", zone: nil, rule: "plate", text: "B0ABC123", matched: "B0ABC123", groups: [], box: box,
                     corners: [], confidence: 0.9, track: nil, sequence: seq, time: time)
    }

    @Test("a line's crop has a quarter of its height around it, clipped to the frame", arguments: [
        (PixelBox(x: 40, y: 30, width: 100, height: 20), PixelBox(x: 35, y: 25, width: 110, height: 30)),
        (PixelBox(x: 0, y: 0, width: 50, height: 40), PixelBox(x: 0, y: 0, width: 60, height: 50)),
        (PixelBox(x: 180, y: 90, width: 40, height: 20), PixelBox(x: 175, y: 85, width: 25, height: 15)),
    ])
    func cropBox(box: PixelBox, expected: PixelBox) {
        #expect(EvidenceStore.cropBox(box, width: 200, height: 100) == expected)
    }

    @Test("names sort by time, one frame file per frame, a crop per MATCH, the camera's name made safe")
    func names() {
        let first = EvidenceStore.paths(in: "/e", for: Self.match(seq: 7, time: "2026-12-04T21:14:03.512Z"), index: 0)
        let second = EvidenceStore.paths(in: "/e", for: Self.match(seq: 7, time: "2026-12-04T21:14:03.512Z"), index: 1)
        #expect(first.frame == "/e/20261204T211403.512Z-gate_1-7.jpg")
        #expect(first.crop == "/e/20261204T211403.512Z-gate_1-7-0.crop.jpg")
        #expect(second.frame == first.frame && second.crop != first.crop)
    }

    @Test("files are written whole, decode, and the oldest go first beyond the bound")
    func keepAndTrim() throws {
        let folder = try TestSupport.temporaryDirectory().appendingPathComponent("evidence").path
        var frame = GrayImage(width: 200, height: 100)
        for index in frame.pixels.indices { frame.pixels[index] = UInt8(truncatingIfNeeded: index &* 2654435761 >> 13) }
        let store = try EvidenceStore(directory: folder, maximumBytes: 60_000, keepDays: 30, logger: Logger(label: "test", level: .error))
        var kept: [MatchEvidence] = []
        for seq in 0..<8 {
            let match = Self.match(seq: UInt32(seq), time: "2026-12-04T21:14:0\(seq).000Z")
            let paths = EvidenceStore.paths(in: folder, for: match, index: 0)
            #expect(store.keep(EvidenceStore.Item(picture: EvidencePicture(gray: frame, color: nil, transform: nil), box: match.box, paths: paths)))
            kept.append(paths)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        let bytes = try names.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int ?? 0) }
        #expect(bytes <= 60_000, "\(bytes) bytes in \(names.count) files")
        #expect(names.allSatisfy { $0.hasSuffix(".jpg") }, "no .part left")
        let present = kept.map { FileManager.default.fileExists(atPath: $0.crop) }
        #expect(present.last == true && present.first == false && !present.drop(while: { !$0 }).contains(false), "oldest first: \(present)")
        let decoder = JPEGDecoder()
        var image = GrayImage(width: 0, height: 0)
        let crop = try #require(FileManager.default.contents(atPath: kept.last!.crop))
        try crop.withUnsafeBytes { try decoder.decodeGray($0, into: &image) }
        #expect(image.width == 110 && image.height == 30)
    }
}
