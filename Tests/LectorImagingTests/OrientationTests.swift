@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
import LectorTestSupport
import Testing

@Suite("Orientation")
struct OrientationTests {
    @Test("the direct form maps to the EXIF values", arguments: [
        (0, false, 1), (0, true, 2), (180, false, 3), (180, true, 4), (90, true, 5), (90, false, 6), (270, true, 7), (270, false, 8),
    ])
    func directForm(rotation: Int, mirror: Bool, exif: Int) throws {
        let orientation = try #require(ImageOrientation(rotation: rotation, mirror: mirror))
        #expect(orientation.exif == exif)
        #expect(orientation.rotation == rotation && orientation.isMirrored == mirror)
    }

    @Test("ML Kit's table: device orientation × camera position", arguments: [
        (DeviceOrientation.portrait, CameraPosition.back, 6), (.portrait, .front, 5),
        (.landscapeLeft, .back, 1), (.landscapeLeft, .front, 4),
        (.portraitUpsideDown, .back, 8), (.portraitUpsideDown, .front, 7),
        (.landscapeRight, .back, 3), (.landscapeRight, .front, 2),
        (.faceUp, .back, 1), (.faceUp, .front, 1), (.faceDown, .back, 1), (.faceDown, .front, 1),
        (.unknown, .back, 1), (.unknown, .front, 1), (.portrait, .external, 6),
    ])
    func mlKitTable(device: DeviceOrientation, camera: CameraPosition, exif: Int) {
        #expect(ImageOrientation(device: device, camera: camera).exif == exif)
    }

    /// A captured image with one bright rectangle; turning it upright and mapping the
    /// upright rectangle's corners back must land exactly on the original rectangle.
    @Test("all eight orientations round-trip: image and box, exactly", arguments: ImageOrientation.allCases)
    func roundTrip(orientation: ImageOrientation) {
        let width = 37, height = 23
        let source = PixelBox(x: 5, y: 3, width: 11, height: 6)
        var captured = GrayImage(width: width, height: height)
        for y in source.y..<source.maxY { for x in source.x..<source.maxX { captured[x, y] = 255 } }
        captured[0, 0] = 7  // marks the captured top-left corner

        let transform = OrientationTransform(orientation: orientation, sourceWidth: width, sourceHeight: height)
        var upright = GrayImage(width: 0, height: 0)
        transform.apply(captured, into: &upright)
        #expect(upright.width == (orientation.swapsAxes ? height : width))

        // The bright rectangle's bounding box in the upright image.
        var left = Int.max, top = Int.max, right = 0, bottom = 0
        for y in 0..<upright.height { for x in 0..<upright.width where upright[x, y] == 255 {
            left = min(left, x); top = min(top, y); right = max(right, x + 1); bottom = max(bottom, y + 1)
        } }
        let uprightBox = PixelBox(x: left, y: top, width: right - left, height: bottom - top)
        #expect(uprightBox.area == source.area)
        #expect(transform.uprightBox(ofSource: source) == uprightBox)

        // Corners in the captured frame: the same rectangle, clockwise from the upright top-left.
        let corners = transform.sourceCorners(of: uprightBox)
        let xs = corners.map(\.x), ys = corners.map(\.y)
        #expect(PixelBox(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!) == source)
        // Clockwise in the upright image means: mirrored orientations wind the other way in the captured frame.
        let cross = (corners[1].x - corners[0].x) * (corners[2].y - corners[1].y) - (corners[1].y - corners[0].y) * (corners[2].x - corners[1].x)
        #expect((cross > 0) == !orientation.isMirrored)

        // Every pixel: upright(u, v) == captured(sourcePoint(u, v)).
        for v in 0..<upright.height { for u in 0..<upright.width {
            let point = transform.sourcePoint(u: u, v: v, pixels: true)
            if upright[u, v] != captured[point.x, point.y] { Issue.record("pixel \(u),\(v) differs"); return }
        } }

        // Applying the inverse gives back the captured image.
        var back = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: orientation.inverse, sourceWidth: upright.width, sourceHeight: upright.height)
            .apply(upright, into: &back)
        #expect(back == captured)
    }

    @Test("EXIF 6 turns the captured image 90° clockwise")
    func rightMeansClockwise() {
        // Captured 2×1: [a b]. Turned clockwise: a on top, b below.
        let captured = GrayImage(width: 2, height: 1, pixels: [10, 20])
        var upright = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: .right, sourceWidth: 2, sourceHeight: 1).apply(captured, into: &upright)
        #expect(upright == GrayImage(width: 1, height: 2, pixels: [10, 20]))
    }

    @Test("large images with tiles that do not divide the size", arguments: ImageOrientation.allCases)
    func tiledEdges(orientation: ImageOrientation) {
        let captured = FrameSynthesizer.noise(width: 101, height: 67, seed: 3)
        let transform = OrientationTransform(orientation: orientation, sourceWidth: 101, sourceHeight: 67)
        var upright = GrayImage(width: 0, height: 0)
        transform.apply(captured, into: &upright)
        var mismatches = 0
        for v in 0..<upright.height { for u in 0..<upright.width {
            let point = transform.sourcePoint(u: u, v: v, pixels: true)
            if upright[u, v] != captured[point.x, point.y] { mismatches += 1 }
        } }
        #expect(mismatches == 0)
    }

    @Test("settings: the direct form wins, device form otherwise, up by default")
    func settings() {
        #expect(OrientationSettings().imageOrientation == .up)
        #expect(OrientationSettings(deviceOrientation: .portrait).imageOrientation == .right)
        #expect(OrientationSettings(deviceOrientation: .portrait, cameraPosition: .front).imageOrientation == .leftMirrored)
        #expect(OrientationSettings(rotation: 270, mirror: true).imageOrientation == .rightMirrored)
        #expect(OrientationSettings(mirror: true).imageOrientation == .upMirrored)
        let control = OrientationControl(OrientationSettings(rotation: 90))
        #expect(control.update(OrientationSettings(deviceOrientation: .landscapeRight, cameraPosition: .back)) == .down)
        #expect(control.update(OrientationSettings(cameraPosition: .front)) == .upMirrored)
        #expect(control.update(OrientationSettings(rotation: 180)) == .down)
    }
}
