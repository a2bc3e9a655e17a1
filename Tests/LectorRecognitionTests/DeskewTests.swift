import Foundation
@testable import LectorImaging
@testable import LectorProtocol
@testable import LectorRecognition
import LectorTestSupport
import Testing

/// Deskew (issue 17): the residual angle of text lines, the small rotation that levels
/// them, and boxes mapped back into the upright image; on real Tesseract.
@Suite("Deskew", .serialized)
struct DeskewTests {
    /// The fixture turned clockwise by `degrees` on a canvas that holds all of it (the
    /// same pixels a camera held crooked would show, with the ground around them).
    static func turned(_ name: String, clockwise degrees: Double) throws -> GrayImage {
        let upright = try ImageFile.readGray(path: TestSupport.fixture(name))
        guard degrees != 0 else { return upright }
        return SmallRotation(clockwise: degrees, sourceWidth: upright.width, sourceHeight: upright.height)
            .apply(upright, background: Deskew.background(of: upright))
    }

    /// Lines turned clockwise by d descend to the right: their angle is −d.
    @Test("the estimate finds the angle of turned text", arguments: [
        ("hello-640x480.png", -12.0), ("hello-640x480.png", -6.5), ("hello-640x480.png", -2.0), ("hello-640x480.png", 0.0),
        ("hello-640x480.png", 3.0), ("hello-640x480.png", 9.0), ("hello-640x480.png", 14.0),
        ("noisy-1280x720.png", -8.0), ("noisy-1280x720.png", 5.0), ("small-1280x720.png", 4.0), ("small-1280x720.png", -10.0),
    ])
    func estimatesAngle(name: String, degrees: Double) throws {
        let image = try Self.turned(name, clockwise: degrees)
        let angle = try #require(Deskew.estimateAngle(image), "no angle found for \(name) turned \(degrees)°")
        #expect(abs(angle + degrees) <= 0.4, "\(name) turned \(degrees)°: estimated \(angle)°")
    }

