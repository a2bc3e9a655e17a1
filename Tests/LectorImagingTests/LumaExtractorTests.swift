import Foundation
@testable import LectorImaging
import LectorTestSupport
import Testing

@Suite("Luma extraction")
struct LumaExtractorTests {
    static let yuvFormats: [PixelFormat] = [.grey, .yuyv, .uyvy, .yvyu, .vyuy, .nv12, .nv21, .nv16, .nv61, .yu12, .yv12]
    /// Sizes including odd ones (4:2:0 chroma planes round up) and padded rows.
    static let layouts: [(width: Int, height: Int, padding: Int)] = [(64, 48, 0), (33, 17, 0), (37, 21, 11), (640, 480, 64)]

    @Test("every YUV format gives back exactly its Y samples", arguments: yuvFormats, layouts.indices)
    func yuv(format: PixelFormat, layout: Int) throws {
        let (width, height, padding) = Self.layouts[layout]
        let luma = FrameSynthesizer.noise(width: width, height: height, seed: UInt64(layout + 3))
        let packed = FrameSynthesizer.pack(luma, as: format, padding: padding)
        var image = GrayImage(width: 0, height: 0)
        try LumaExtractor().extract(FrameSynthesizer.frame(packed.bytes, format: format, width: width, height: height,
                                                           bytesPerLine: packed.bytesPerLine), into: &image)
        #expect(image == luma, "\(format) \(width)x\(height) padding \(padding)")
    }

    /// BT.601 luma of 8-bit RGB, in floating point: the reference for the fixed-point code.
    static func referenceLuma(red: UInt8, green: UInt8, blue: UInt8) -> Double {
        0.299 * Double(red) + 0.587 * Double(green) + 0.114 * Double(blue)
    }

