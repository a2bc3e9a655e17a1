@testable import LectorCapture
@testable import LectorImaging
@testable import LectorProtocol
import LectorTestSupport
import Testing

@Suite("Format negotiation")
struct FormatNegotiationTests {
    static let webcamSizes = SizeOffers.discrete([
        SizeOffer(width: 640, height: 480, rates: [30, 15]),
        SizeOffer(width: 1280, height: 720, rates: [10, 5]),
        SizeOffer(width: 1920, height: 1080, rates: [5]),
    ])
    static let mjpegSizes = SizeOffers.discrete([
        SizeOffer(width: 640, height: 480, rates: [30]),
        SizeOffer(width: 1280, height: 720, rates: [30]),
        SizeOffer(width: 1920, height: 1080, rates: [30]),
    ])
    static let bayer = FormatOffer(fourcc: 0x3138_4142, name: "BA81")  // 'BA81', SBGGR8

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var offers: [FormatOffer]
        var format: PixelFormat? = nil
        var size: (width: Int, height: Int)? = nil
        var fps: Double? = nil
        var expected: PixelFormat
        var width: Int?
        var height: Int?
        var reaches = true
        var libv4l2 = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "GREY is the cheapest luma", offers: [FormatOffer(.yuyv), FormatOffer(.mjpeg), FormatOffer(.grey)],
             expected: .grey, width: nil, height: nil),
        Case(name: "planar YUV beats packed YUV", offers: [FormatOffer(.yuyv), FormatOffer(.nv12)], expected: .nv12, width: nil, height: nil),
        Case(name: "packed YUV beats RGB and MJPEG", offers: [FormatOffer(.rgb24), FormatOffer(.mjpeg), FormatOffer(.uyvy)],
             expected: .uyvy, width: nil, height: nil),
        Case(name: "without --size: the largest size up to 1280x720",
             offers: [FormatOffer(.yuyv, sizes: webcamSizes)], expected: .yuyv, width: 1280, height: 720),
        Case(name: "raw reaches size and rate: raw", offers: [FormatOffer(.yuyv, sizes: webcamSizes), FormatOffer(.mjpeg, sizes: mjpegSizes)],
             size: (1280, 720), fps: 10, expected: .yuyv, width: 1280, height: 720),
        Case(name: "raw cannot reach 30 fps at 720p (USB bandwidth): MJPEG",
             offers: [FormatOffer(.yuyv, sizes: webcamSizes), FormatOffer(.mjpeg, sizes: mjpegSizes)],
             size: (1280, 720), fps: 30, expected: .mjpeg, width: 1280, height: 720),
        Case(name: "raw cannot reach the size: MJPEG", offers: [FormatOffer(.yuyv, sizes: .discrete([SizeOffer(width: 640, height: 480)])),
                                                         FormatOffer(.mjpeg, sizes: mjpegSizes)],
             size: (1920, 1080), expected: .mjpeg, width: 1920, height: 1080),
        Case(name: "nothing reaches: nearest size of the cheapest native format",
             offers: [FormatOffer(.yuyv, sizes: webcamSizes)], size: (1024, 768), expected: .yuyv, width: 1280, height: 720, reaches: false),
        Case(name: "without --size, the rate picks a smaller size",
             offers: [FormatOffer(.yuyv, sizes: webcamSizes)], fps: 30, expected: .yuyv, width: 640, height: 480),
        Case(name: "--format decides", offers: [FormatOffer(.grey), FormatOffer(.yuyv)], format: .yuyv, expected: .yuyv, width: nil, height: nil),
        Case(name: "stepwise sizes snap to the range", offers: [FormatOffer(.nv12, sizes: .stepwise(
            SizeRange(minWidth: 16, maxWidth: 1920, stepWidth: 16, minHeight: 16, maxHeight: 1080, stepHeight: 16)))],
             size: (1000, 700), expected: .nv12, width: 992, height: 688, reaches: false),
        Case(name: "stepwise without --size: the driver's current size (no upscaling)", offers: [FormatOffer(.grey, sizes: .stepwise(
            SizeRange(minWidth: 2, maxWidth: 4096, minHeight: 2, maxHeight: 2160)))], expected: .grey, width: nil, height: nil),
        Case(name: "sizes not enumerated (HDMI): keep --size", offers: [FormatOffer(.yuyv)], size: (640, 480),
             expected: .yuyv, width: 640, height: 480),
        Case(name: "native beats libv4l2-converted", offers: [bayer, FormatOffer(.rgb24, emulated: true), FormatOffer(.yuyv)],
             expected: .yuyv, width: nil, height: nil),
        Case(name: "only converted formats: the cheapest, through libv4l2",
             offers: [bayer, FormatOffer(.rgb24, emulated: true), FormatOffer(.yu12, emulated: true)],
             expected: .yu12, width: nil, height: nil, libv4l2: true),
        Case(name: "MJPEG that reaches beats a converted format that reaches",
             offers: [FormatOffer(.mjpeg), FormatOffer(.yu12, emulated: true)], expected: .mjpeg, width: nil, height: nil),
    ]

    @Test("chooses format, size and rate", arguments: cases)
    func chooses(_ test: Case) throws {
        let choice = try FormatNegotiation.choose(from: test.offers, format: test.format, size: test.size, fps: test.fps)
        #expect(choice.format == test.expected, "format")
        #expect(choice.width == test.width && choice.height == test.height, "size \(String(describing: choice.width))x\(String(describing: choice.height))")
        #expect(choice.reachesRequest == test.reaches, "reaches the request")
        #expect(choice.needsLibV4L2 == test.libv4l2, "needs libv4l2")
    }

    @Test("refuses what cannot work")
    func refuses() {
        #expect(throws: FormatNegotiation.Failure.formatNotOffered(asked: .nv12, offered: ["YUYV"])) {
            try FormatNegotiation.choose(from: [FormatOffer(.yuyv)], format: .nv12)
        }
        #expect(throws: FormatNegotiation.Failure.noReadableFormat(offered: ["BA81"])) {
            try FormatNegotiation.choose(from: [Self.bayer])
        }
    }

    @Test("--io auto takes the direct path when a native format exists", arguments: [
        ([FormatOffer(.yuyv)], true),
        ([Self.bayer], false),
        ([Self.bayer, FormatOffer(.rgb24, emulated: true)], false),
        ([Self.bayer, FormatOffer(.mjpeg)], true),
    ])
    func autoIO(offers: [FormatOffer], direct: Bool) {
        #expect(FormatNegotiation.hasNativeFormat(offers) == direct)
    }
}

