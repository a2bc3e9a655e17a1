import Foundation
@testable import LectorImaging
@testable import LectorPipeline
import LectorHistory
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
        let bytes = try names.filter { $0.hasSuffix(".jpg") }.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int ?? 0) }
        #expect(bytes <= 60_000, "\(bytes) bytes in \(names.count) files")
        #expect(names.allSatisfy { $0.hasSuffix(".jpg") || $0.hasPrefix(EvidenceLedger.fileName) }, "no .part left: \(names)")
        let present = kept.map { FileManager.default.fileExists(atPath: $0.crop) }
        #expect(present.last == true && present.first == false && !present.drop(while: { !$0 }).contains(false), "oldest first: \(present)")
        let decoder = JPEGDecoder()
        var image = GrayImage(width: 0, height: 0)
        let crop = try #require(FileManager.default.contents(atPath: kept.last!.crop))
        try crop.withUnsafeBytes { try decoder.decodeGray($0, into: &image) }
        #expect(image.width == 110 && image.height == 30)
    }

    private static func noise(width: Int = 200, height: Int = 100) -> GrayImage {
        var frame = GrayImage(width: width, height: height)
        for index in frame.pixels.indices { frame.pixels[index] = UInt8(truncatingIfNeeded: index &* 2654435761 >> 13) }
        return frame
    }

    @Test("files lectord did not write are never deleted, written through or replaced")
    func othersFilesLeftAlone() throws {
        let manager = FileManager.default
        let folder = try TestSupport.temporaryDirectory().appendingPathComponent("photos").path
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let victim = folder + "/../victim.txt"
        try Data("victim".utf8).write(to: URL(fileURLWithPath: victim))
        // Old photos, a partial download, and links planted in lectord's own names.
        let old = Date(timeIntervalSinceNow: -60 * 86400)
        for name in ["holiday1.jpg", "holiday2.jpg", "20200101T000000.000Z-gate_1-1.jpg", "film.mkv.part"] {
            try Data(repeating: 7, count: 50_000).write(to: URL(fileURLWithPath: folder + "/" + name))
            try manager.setAttributes([.modificationDate: old], ofItemAtPath: folder + "/" + name)
        }
        let match = Self.match(seq: 1, time: "2026-12-04T21:14:01.000Z")
        let paths = EvidenceStore.paths(in: folder, for: match, index: 0)
        try manager.createSymbolicLink(atPath: paths.crop + EvidenceStore.partial, withDestinationPath: victim)
        try manager.createSymbolicLink(atPath: paths.frame, withDestinationPath: victim)
        let before = try manager.contentsOfDirectory(atPath: folder).sorted()
        let store = try EvidenceStore(directory: folder, maximumBytes: 1000, keepDays: 1, logger: Logger(label: "test", level: .error))
        #expect(!store.keep(EvidenceStore.Item(picture: EvidencePicture(gray: Self.noise(), color: nil, transform: nil), box: match.box, paths: paths)), "the names are taken")
        store.trim(now: Date().timeIntervalSince1970)
        let other = EvidenceStore.paths(in: folder, for: Self.match(seq: 2, time: "2026-12-04T21:14:02.000Z"), index: 0)
        #expect(store.keep(EvidenceStore.Item(picture: EvidencePicture(gray: Self.noise(), color: nil, transform: nil), box: match.box, paths: other)), "a free name is written")
        let after = try manager.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(EvidenceLedger.fileName) }.sorted()
        #expect(Set(before).isSubset(of: Set(after)), "nothing of before deleted: \(after)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "victim", "a planted link is not written through")
        #expect(try manager.destinationOfSymbolicLink(atPath: paths.frame) == victim, "nor replaced")
        #expect(try manager.attributesOfItem(atPath: victim)[.posixPermissions] as? Int != 0o640, "nor chmod'ed")
    }

    @Test("a folder others may write in is refused; lectord's own or root's private one is taken", arguments: [
        (0o40755 as UInt32, 1000 as UInt32, nil as String?), (0o40750, 0, nil), (0o40777, 1000, "others may write"),
        (0o40775, 1000, "others may write"), (0o41777, 0, "others may write"), (0o40755, 1001, "belongs to uid 1001"),
        (0o100644, 1000, "not a directory"),
    ])
    func folderTrust(mode: UInt32, owner: UInt32, problem: String?) {
        let status = FileStatus(type: mode & 0o170000, permissions: mode & 0o7777, owner: owner, group: 0, bytes: 0, modified: 0, links: 2,
                                identity: [1, 2])
        let found = EvidenceFolder.problem(with: status, user: 1000)
        #expect(problem.map { found?.contains($0) == true } ?? (found == nil), "\(String(mode, radix: 8)) uid \(owner): \(found ?? "taken")")
    }

    @Test("only lectord's evidence names count as its files", arguments: [
        ("20261204T211403.512Z-gate_1-7.jpg", true), ("20261204T211403.512Z-gate_1-7-0.crop.jpg", true),
        ("holiday1.jpg", false), ("20261204T211403.512Z-gate.jpg.part", false), ("2026120XT211403.512Z-gate-1.jpg", false),
        ("../20261204T211403.512Z-gate-1.jpg", false),
    ])
    func evidenceNames(name: String, expected: Bool) {
        #expect(EvidenceFolder.isEvidenceName(name) == expected)
    }

    @Test("a removed folder is made again at the next write")
    func removedFolderMadeAgain() throws {
        let folder = try TestSupport.temporaryDirectory().appendingPathComponent("evidence").path
        let store = try EvidenceStore(directory: folder, maximumBytes: 10_000_000, keepDays: 30, logger: Logger(label: "test", level: .error))
        let first = EvidenceStore.paths(in: folder, for: Self.match(seq: 1, time: "2026-12-04T21:14:01.000Z"), index: 0)
        #expect(store.keep(EvidenceStore.Item(picture: EvidencePicture(gray: Self.noise(), color: nil, transform: nil), box: PixelBox(x: 40, y: 30, width: 100, height: 20), paths: first)))
        try FileManager.default.removeItem(atPath: folder)
        let second = EvidenceStore.paths(in: folder, for: Self.match(seq: 2, time: "2026-12-04T21:14:02.000Z"), index: 0)
        #expect(store.keep(EvidenceStore.Item(picture: EvidencePicture(gray: Self.noise(), color: nil, transform: nil), box: PixelBox(x: 40, y: 30, width: 100, height: 20), paths: second)))
        #expect(FileManager.default.fileExists(atPath: second.crop) && FileManager.default.fileExists(atPath: second.frame))
    }
}
