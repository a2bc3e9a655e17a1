import LectorImaging

/// Packs a known luma image into any raw ``PixelFormat`` (with random chroma and
/// optional row padding), so extraction can be checked against the luma it started from.
public enum FrameSynthesizer {
    /// Bytes of a `format` frame whose Y samples are `luma`'s pixels.
    /// - Parameter padding: extra bytes at the end of every row of every plane.
    public static func pack(_ luma: GrayImage, as format: PixelFormat, padding: Int = 0, seed: UInt64 = 7) -> (bytes: [UInt8], bytesPerLine: Int) {
        let width = luma.width, height = luma.height
        let stride = format.minimumBytesPerLine(width: width) + padding
        let size = format.frameSize(width: width, height: height, bytesPerLine: stride)!
        var bytes = TestSupport.randomBytes(count: size, seed: seed)  // chroma and padding: noise
        func put(_ x: Int, _ y: Int, _ offset: Int) { bytes[y * stride + offset] = luma[x, y] }
        for y in 0..<height {
            for x in 0..<width {
                switch format {
                case .grey, .nv12, .nv21, .nv16, .nv61, .yu12, .yv12: put(x, y, x)
                case .yuyv, .yvyu: put(x, y, 2 * x)
                case .uyvy, .vyuy: put(x, y, 2 * x + 1)
                default: preconditionFailure("pack covers YUV formats; RGB has its own test")
                }
            }
        }
        return (bytes, stride)
    }

    /// A gray image of noise, so every pixel position matters.
    public static func noise(width: Int, height: Int, seed: UInt64 = 1) -> GrayImage {
        GrayImage(width: width, height: height, pixels: TestSupport.randomBytes(count: width * height, seed: seed))
    }

    public static func frame(_ bytes: [UInt8], format: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil,
                      bytesUsed: Int? = nil) -> Frame {
        Frame(format: format, width: width, height: height, bytesPerLine: bytesPerLine, bytesUsed: bytesUsed,
              sequence: 0, timestamp: .now(), buffer: HeapFrameBuffer(copying: bytes))
    }
}