@Suite("Camera metadata")
struct CameraMetadataTests {
    @Test("V4L2 controls become a position and a clockwise rotation", arguments: [
        (Int32?(0), Int32?(0), CameraPosition?.some(.front), Int?(0)),
        (1, 90, .back, 270),
        (2, 180, .external, 180),
        (1, 270, .back, 90),
        (nil, nil, nil, nil),
        (7, 45, nil, nil),
    ])
    func controls(orientation: Int32?, rotation: Int32?, position: CameraPosition?, clockwise: Int?) {
        let metadata = CameraMetadata(orientationControl: orientation, sensorRotationControl: rotation)
        #expect(metadata.position == position)
        #expect(metadata.rotation == clockwise)
    }

    @Test("flags override the camera's defaults")
    func flagsWin() {
        let metadata = CameraMetadata(position: .front, rotation: 90)
        #expect(metadata.defaults(under: OrientationSettings()) == OrientationSettings(cameraPosition: .front, rotation: 90))
        #expect(metadata.defaults(under: OrientationSettings(rotation: 180)).rotation == 180)
        #expect(metadata.defaults(under: OrientationSettings(cameraPosition: .back)).cameraPosition == .back)
        // A device orientation describes the whole correction: no sensor rotation on top.
        let portrait = metadata.defaults(under: OrientationSettings(deviceOrientation: .portrait))
        #expect(portrait.rotation == nil && portrait.imageOrientation == .leftMirrored)
    }
}