    @Test("an image without slanted lines of text is not turned", arguments: ["blank", "noise", "checkerboard"])
    func noAngleWithoutText(kind: String) {
        let width = 640, height = 480
        var image = GrayImage(width: width, height: height, pixels: [UInt8](repeating: 200, count: width * height))
        switch kind {
        case "noise": image.pixels = TestSupport.randomBytes(count: width * height, seed: 17)
        case "checkerboard":
            for y in 0..<height { for x in 0..<width where ((x / 40) + (y / 40)) % 2 == 0 { image[x, y] = 30 } }
        default: break
        }
        let angle = Deskew.estimateAngle(image)
        #expect(Deskew.rotation(for: angle, width: width, height: height) == nil, "\(kind): \(Deskew.estimate(image).map { "\($0)" } ?? "nil")")
        if kind != "checkerboard" { #expect(angle == nil, "\(kind): no lines, no angle") }
    }

    @Test("small angles are left alone")
    func smallAnglesLeftAlone() {
        #expect(Deskew.rotation(for: 0.3, width: 640, height: 480) == nil)
        #expect(Deskew.rotation(for: -0.49, width: 640, height: 480) == nil)
        #expect(Deskew.rotation(for: nil, width: 640, height: 480) == nil)
        #expect(Deskew.rotation(for: 0.5, width: 640, height: 480)?.degrees == 0.5)
        #expect(Deskew.rotation(for: 16, width: 640, height: 480) == nil, "beyond the range looked in")
    }

    /// A bright rectangle in an upright image, turned: the rectangle found in the turned
    /// image, mapped back, covers the original (within the pixel a rotation blurs), and
    /// points go there and back exactly.
    @Test("the rotation's box mapping round-trips", arguments: [-15.0, -7.3, -0.5, 0.5, 2.0, 11.0, 15.0])
    func boxRoundTrip(degrees: Double) {
        let width = 300, height = 200
        let box = PixelBox(x: 120, y: 70, width: 60, height: 40)
        var upright = GrayImage(width: width, height: height)
        for y in box.y..<box.maxY { for x in box.x..<box.maxX { upright[x, y] = 255 } }
        let rotation = SmallRotation(clockwise: degrees, sourceWidth: width, sourceHeight: height)
        let turned = rotation.apply(upright, background: 0)
        #expect(turned.width == rotation.width && turned.height == rotation.height)
        let radians = abs(degrees) * .pi / 180
        #expect(abs(Double(rotation.width) - (300 * cos(radians) + 200 * sin(radians))) < 1.01)

        // Points there and back.
        for (x, y) in [(0.0, 0.0), (300.0, 200.0), (150.5, 99.25), (12, 180)] {
            let there = rotation.turnedPoint(x: x, y: y)
            let back = rotation.sourcePoint(x: there.x, y: there.y)
            #expect(abs(back.x - x) < 1e-9 && abs(back.y - y) < 1e-9)
        }
        // The bright pixels' bounding box in the turned image, mapped back.
        var left = Int.max, top = Int.max, right = 0, bottom = 0
        for y in 0..<turned.height { for x in 0..<turned.width where turned[x, y] >= 128 {
            left = min(left, x); top = min(top, y); right = max(right, x + 1); bottom = max(bottom, y + 1)
        } }
        let found = PixelBox(x: left, y: top, width: right - left, height: bottom - top)
        let back = rotation.sourceBox(ofTurned: found)
        // The turned box's corners turned back lie on a box slightly larger than the
        // original (the bounding box of a tilted rectangle, turned back): it must hold it.
        #expect(back.x <= box.x + 1 && back.y <= box.y + 1 && back.maxX >= box.maxX - 1 && back.maxY >= box.maxY - 1, "\(back) holds \(box)")
        let grow = sin(radians) * Double(max(box.width, box.height)) * 2 + 3
        #expect(Double(back.width - box.width) <= grow && Double(back.height - box.height) <= grow, "\(back) against \(box)")
        // The rectangle's own corners map exactly.
        let corners = [(box.x, box.y), (box.maxX, box.y), (box.maxX, box.maxY), (box.x, box.maxY)].map {
            rotation.turnedPoint(x: Double($0.0), y: Double($0.1))
        }
        for corner in corners {
            #expect(corner.x >= Double(left) - 1.5 && corner.x <= Double(right) + 1.5 && corner.y >= Double(top) - 1.5 && corner.y <= Double(bottom) + 1.5)
        }
        // Boxes never leave the upright image.
        let whole = rotation.sourceBox(ofTurned: PixelBox(x: 0, y: 0, width: rotation.width, height: rotation.height))
        #expect(whole == PixelBox(x: 0, y: 0, width: width, height: height))
    }

    /// Real Tesseract: the fixture turned 7° reads the same words with deskew, each word's
    /// box (upright, unturned) on ink, and not with it off.
    @Test("a crooked frame reads as a straight one, boxes in the upright image", arguments: [-7.0, 8.0])
    func readsCrookedFrame(degrees: Double) throws {
        let image = try Self.turned("hello-640x480.png", clockwise: degrees)
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        var options = RecognizerOptions.untimed
        options.downscale = .none
        options.layout = .tesseract  // deskew levels Tesseract's layout; the detector straightens each line itself
        options.deskew = true
        let recognizer = try TextRecognizer(options: options)
        let result = try recognizer.recognize(image)
        let levelled = try #require(recognizer.lastSkewDegrees, "the frame was levelled")
        #expect(abs(levelled + degrees) <= 0.4)
        let recall = TestSupport.recall(expected: expected, actual: result.words.map(\.text))
        #expect(recall >= 0.9, "deskewed: \(result.text)")
        for word in result.words {
            let box = word.box
            #expect(box.x >= 0 && box.y >= 0 && box.maxX <= image.width && box.maxY <= image.height)
            let crop = image.cropped(to: box)
            #expect(crop.pixels.contains { $0 < 100 }, "ink in \(word.text)'s box \(box)")
        }
        // "HELLO" stands on the first line: its upright box is where the turned line is.
        let hello = try #require(result.words.first { $0.text == "HELLO" })
        let upright = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let rotation = SmallRotation(clockwise: degrees, sourceWidth: upright.width, sourceHeight: upright.height)
        let straight = try TextRecognizer(options: options).recognize(upright)
        let original = try #require(straight.words.first { $0.text == "HELLO" }?.box)
        let centre = rotation.turnedPoint(x: Double(original.x) + Double(original.width) / 2, y: Double(original.y) + Double(original.height) / 2)
        #expect(abs(Double(hello.box.x) + Double(hello.box.width) / 2 - centre.x) < 6
                && abs(Double(hello.box.y) + Double(hello.box.height) / 2 - centre.y) < 6,
                "HELLO at \(hello.box), expected around \(centre)")
    }

    @Test("deskew off reads the frame as it is")
    func deskewOff() throws {
        let image = try Self.turned("hello-640x480.png", clockwise: 6)
        var options = RecognizerOptions.untimed
        options.deskew = false
        options.layout = .tesseract
        let recognizer = try TextRecognizer(options: options)
        _ = try recognizer.recognize(image)
        #expect(recognizer.lastSkewDegrees == nil)
    }

    @Test("an upright frame is not turned, and reads as before")
    func uprightUntouched() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var on = RecognizerOptions.untimed, off = RecognizerOptions.untimed
        on.downscale = .none
        off.downscale = .none
        on.layout = .tesseract
        off.layout = .tesseract
        on.deskew = true
        off.deskew = false
        let withDeskew = try TextRecognizer(options: on)
        let read = try withDeskew.recognize(image)
        #expect(withDeskew.lastSkewDegrees == nil)
        let readWithout = try TextRecognizer(options: off).recognize(image)  // outside #expect: Swift 6.0 refuses a try in its autoclosure
        #expect(read == readWithout)
    }
}
