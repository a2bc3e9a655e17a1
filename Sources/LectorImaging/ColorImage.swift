import LectorProtocol
import LectorSystem

/// A frame as the camera saw it, for the evidence of an accepted MATCH: JPEG's own
/// full-range Y, Cb and Cr as three planes at full size, or one gray plane for a gray
/// camera. Made from a ``CapturedFrame`` only when a MATCH is kept (never per frame),
/// turned upright and cropped plane by plane with the gray image's own code, and stored
/// as JPEG without an RGB step.
public struct ColorImage: Sendable, Equatable {
    /// Y, Cb, Cr (colour) or the luma alone (gray), each `width` × `height`.
    public var planes: [GrayImage]
    public var width: Int { planes[0].width }
    public var height: Int { planes[0].height }
    /// Whether the camera delivers colour (three planes).
    public var isColor: Bool { planes.count == 3 }

    public init(planes: [GrayImage]) {
        precondition(planes.count == 1 || planes.count == 3, "a colour image has one plane or three")
        self.planes = planes
    }

    /// Video-range luma (16–235) widened to JPEG's full range (BT.601).
    static let fullRangeLuma = ColorPreviewEncoder.fullRangeLuma
    /// Video-range chroma (16–240 around 128) widened to JPEG's full range.
    static let fullRangeChroma = ColorPreviewEncoder.fullRangeChroma

    /// The frame's colour: MJPEG decoded as stored (a gray JPEG stays gray), the raw
    /// formats' chroma widened to full range and repeated over the pixels it covers, RGB
    /// converted (BT.601, as JPEG does), GREY as gray.
    /// - Throws: ``FrameError`` for a frame that does not hold what its format says.
    public init(_ frame: CapturedFrame, limits: FrameLimits = .standard) throws(FrameError) {
        if frame.format.isCompressed {
            self = try Self.decoded(frame, limits: limits)
            return
        }
        let width = frame.width, height = frame.height, line = frame.bytesPerLine
        guard width > 0, height > 0, line >= frame.format.minimumBytesPerLine(width: width),
              let needed = frame.format.frameSize(width: width, height: height, bytesPerLine: line), frame.bytes.count >= needed
        else { throw .truncated(format: frame.format, needed: frame.format.minimumBytesPerLine(width: width) * height, got: frame.bytes.count) }
        if frame.format == .grey {
            self.init(planes: [GrayImage(width: width, height: height,
                                         pixels: (0..<height).flatMap { frame.bytes[$0 * line..<$0 * line + width] })])
            return
        }
        var planes = (0..<3).map { _ in GrayImage(width: width, height: height) }
        let sample = Self.sampler(frame)
        for y in 0..<height {
            for x in 0..<width {
                let (luma, blue, red) = sample(x, y)
                planes[0].pixels[y * width + x] = luma
                planes[1].pixels[y * width + x] = blue
                planes[2].pixels[y * width + x] = red
            }
        }
        self.init(planes: planes)
    }

    /// The full-range Y, Cb, Cr of pixel (x, y) of an uncompressed colour frame whose size was checked.
    private static func sampler(_ frame: CapturedFrame) -> (Int, Int) -> (UInt8, UInt8, UInt8) {
        let bytes = frame.bytes, line = frame.bytesPerLine, height = frame.height
        let luma = { (value: UInt8) in fullRangeLuma[Int(value)] }
        let chroma = { (value: UInt8) in fullRangeChroma[Int(value)] }
        /// Packed 4:2:2: the offsets of Y, Cb and Cr in a two-pixel macropixel.
        let packed = { (y0: Int, cb: Int, cr: Int) -> (Int, Int) -> (UInt8, UInt8, UInt8) in
            { x, y in
                let base = y * line + (x / 2) * 4
                return (luma(bytes[base + y0 + (x % 2) * 2]), chroma(bytes[base + cb]), chroma(bytes[base + cr]))
            }
        }
        /// Two planes: luma, then Cb Cr pairs (`swap`: Cr Cb) at `rows` chroma rows per luma row pair.
        let semiPlanar = { (swap: Bool, halfHeight: Bool) -> (Int, Int) -> (UInt8, UInt8, UInt8) in
            { x, y in
                let base = height * line + (halfHeight ? y / 2 : y) * line + (x / 2) * 2
                let first = chroma(bytes[base]), second = chroma(bytes[base + 1])
                return (luma(bytes[y * line + x]), swap ? second : first, swap ? first : second)
            }
        }
        let rgb = { (step: Int, red: Int, green: Int, blue: Int) -> (Int, Int) -> (UInt8, UInt8, UInt8) in
            { x, y in
                let base = y * line + x * step
                return ycbcr(red: Int(bytes[base + red]), green: Int(bytes[base + green]), blue: Int(bytes[base + blue]))
            }
        }
        switch frame.format {
        case .yuyv: return packed(0, 1, 3)
        case .yvyu: return packed(0, 3, 1)
        case .uyvy: return packed(1, 0, 2)
        case .vyuy: return packed(1, 2, 0)
        case .nv12: return semiPlanar(false, true)
        case .nv21: return semiPlanar(true, true)
        case .nv16: return semiPlanar(false, false)
        case .nv61: return semiPlanar(true, false)
        case .yu12, .yv12:
            // Cb then Cr planes (YV12: Cr first), half the stride, half the height.
            let half = (line + 1) / 2, halfHeight = (height + 1) / 2
            let first = height * line, second = first + half * halfHeight
            let (cb, cr) = frame.format == .yu12 ? (first, second) : (second, first)
            return { x, y in
                let offset = (y / 2) * half + x / 2
                return (luma(bytes[y * line + x]), chroma(bytes[cb + offset]), chroma(bytes[cr + offset]))
            }
        case .rgb24: return rgb(3, 0, 1, 2)
        case .bgr24: return rgb(3, 2, 1, 0)
        case .xrgb32, .argb32: return rgb(4, 1, 2, 3)
        case .xbgr32, .abgr32: return rgb(4, 2, 1, 0)
        case .grey, .mjpeg, .jpeg: preconditionFailure("gray and compressed frames are handled by init")
        }
    }

