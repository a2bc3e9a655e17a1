import Foundation
import LectorImaging
import LectorSystem
import LectorTestSupport
import Testing

@Suite("Colour previews: kept frames encoded in colour")
struct ColorPreviewTests {
    /// The number of colour components in a baseline JPEG's SOF0 segment.
    static func components(_ jpeg: [UInt8]) -> Int? {
        var index = 2
        while index + 9 < jpeg.count {
            guard jpeg[index] == 0xFF else { return nil }
            let marker = jpeg[index + 1]
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            if marker == 0xC0 { return Int(jpeg[index + 9]) }
            index += 2 + length
        }
        return nil
    }

    static func frame(_ format: PixelFormat, width: Int, height: Int, bytes: [UInt8], bytesPerLine: Int) -> CapturedFrame {
        CapturedFrame(Frame(format: format, width: width, height: height, bytesPerLine: bytesPerLine, sequence: 0,
                            timestamp: MonotonicInstant.now(), buffer: HeapFrameBuffer(copying: bytes)))
    }

    @Test func yuyvAndNV12AreEncodedInColour() throws {
        // Pure red in BT.601: Y 81, U 90, V 240.
        let yuyv = Self.frame(.yuyv, width: 32, height: 16, bytes: Array([[UInt8]](repeating: [81, 90, 81, 240], count: 32 * 16 / 2).joined()), bytesPerLine: 64)
        let encoded = try #require(ColorPreviewEncoder.encode(yuyv, maximumWidth: nil))
        #expect(encoded.width == 32 && encoded.height == 16 && Self.components(encoded.jpeg) == 3)
        let nv12 = Self.frame(.nv12, width: 32, height: 16, bytes: [UInt8](repeating: 81, count: 32 * 16) + Array([[UInt8]](repeating: [90, 240], count: 32 * 8 / 2).joined()), bytesPerLine: 32)
        let half = try #require(ColorPreviewEncoder.encode(nv12, maximumWidth: 16))
        #expect(half.width == 16 && half.height == 8 && Self.components(half.jpeg) == 3, "max_width 16 halves it")
    }

    /// The colour survives: pure red in video range, YUYV and NV12, decodes (by Pillow,
    /// a real JPEG reader) to red within a few levels.
    @Test func colourDecodesAsCaptured() throws {
        let yuyv = Self.frame(.yuyv, width: 32, height: 16, bytes: Array([[UInt8]](repeating: [81, 90, 81, 240], count: 32 * 16 / 2).joined()), bytesPerLine: 64)
        let nv12 = Self.frame(.nv12, width: 32, height: 16, bytes: [UInt8](repeating: 81, count: 32 * 16) + Array([[UInt8]](repeating: [90, 240], count: 32 * 8 / 2).joined()), bytesPerLine: 32)
        for frame in [yuyv, nv12] {
            let jpeg = try #require(ColorPreviewEncoder.encode(frame, maximumWidth: nil)).jpeg
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("lector-colour-\(frame.format.fourcc).jpg").path
            try Data(jpeg).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let result = try run("/usr/bin/python3", ["-c", "import sys; from PIL import Image; print(*Image.open(sys.argv[1]).convert('RGB').getpixel((16, 8)))", path])
            let rgb = result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(rgb.count == 3 && rgb[0] >= 245 && rgb[1] <= 10 && rgb[2] <= 10, "\(frame.format.fourcc): \(result.stdout) \(result.stderr)")
        }
    }

    @Test func mjpegPassesThroughAndGreyStaysGray() throws {
        let jpeg = try JPEGEncoder.encode(pixels: [UInt8](repeating: 128, count: 64), width: 8, height: 8, components: 1)
        let mjpeg = Self.frame(.mjpeg, width: 8, height: 8, bytes: jpeg, bytesPerLine: 0)
        #expect(ColorPreviewEncoder.encode(mjpeg, maximumWidth: nil)?.jpeg == jpeg, "the camera's own JPEG, unchanged")
        let grey = Self.frame(.grey, width: 8, height: 8, bytes: [UInt8](repeating: 200, count: 64), bytesPerLine: 8)
        #expect(Self.components(try #require(ColorPreviewEncoder.encode(grey, maximumWidth: nil)).jpeg) == 1)
        let bgr = Self.frame(.bgr24, width: 8, height: 8, bytes: [UInt8](repeating: 0, count: 192), bytesPerLine: 24)
        #expect(ColorPreviewEncoder.encode(bgr, maximumWidth: nil) == nil, "unsupported: the caller falls back to gray")
    }

    @Test func demandExpires() {
        let demand = ColorPreviewDemand()
        #expect(!demand.isWanted, "nobody asked: no frame is kept")
        demand.want(seconds: 60)
        #expect(demand.isWanted)
        demand.want(seconds: -1)
        #expect(!demand.isWanted)
    }
}
