/// What one frame may cost before it is decoded: every decoder checks the size its
/// header declares against these limits first, so a small file that declares a huge
/// image (a decompression bomb) is rejected without allocating for it.
public struct FrameLimits: Equatable, Sendable {
    /// The most pixels one frame may have: 8K UHD (7680×4320) by default.
    public var maximumPixels: Int
    /// The longest side in pixels.
    public var maximumSide: Int
    /// The most scans a progressive JPEG may carry (each is a pass over the whole image;
    /// encoders write about ten).
    public var maximumScans: Int

    public init(maximumPixels: Int = 7680 * 4320, maximumSide: Int = LumaExtractor.maximumSide, maximumScans: Int = 100) {
        self.maximumPixels = maximumPixels
        self.maximumSide = maximumSide
        self.maximumScans = maximumScans
    }

    public static let standard = FrameLimits()

    /// The most memory a decoder's own buffers may take: 4 bytes per allowed pixel
    /// (a progressive JPEG keeps 2-byte coefficients of every component).
    public var maximumDecoderBytes: Int { maximumPixels * 4 }

    /// Why `width` × `height` is refused, or nil when it is within the limits.
    public func refusal(width: Int, height: Int) -> String? {
        guard width > 0, height > 0 else { return "declares an empty size \(width)x\(height)" }
        if width > maximumSide || height > maximumSide {
            return "declares \(width)x\(height), over the limit of \(maximumSide) pixels a side"
        }
        if width.multipliedReportingOverflow(by: height).partialValue > maximumPixels || width > Int.max / height {
            return "declares \(width)x\(height), over the limit of \(maximumPixels) pixels"
        }
        return nil
    }
}
