import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization
import Testing

@Suite("Evidence in colour: captured frames decoded, turned and cropped in colour")
struct ColorImageTests {
    /// Pure red as each format stores it, 4x2 pixels, and whether it is colour.
    /// Red in BT.601 video range: Y 81, Cb 90, Cr 240; full range: Y 76, Cb 85, Cr 255.
    static let red: [(format: PixelFormat, bytes: [UInt8], bytesPerLine: Int)] = [
        (.yuyv, Array([[UInt8]](repeating: [81, 90, 81, 240], count: 4).joined()), 8),
        (.uyvy, Array([[UInt8]](repeating: [90, 81, 240, 81], count: 4).joined()), 8),
        (.nv12, [UInt8](repeating: 81, count: 8) + [90, 240, 90, 240], 4),
        (.nv21, [UInt8](repeating: 81, count: 8) + [240, 90, 240, 90], 4),
        (.yu12, [UInt8](repeating: 81, count: 8) + [90, 90, 240, 240], 4),
        (.rgb24, Array([[UInt8]](repeating: [255, 0, 0], count: 8).joined()), 12),
        (.bgr24, Array([[UInt8]](repeating: [0, 0, 255], count: 8).joined()), 12),
        (.xbgr32, Array([[UInt8]](repeating: [0, 0, 255, 0], count: 8).joined()), 16),
    ]

    static func captured(_ format: PixelFormat, _ bytes: [UInt8], bytesPerLine: Int, width: Int = 4, height: Int = 2) -> CapturedFrame {
        CapturedFrame(format: format, width: width, height: height, bytesPerLine: bytesPerLine, bytes: bytes)
    }

    @Test(arguments: 0..<red.count)
    func redIsRedInEveryFormat(index: Int) throws {
        let (format, bytes, line) = Self.red[index]
        let image = try ColorImage(Self.captured(format, bytes, bytesPerLine: line))
        #expect(image.isColor && image.width == 4 && image.height == 2, "\(format)")
        for plane in 0..<3 {
            let expected = [76, 85, 255][plane]
            #expect(image.planes[plane].pixels.allSatisfy { abs(Int($0) - expected) <= 2 }, "\(format) plane \(plane): \(image.planes[plane].pixels)")
        }
    }

    @Test func greyStaysGrayAndAShortFrameIsAnError() throws {
        let gray = try ColorImage(Self.captured(.grey, [UInt8](repeating: 7, count: 10), bytesPerLine: 5))
        #expect(!gray.isColor && gray.planes[0].pixels == [UInt8](repeating: 7, count: 8), "padding dropped, one plane")
        #expect(throws: FrameError.self) { try ColorImage(Self.captured(.yuyv, [1, 2, 3], bytesPerLine: 8)) }
        #expect(throws: FrameError.self) { try ColorImage(Self.captured(.mjpeg, [0xFF, 0xD8, 0, 0, 0xFF, 0xD9], bytesPerLine: 0)) }
    }

    /// A colour JPEG (as a camera's MJPEG) decodes as stored, turns and crops plane by
    /// plane, and encodes back to a 3-component JPEG; a gray JPEG stays gray.
    @Test func mjpegTurnsCropsAndEncodes() throws {
        var rgb: [UInt8] = []
        for _ in 0..<16 { for x in 0..<32 { rgb += x < 16 ? [255, 0, 0] : [0, 0, 255] } }  // left red, right blue
        let jpeg = try JPEGEncoder.encode(pixels: rgb, width: 32, height: 16, components: 3, quality: 95)
        let image = try ColorImage(Self.captured(.mjpeg, jpeg, bytesPerLine: 0, width: 0, height: 0))
        #expect(image.isColor && image.width == 32 && image.height == 16)
        #expect(image.planes[2].pixels[16 * 2 + 2] > 200 && image.planes[1].pixels[16 * 2 + 28] > 200, "Cr high on the red side, Cb on the blue")
        let turned = image.turned(OrientationTransform(orientation: .right, sourceWidth: 32, sourceHeight: 16))
        #expect(turned.width == 16 && turned.height == 32)
        // Turned clockwise: the left (red) half is now on top.
        #expect(turned.planes[2].pixels[2 * 16 + 8] > 200 && turned.planes[1].pixels[28 * 16 + 8] > 200)
        let crop = turned.cropped(to: PixelBox(x: 0, y: 0, width: 16, height: 8))
        #expect(crop.width == 16 && crop.height == 8 && crop.planes[2].pixels.allSatisfy { $0 > 200 })
        let out = try crop.jpeg()
        #expect(ColorPreviewTests.components(out) == 3)
        let grayJPEG = try JPEGEncoder.encode(pixels: [UInt8](repeating: 90, count: 64), width: 8, height: 8, components: 1)
        let gray = try ColorImage(Self.captured(.mjpeg, grayJPEG, bytesPerLine: 0, width: 0, height: 0))
        let grayOut = try gray.jpeg()
        #expect(!gray.isColor && ColorPreviewTests.components(grayOut) == 1, "a gray camera's evidence is gray")
    }
}

/// A buffer that counts its give-backs.
final class CountedBuffer: FrameBuffer, @unchecked Sendable {
    let given = Atomic<Int>(0)
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
    func giveBack() { given.add(1, ordering: .relaxed) }
}

@Suite("Held captured frames: given back once, copied only when asked")
struct HeldCaptureTests {
    @Test func releasedOnceByHandOrWhenDropped() {
        let buffer = CountedBuffer()
        let frame = Frame(format: .grey, width: 0, height: 0, sequence: 1, timestamp: .now(), buffer: buffer)
        let held = HeldCapture(frame)
        #expect(buffer.given.load(ordering: .relaxed) == 0, "held: not given back")
        held.release()
        held.release()
        #expect(buffer.given.load(ordering: .relaxed) == 1, "released once")
        let other = CountedBuffer()
        do { _ = HeldCapture(Frame(format: .grey, width: 0, height: 0, sequence: 2, timestamp: .now(), buffer: other)) }
        #expect(other.given.load(ordering: .relaxed) == 1, "the last reference gives it back")
    }

    @Test func aStackedFrameGivesItsHeldFrameBack() {
        let stacked = CountedBuffer(), captured = CountedBuffer()
        var frame = Frame(format: .grey, width: 0, height: 0, sequence: 1, timestamp: .now(), buffer: stacked)
        frame.held = HeldCapture(Frame(format: .yuyv, width: 0, height: 0, sequence: 1, timestamp: .now(), buffer: captured))
        frame.giveBack()
        #expect(stacked.given.load(ordering: .relaxed) == 1 && captured.given.load(ordering: .relaxed) == 1)
    }

    @Test func aReplayedImageFileIsTheColourSource() throws {
        let file: [UInt8] = [1, 2, 3]
        let frame = Frame(format: .grey, width: 1, height: 1, sequence: 1, timestamp: .now(),
                          buffer: HeapFrameBuffer(copying: [9], origin: "a.png", imageFile: file))
        guard case let .imageFile(bytes, path) = HeldCapture(frame).colorSource() else {
            Issue.record("a replayed file's bytes are its colour")
            return
        }
        #expect(bytes == file && path == "a.png")
        let plain = Frame(format: .grey, width: 1, height: 1, sequence: 1, timestamp: .now(), buffer: HeapFrameBuffer(copying: [9]))
        guard case let .captured(copy) = HeldCapture(plain).colorSource() else {
            Issue.record("a camera's frame is copied as captured")
            return
        }
        #expect(copy.bytes == [9] && copy.format == .grey)
    }
}
