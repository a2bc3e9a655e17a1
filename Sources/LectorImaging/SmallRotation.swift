import Foundation
import LectorProtocol

/// Turns an upright image by a small angle (deskew) onto a canvas large enough to hold
/// all of it, and maps what is found in the turned image back to the upright image, so
/// that `box` (upright) and `corners` (captured) keep meaning what they mean.
///
/// Angles are on screen (y grows downwards): turning the content clockwise by the angle
/// at which text lines rise to the right lays them level.
public struct SmallRotation: Sendable, Equatable {
    /// Clockwise degrees the content is turned by.
    public let degrees: Double
    /// The upright image's size.
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The turned canvas's size: the upright image's bounding box after the turn.
    public let width: Int
    public let height: Int
    private let cosine: Double
    private let sine: Double

    /// - Parameters:
    ///   - degrees: clockwise degrees to turn the content by (small: |degrees| < 45).
    ///   - sourceWidth, sourceHeight: the upright image's size.
    public init(clockwise degrees: Double, sourceWidth: Int, sourceHeight: Int) {
        precondition(abs(degrees) < 45, "a small rotation turns by less than 45°")
        self.degrees = degrees
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        let radians = degrees * .pi / 180
        cosine = cos(radians)
        sine = sin(radians)
        let w = Double(sourceWidth), h = Double(sourceHeight)
        // Rounded to a whole pixel after removing the float noise of an exact fit.
        width = Int((w * abs(cosine) + h * abs(sine) - 1e-9).rounded(.up))
        height = Int((w * abs(sine) + h * abs(cosine) - 1e-9).rounded(.up))
    }

    /// Where upright point (`x`, `y`) lands in the turned image (continuous coordinates:
    /// pixel edges, the right edge at `width`).
    public func turnedPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let dx = x - Double(sourceWidth) / 2, dy = y - Double(sourceHeight) / 2
        return (dx * cosine - dy * sine + Double(width) / 2, dx * sine + dy * cosine + Double(height) / 2)
    }

    /// The upright point that lands on turned point (`x`, `y`) (the inverse of
    /// ``turnedPoint(x:y:)``).
    public func sourcePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let dx = x - Double(width) / 2, dy = y - Double(height) / 2
        return (dx * cosine + dy * sine + Double(sourceWidth) / 2, -dx * sine + dy * cosine + Double(sourceHeight) / 2)
    }

    /// The four corners of a turned-image `box` in the upright image, clockwise from
    /// the box's top-left (a quadrilateral turned back by ``degrees``).
    public func sourceCorners(ofTurned box: PixelBox) -> [(x: Double, y: Double)] {
        let left = Double(box.x), top = Double(box.y), right = Double(box.maxX), bottom = Double(box.maxY)
        return [sourcePoint(x: left, y: top), sourcePoint(x: right, y: top),
                sourcePoint(x: right, y: bottom), sourcePoint(x: left, y: bottom)]
    }

    /// The upright box covering a turned-image `box` (its corners turned back), within
    /// the upright image.
    public func sourceBox(ofTurned box: PixelBox) -> PixelBox {
        let corners = sourceCorners(ofTurned: box)
        let xs = corners.map(\.x), ys = corners.map(\.y)
        // A hair of tolerance so that exact edges do not grow by a pixel from float noise.
        let left = max(0, Int(((xs.min() ?? 0) + 1e-6).rounded(.down)))
        let top = max(0, Int(((ys.min() ?? 0) + 1e-6).rounded(.down)))
        let right = min(sourceWidth, Int(((xs.max() ?? 0) - 1e-6).rounded(.up)))
        let bottom = min(sourceHeight, Int(((ys.max() ?? 0) - 1e-6).rounded(.up)))
        return PixelBox(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// `source` turned, bilinearly interpolated; the canvas around it is `background`.
    ///
    /// Fixed-point stepping along each output row (the source position moves by a
    /// constant step per pixel): measured 1.6 / 4.7 / 10.6 ms of CPU at 640×480 /
    /// 1280×720 / 1920×1080 by lector-bench's stages (a loaded 2-core machine).
    public func apply(_ source: GrayImage, background: UInt8) -> GrayImage {
        precondition(source.width == sourceWidth && source.height == sourceHeight, "image size differs from the rotation's")
        var out = GrayImage(width: width, height: height)
        guard sourceWidth > 0, sourceHeight > 0 else { return out }
        let one = 1 << 16
        let stepX = Int((cosine * Double(one)).rounded()), stepY = Int((-sine * Double(one)).rounded())
        let maxX = (sourceWidth - 1) << 16, maxY = (sourceHeight - 1) << 16
        let sw = sourceWidth, outWidth = width
        let fill = background
        source.pixels.withUnsafeBufferPointer { from in
            out.pixels.withUnsafeMutableBufferPointer { to in
                guard let src = from.baseAddress, let dst = to.baseAddress else { return }
                for row in 0..<height {
                    // The source position of this row's first pixel centre, in pixel-centre coordinates.
                    let start = sourcePoint(x: 0.5, y: Double(row) + 0.5)
                    var sx = Int(((start.x - 0.5) * Double(one)).rounded())
                    var sy = Int(((start.y - 0.5) * Double(one)).rounded())
                    let line = dst + row * outWidth
                    for column in 0..<outWidth {
                        if sx >= 0 && sy >= 0 && sx <= maxX && sy <= maxY {
                            let x0 = sx >> 16, y0 = sy >> 16
                            let fx = (sx >> 8) & 0xFF, fy = (sy >> 8) & 0xFF
                            let x1 = x0 + 1 < sw ? x0 + 1 : x0
                            let rowTop = src + y0 * sw
                            let rowBottom = y0 + 1 < sourceHeight ? rowTop + sw : rowTop
                            let top = Int(rowTop[x0]) * (256 - fx) + Int(rowTop[x1]) * fx
                            let bottom = Int(rowBottom[x0]) * (256 - fx) + Int(rowBottom[x1]) * fx
                            line[column] = UInt8(truncatingIfNeeded: (top * (256 - fy) + bottom * fy + 32768) >> 16)
                        } else {
                            line[column] = fill
                        }
                        sx &+= stepX
                        sy &+= stepY
                    }
                }
            }
        }
        return out
    }
}
