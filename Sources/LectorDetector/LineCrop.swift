import Foundation
import LectorImaging
import LectorProtocol

/// One detected line cut out of an image and straightened: the quad's rectangle turned
/// so that its text runs left to right, scaled by ``scale``, sampled bilinearly; and the
/// transform back, so boxes found in the crop land in the image's pixels.
///
/// Crop point (X, Y) (continuous, crop pixels) is image point
/// `topLeft + along × X / scale + across × Y / scale`, where `along` and `across` are the
/// quad's unit reading and downward directions.
public struct LineCrop: Equatable, Sendable {
    public let quad: LineQuad
    /// Crop pixels per image pixel.
    public let scale: Double
    /// Crop pixels of plain background around the quad's pixels on every side.
    public let padding: Int
    /// The crop's size, padding included.
    public let width: Int
    public let height: Int
    private let along: ImagePoint
    private let across: ImagePoint

    /// - Parameters:
    ///   - scale: crop pixels per image pixel (an upscale for small text).
    ///   - padding: crop pixels of background added on every side (Tesseract reads a
    ///     line whose letters touch the image's edge worse).
    public init(quad: LineQuad, scale: Double, padding: Int = 0) {
        precondition(scale > 0 && padding >= 0, "a crop's scale is positive, its padding not negative")
        self.quad = quad
        self.scale = scale
        self.padding = padding
        let length = max(quad.length, 1e-6), thickness = max(quad.thickness, 1e-6)
        along = (quad.topRight - quad.topLeft) * (1 / length)
        across = (quad.bottomLeft - quad.topLeft) * (1 / thickness)
        width = max(1, Int((quad.length * scale).rounded())) + 2 * padding
        height = max(1, Int((quad.thickness * scale).rounded())) + 2 * padding
    }

    /// The scale that brings a line `thickness` image pixels tall to about `target`
    /// crop pixels: small text is enlarged (at most 4×), large text shrunk only beyond
    /// three times the target (Tesseract's time grows with the pixels).
    public static func scale(forThickness thickness: Double, target: Double) -> Double {
        guard thickness > 0 else { return 1 }
        if thickness < target { return min(4, target / thickness) }
        if thickness > 3 * target { return 3 * target / thickness }
        return 1
    }

    /// The image point of crop point `point`.
    public func imagePoint(ofCrop point: ImagePoint) -> ImagePoint {
        let p = Double(padding)
        return quad.topLeft + along * ((point.x - p) / scale) + across * ((point.y - p) / scale)
    }

    /// The crop point of image point `point` (the inverse of ``imagePoint(ofCrop:)``).
    public func cropPoint(ofImage point: ImagePoint) -> ImagePoint {
        let d = point - quad.topLeft, p = Double(padding)
        return ImagePoint(x: d.dot(along) * scale + p, y: d.dot(across) * scale + p)
    }

    /// The pixel box in the image (`imageWidth` × `imageHeight`, clipped to it) that holds
    /// crop box `box`'s four corners.
    public func imageBox(ofCrop box: PixelBox, imageWidth: Int, imageHeight: Int) -> PixelBox {
        imageBox(ofCrop: PixelBoxBounds(minX: Double(box.x), minY: Double(box.y), maxX: Double(box.maxX), maxY: Double(box.maxY)),
                 imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The pixel box in the image (clipped to it) that holds the four corners of the
    /// continuous crop rectangle `bounds` (a neural line's columns are fractional).
    public func imageBox(ofCrop bounds: PixelBoxBounds, imageWidth: Int, imageHeight: Int) -> PixelBox {
        let corners = [ImagePoint(x: bounds.minX, y: bounds.minY), ImagePoint(x: bounds.maxX, y: bounds.minY),
                       ImagePoint(x: bounds.maxX, y: bounds.maxY), ImagePoint(x: bounds.minX, y: bounds.maxY)]
            .map(imagePoint(ofCrop:))
        let minX = Int(corners.map(\.x).min().map { ($0 + 1e-6).rounded(.down) } ?? 0)
        let minY = Int(corners.map(\.y).min().map { ($0 + 1e-6).rounded(.down) } ?? 0)
        let maxX = Int(corners.map(\.x).max().map { ($0 - 1e-6).rounded(.up) } ?? 0)
        let maxY = Int(corners.map(\.y).max().map { ($0 - 1e-6).rounded(.up) } ?? 0)
        let x0 = min(max(minX, 0), imageWidth), y0 = min(max(minY, 0), imageHeight)
        let x1 = min(max(maxX, x0), imageWidth), y1 = min(max(maxY, y0), imageHeight)
        return PixelBox(x: x0, y: y0, width: max(x1 - x0, 0), height: max(y1 - y0, 0))
    }

    /// The crop's pixels from `image`: each crop pixel's centre mapped into the image
    /// and sampled bilinearly (outside the image the nearest edge pixel is repeated);
    /// the padding is the median of the sampled pixels' outer ring (the background).
    public func image(from image: GrayImage) -> GrayImage {
        var out = GrayImage(width: width, height: height)
        guard image.width > 0, image.height > 0 else { return out }
        let sourceWidth = image.width, sourceHeight = image.height
        let stepX = along * (1 / scale), stepY = across * (1 / scale)
        // Image point of the first sampled pixel's centre, in pixel-index space (centres at integers).
        let origin = quad.topLeft + stepX * 0.5 + stepY * 0.5 - ImagePoint(x: 0.5, y: 0.5)
        let outWidth = width, pad = padding
        let innerWidth = width - 2 * pad, innerHeight = height - 2 * pad
        image.pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<innerHeight {
                    let rowStart = origin + stepY * Double(y)
                    let row = (y + pad) * outWidth + pad
                    for x in 0..<innerWidth {
                        let sx = min(max(rowStart.x + stepX.x * Double(x), 0), Double(sourceWidth - 1))
                        let sy = min(max(rowStart.y + stepX.y * Double(x), 0), Double(sourceHeight - 1))
                        let x0 = Int(sx), y0 = Int(sy)
                        let x1 = min(x0 + 1, sourceWidth - 1), y1 = min(y0 + 1, sourceHeight - 1)
                        let fx = sx - Double(x0), fy = sy - Double(y0)
                        let top = Double(source[y0 * sourceWidth + x0]) * (1 - fx) + Double(source[y0 * sourceWidth + x1]) * fx
                        let bottom = Double(source[y1 * sourceWidth + x0]) * (1 - fx) + Double(source[y1 * sourceWidth + x1]) * fx
                        target[row + x] = UInt8(clamping: Int((top * (1 - fy) + bottom * fy).rounded()))
                    }
                }
                guard pad > 0, innerWidth > 0, innerHeight > 0 else { return }
                var ring: [UInt8] = []
                for x in 0..<innerWidth { ring.append(target[pad * outWidth + pad + x]); ring.append(target[(pad + innerHeight - 1) * outWidth + pad + x]) }
                for y in 0..<innerHeight { ring.append(target[(pad + y) * outWidth + pad]); ring.append(target[(pad + y) * outWidth + pad + innerWidth - 1]) }
                ring.sort()
                let background = ring[ring.count / 2]
                for y in 0..<height {
                    for x in 0..<outWidth where y < pad || y >= pad + innerHeight || x < pad || x >= pad + innerWidth {
                        target[y * outWidth + x] = background
                    }
                }
            }
        }
        return out
    }
}
