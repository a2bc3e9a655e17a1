import Foundation
@testable import LectorCapture
@testable import LectorImaging
@testable import LectorSystem
import LectorTestSupport
import Testing

@Suite("Frame recorder")
struct FrameRecorderTests {
    private func frame(_ format: PixelFormat, _ bytes: [UInt8], width: Int, height: Int, sequence: UInt32) -> Frame {
        Frame(format: format, width: width, height: height, sequence: sequence, timestamp: .now(),
              buffer: HeapFrameBuffer(copying: bytes))
    }

    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "lector-record-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("keeps the newest frames within the bound, as PGM files replay reads back")
    func bound() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fileBytes = Array("P5\n16 16\n255\n".utf8).count + 16 * 16
        let recorder = try FrameRecorder(directory: directory, maximumBytes: fileBytes * 3, logger: Logger(label: "test", level: .error))
        for index in 0..<6 {
            recorder.offer(frame(.grey, [UInt8](repeating: UInt8(index * 40), count: 256), width: 16, height: 16, sequence: UInt32(index)))
        }
        recorder.stop()
        let counts = recorder.counts
        #expect(counts.written + counts.skipped == 6 && counts.written >= 3, "\(counts)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names.count == 3, "the oldest are deleted beyond the bound: \(names)")
        #expect(names.allSatisfy { $0.hasPrefix("frame-") && $0.hasSuffix(".pgm") })
        let newest = try #require(names.last)
        let image = try ImageFile.decodeGray(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + newest))), path: newest)
        #expect(image.width == 16 && image.height == 16)
    }

    @Test("keeps a JPEG frame byte for byte, and counts earlier recordings against the bound")
    func jpegAndEarlierFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = directory + "/frame-0000000000001-000001.pgm"
        #expect(FileManager.default.createFile(atPath: old, contents: Data(repeating: 1, count: 1000)))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        let recorder = try FrameRecorder(directory: directory, maximumBytes: 500, logger: Logger(label: "test", level: .error))
        recorder.offer(frame(.mjpeg, jpeg, width: 0, height: 0, sequence: 1))
        recorder.stop()
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names.count == 1 && names[0].hasSuffix(".jpg"), "the earlier recording went first: \(names)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + names[0])) == Data(jpeg))
    }
}