    @Test("RGB formats give BT.601 luma within one level", arguments: [
        (PixelFormat.rgb24, 3, [0, 1, 2]), (.bgr24, 3, [2, 1, 0]),
        (.xrgb32, 4, [1, 2, 3]), (.argb32, 4, [1, 2, 3]), (.xbgr32, 4, [2, 1, 0]), (.abgr32, 4, [2, 1, 0]),
    ])
    func rgb(format: PixelFormat, bytesPerPixel: Int, channels: [Int]) throws {
        let width = 29, height = 7, padding = 5
        let stride = width * bytesPerPixel + padding
        let bytes = TestSupport.randomBytes(count: stride * height, seed: 99)
        var image = GrayImage(width: 0, height: 0)
        try LumaExtractor().extract(FrameSynthesizer.frame(bytes, format: format, width: width, height: height,
                                                           bytesPerLine: stride), into: &image)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = y * stride + x * bytesPerPixel
                let expected = Self.referenceLuma(red: bytes[pixel + channels[0]], green: bytes[pixel + channels[1]],
                                                  blue: bytes[pixel + channels[2]])
                #expect(abs(Double(image[x, y]) - expected) <= 1, "\(format) at \(x),\(y)")
            }
        }
    }

    @Test("a buffer shorter than the frame is a typed error, never a read past it", arguments: yuvFormats)
    func truncated(format: PixelFormat) throws {
        let luma = FrameSynthesizer.noise(width: 32, height: 24)
        let packed = FrameSynthesizer.pack(luma, as: format)
        let short = Array(packed.bytes.dropLast(1))
        var image = GrayImage(width: 0, height: 0)
        #expect(throws: FrameError.truncated(format: format, needed: packed.bytes.count, got: short.count)) {
            try LumaExtractor().extract(FrameSynthesizer.frame(short, format: format, width: 32, height: 24), into: &image)
        }
    }

    @Test("bytesused smaller than the buffer is respected")
    func bytesUsed() {
        let bytes = [UInt8](repeating: 9, count: 32 * 24 * 2)
        var image = GrayImage(width: 0, height: 0)
        #expect(throws: FrameError.truncated(format: .yuyv, needed: 32 * 24 * 2, got: 100)) {
            try LumaExtractor().extract(FrameSynthesizer.frame(bytes, format: .yuyv, width: 32, height: 24, bytesUsed: 100), into: &image)
        }
    }

    @Test("inconsistent geometry is refused", arguments: [
        (PixelFormat.yuyv, 32, 24, 40, FrameError.badStride(format: .yuyv, bytesPerLine: 40, minimum: 64)),
        (.grey, 0, 24, 0, FrameError.badSize(width: 0, height: 24)),
        (.nv12, 20_000, 10, 20_000, FrameError.badSize(width: 20_000, height: 10)),
    ])
    func geometry(format: PixelFormat, width: Int, height: Int, stride: Int, expected: FrameError) {
        var image = GrayImage(width: 0, height: 0)
        #expect(throws: expected) {
            try LumaExtractor().extract(FrameSynthesizer.frame([UInt8](repeating: 0, count: 4096), format: format,
                                                               width: width, height: height, bytesPerLine: stride), into: &image)
        }
    }

    @Test("MJPEG decodes straight to gray, close to the source image")
    func mjpeg() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("hello-640x480.jpg"))))
        let png = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var image = GrayImage(width: 0, height: 0)
        try LumaExtractor().extract(FrameSynthesizer.frame(jpeg, format: .mjpeg, width: 640, height: 480), into: &image)
        #expect(image.width == 640 && image.height == 480)
        let meanError = zip(image.pixels, png.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / image.pixels.count
        #expect(meanError <= 3, "mean absolute difference to the lossless original: \(meanError)")
        // Decoding at half size inside libjpeg.
        try LumaExtractor().extract(FrameSynthesizer.frame(jpeg, format: .mjpeg, width: 640, height: 480), into: &image, scale: 2)
        #expect(image.width == 320 && image.height == 240)
    }

    /// Damaged JPEGs: each must come back as `FrameError.corrupt`, and this process
    /// (which would have been ended by libjpeg's default `exit()`) carries on.
    @Test("corrupt and truncated JPEGs are typed errors and the process survives", arguments: [
        "truncated-half", "truncated-header", "no-eoi", "garbage-after-soi", "scrambled-scan", "only-markers",
    ])
    func corruptJPEG(kind: String) throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("hello-640x480.jpg"))))
        var damaged: [UInt8]
        switch kind {
        case "truncated-half": damaged = Array(jpeg.prefix(jpeg.count / 2)) + [0xFF, 0xD9]
        case "truncated-header": damaged = Array(jpeg.prefix(40)) + [0xFF, 0xD9]
        case "no-eoi": damaged = Array(jpeg.dropLast(2))
        case "garbage-after-soi": damaged = [0xFF, 0xD8] + TestSupport.randomBytes(count: 5000, seed: 5) + [0xFF, 0xD9]
        case "scrambled-scan":
            damaged = jpeg
            // Overwrite the frame header (SOF0) so the declared geometry is impossible.
            let sof = (0..<damaged.count - 1).first { damaged[$0] == 0xFF && damaged[$0 + 1] == 0xC0 }!
            for offset in 5..<9 { damaged[sof + offset] = 0 }
        default: damaged = [0xFF, 0xD8, 0xFF, 0xD9]
        }
        var image = GrayImage(width: 0, height: 0)
        #expect(throws: FrameError.self) {
            try LumaExtractor().extract(FrameSynthesizer.frame(damaged, format: .mjpeg, width: 640, height: 480), into: &image)
        }
        // The same extractor keeps working afterwards.
        let extractor = LumaExtractor()
        _ = try? extractor.extract(FrameSynthesizer.frame(damaged, format: .mjpeg, width: 640, height: 480), into: &image)
        try extractor.extract(FrameSynthesizer.frame(jpeg, format: .mjpeg, width: 640, height: 480), into: &image)
        #expect(image.width == 640)
    }

    @Test("random bytes in any format never crash", arguments: PixelFormat.allCases)
    func fuzz(format: PixelFormat) {
        let extractor = LumaExtractor()
        var image = GrayImage(width: 0, height: 0)
        for seed in 1...40 {
            let count = Int(seed) * 97
            var bytes = TestSupport.randomBytes(count: count, seed: UInt64(seed))
            if format.isCompressed, seed % 2 == 0 { bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[count - 2] = 0xFF; bytes[count - 1] = 0xD9 }
            let width = Int(seed % 9) * 8 + 1, height = Int(seed % 5) * 4 + 1
            _ = try? extractor.extract(FrameSynthesizer.frame(bytes, format: format, width: width, height: height), into: &image)
        }
    }
}
