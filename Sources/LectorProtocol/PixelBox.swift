/// An axis-aligned rectangle in pixels: `x`, `y` is the top-left corner.
public struct PixelBox: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The largest far edge (`x + width`, `y + height`) a configured box may have: four
    /// times the longest frame side lectord takes (16,384), so that no arithmetic on a
    /// configured box (clipping, a zone's 4× upscale, areas) can overflow.
    public static let maximumEdge = 65_536

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }

    /// Why this box cannot be configured, or nil when it can: every coordinate ≥ 0, width
    /// and height above 0, and each far edge at most ``maximumEdge`` (summed without
    /// overflowing, whatever the numbers).
    public var configurationProblem: String? {
        guard x >= 0, y >= 0, width > 0, height > 0 else {
            return "x and y must be 0 or more, width and height above 0"
        }
        let right = x.addingReportingOverflow(width), bottom = y.addingReportingOverflow(height)
        guard !right.overflow, !bottom.overflow, right.partialValue <= Self.maximumEdge, bottom.partialValue <= Self.maximumEdge else {
            return "its far edge (x + width, y + height) must be at most \(Self.maximumEdge) pixels"
        }
        return nil
    }

    /// The part of this box inside a `width` × `height` image (overflow-safe: a far edge
    /// beyond `Int.max` counts as `Int.max`).
    public func clipped(width imageWidth: Int, height imageHeight: Int) -> PixelBox {
        let farX = x.addingReportingOverflow(width), farY = y.addingReportingOverflow(height)
        let left = max(0, min(x, imageWidth)), top = max(0, min(y, imageHeight))
        let right = max(left, min(farX.overflow ? (width < 0 ? Int.min : Int.max) : farX.partialValue, imageWidth))
        let bottom = max(top, min(farY.overflow ? (height < 0 ? Int.min : Int.max) : farY.partialValue, imageHeight))
        return PixelBox(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// What is wrong with reading this box of a `width` × `height` upright image, or nil
    /// when it lies inside: `"<label> x,y,w,h lies outside the WxH upright image: <outside>"`
    /// or `"… extends beyond …: only x,y,w,h is read"`.
    public func fitProblem(label: String, width imageWidth: Int, height imageHeight: Int, outside: String) -> String? {
        let clipped = clipped(width: imageWidth, height: imageHeight)
        let given = "\(label) \(x),\(y),\(width),\(height)"
        if clipped.area == 0 { return "\(given) lies outside the \(imageWidth)x\(imageHeight) upright image: \(outside)" }
        if clipped != self {
            return "\(given) extends beyond the \(imageWidth)x\(imageHeight) upright image: only "
                + "\(clipped.x),\(clipped.y),\(clipped.width),\(clipped.height) is read"
        }
        return nil
    }

    /// The smallest box holding both.
    public func union(_ other: PixelBox) -> PixelBox {
        let left = min(x, other.x), top = min(y, other.y)
        return PixelBox(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// Every coordinate multiplied by `factor`.
    public func scaled(by factor: Int) -> PixelBox {
        PixelBox(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }

    /// Moved by `dx`, `dy`.
    public func offset(dx: Int, dy: Int) -> PixelBox {
        PixelBox(x: x + dx, y: y + dy, width: width, height: height)
    }

    public var description: String { "\(x),\(y),\(width),\(height)" }
}