    /// JPEG's (JFIF's) RGB to full-range Y, Cb, Cr in fixed point.
    static func ycbcr(red: Int, green: Int, blue: Int) -> (UInt8, UInt8, UInt8) {
        let luma = (19595 * red + 38470 * green + 7471 * blue + 32768) >> 16
        let blueDifference = (-11059 * red - 21709 * green + 32768 * blue + (128 << 16) + 32768) >> 16
        let redDifference = (32768 * red - 27439 * green - 5329 * blue + (128 << 16) + 32768) >> 16
        return (UInt8(clamping: luma), UInt8(clamping: blueDifference), UInt8(clamping: redDifference))
    }

    /// An MJPEG or JPEG frame decoded as stored.
    private static func decoded(_ frame: CapturedFrame, limits: FrameLimits) throws(FrameError) -> ColorImage {
        let decoded = frame.bytes.withUnsafeBytes { raw in
            Result { () throws(FrameError) in try JPEGDecoder(limits: limits).decodeColor(raw, format: frame.format) }
        }
        let (pixels, width, height, components, isYCbCr) = try decoded.get()
        if components == 1 { return ColorImage(planes: [GrayImage(width: width, height: height, pixels: pixels)]) }
        var planes = (0..<3).map { _ in GrayImage(width: width, height: height) }
        for index in 0..<width * height {
            let (y, cb, cr) = isYCbCr ? (pixels[3 * index], pixels[3 * index + 1], pixels[3 * index + 2])
                : ycbcr(red: Int(pixels[3 * index]), green: Int(pixels[3 * index + 1]), blue: Int(pixels[3 * index + 2]))
            planes[0].pixels[index] = y
            planes[1].pixels[index] = cb
            planes[2].pixels[index] = cr
        }
        return ColorImage(planes: planes)
    }

    /// The image turned as `transform` turns the frame it was captured in.
    public func turned(_ transform: OrientationTransform) -> ColorImage {
        ColorImage(planes: planes.map { plane in
            var upright = GrayImage(width: 0, height: 0)
            transform.apply(plane, into: &upright)
            return upright
        })
    }

    /// The part of the image inside `box` (clipped to it, as ``GrayImage/cropped(to:)``).
    public func cropped(to box: PixelBox) -> ColorImage {
        ColorImage(planes: planes.map { $0.cropped(to: box) })
    }

    /// The image as a JPEG: Y Cb Cr stored as they are, or gray.
    public func jpeg(quality: Int = 85) throws(JPEGEncoder.Failure) -> [UInt8] {
        guard isColor else { return try JPEGEncoder.encode(pixels: planes[0].pixels, width: width, height: height, components: 1, quality: quality) }
        var interleaved = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<width * height {
            interleaved[3 * index] = planes[0].pixels[index]
            interleaved[3 * index + 1] = planes[1].pixels[index]
            interleaved[3 * index + 2] = planes[2].pixels[index]
        }
        return try JPEGEncoder.encode(pixels: interleaved, width: width, height: height, components: 3, quality: quality, ycbcr: true)
    }
}
