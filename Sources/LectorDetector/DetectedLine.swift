import Foundation

/// A point in image pixels (continuous: pixel `x` covers `x..<x+1`).
public struct ImagePoint: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    static func + (a: ImagePoint, b: ImagePoint) -> ImagePoint { ImagePoint(x: a.x + b.x, y: a.y + b.y) }
    static func - (a: ImagePoint, b: ImagePoint) -> ImagePoint { ImagePoint(x: a.x - b.x, y: a.y - b.y) }
    static func * (a: ImagePoint, k: Double) -> ImagePoint { ImagePoint(x: a.x * k, y: a.y * k) }
    func dot(_ other: ImagePoint) -> Double { x * other.x + y * other.y }
}

/// One text line the detector found: a rotated rectangle (OpenCV's RotatedRect) and
/// the mean text probability inside it.
public struct DetectedLine: Equatable, Sendable {
    public var centerX: Double
    public var centerY: Double
    /// Size along the rectangle's own axes: `width` along `angle`.
    public var width: Double
    public var height: Double
    /// Degrees, clockwise in image coordinates (y down).
    public var angle: Double
    public var score: Double

    public init(centerX: Double, centerY: Double, width: Double, height: Double, angle: Double, score: Double) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.angle = angle
        self.score = score
    }

    /// The line as a quadrilateral in reading order. The reading axis is the longer
    /// side (the one nearer horizontal when the box is about square, as a single
    /// character's is); along it, text reads left to right when the axis is within 45°
    /// of horizontal and bottom to top when it is steeper (a page turned a quarter
    /// counter-clockwise); `flipped` turns that half a turn (upside-down text, or a page
    /// turned clockwise).
    public func quad(flipped: Bool = false) -> LineQuad {
        let radians = angle * .pi / 180
        var axis = ImagePoint(x: cos(radians), y: sin(radians))
        var length = width, thickness = height
        let other = ImagePoint(x: -axis.y, y: axis.x)
        let longerIsOther = height > width
        let squarish = max(width, height) < 1.5 * min(width, height)
        if squarish ? abs(other.x) > abs(axis.x) : longerIsOther {
            axis = other
            swap(&length, &thickness)
        }
        // Left to right for shallow axes, bottom to top for steep ones.
        let steep = abs(axis.y) > abs(axis.x)
        if steep ? axis.y > 0 : axis.x < 0 { axis = axis * -1 }
        if flipped { axis = axis * -1 }
        let down = ImagePoint(x: -axis.y, y: axis.x)
        let center = ImagePoint(x: centerX, y: centerY)
        let halfAlong = axis * (length / 2), halfAcross = down * (thickness / 2)
        return LineQuad(topLeft: center - halfAlong - halfAcross, topRight: center + halfAlong - halfAcross,
                        bottomRight: center + halfAlong + halfAcross, bottomLeft: center - halfAlong + halfAcross)
    }

    /// The same line with `fraction` of its thickness (its shorter side for about-square
    /// boxes, as ``quad(flipped:)`` reads them) added on each side across the text.
    public func grown(across fraction: Double) -> DetectedLine {
        guard fraction != 0 else { return self }
        let q = quad()
        var line = self
        let extra = 2 * fraction * q.thickness
        // `width` is the side along `angle`: grow whichever side is the quad's thickness.
        if abs(q.thickness - height) <= abs(q.thickness - width) { line.height += extra } else { line.width += extra }
        return line
    }

    /// Whether the reading axis is more than 45° from horizontal.
    public var isSteep: Bool {
        let q = quad()
        return abs(q.topRight.y - q.topLeft.y) > abs(q.topRight.x - q.topLeft.x)
    }
}

/// A text line's four corners in reading order, in image pixels: top-left, top-right,
/// bottom-right, bottom-left as the text reads (a rectangle, possibly rotated).
public struct LineQuad: Equatable, Sendable {
    public var topLeft: ImagePoint
    public var topRight: ImagePoint
    public var bottomRight: ImagePoint
    public var bottomLeft: ImagePoint

    public init(topLeft: ImagePoint, topRight: ImagePoint, bottomRight: ImagePoint, bottomLeft: ImagePoint) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// Length along the reading direction.
    public var length: Double { hypot(topRight.x - topLeft.x, topRight.y - topLeft.y) }
    /// Height across it.
    public var thickness: Double { hypot(bottomLeft.x - topLeft.x, bottomLeft.y - topLeft.y) }

    /// The quad made longer by `amount` pixels at each end, along its reading direction.
    public func lengthened(by amount: Double) -> LineQuad {
        lengthened(before: amount, after: amount)
    }

    /// The quad made longer by `before` pixels at its start and `after` at its end, along
    /// its reading direction.
    public func lengthened(before: Double, after: Double) -> LineQuad {
        let run = length
        guard run > 0, before != 0 || after != 0 else { return self }
        let unit = (topRight - topLeft) * (1 / run)
        return LineQuad(topLeft: topLeft - unit * before, topRight: topRight + unit * after,
                        bottomRight: bottomRight + unit * after, bottomLeft: bottomLeft - unit * before)
    }

    /// The same quad moved by (`dx`, `dy`).
    public func offset(dx: Double, dy: Double) -> LineQuad {
        let d = ImagePoint(x: dx, y: dy)
        return LineQuad(topLeft: topLeft + d, topRight: topRight + d, bottomRight: bottomRight + d, bottomLeft: bottomLeft + d)
    }

    /// The smallest pixel box holding the four corners.
    public var boundingBox: PixelBoxBounds {
        let xs = [topLeft.x, topRight.x, bottomRight.x, bottomLeft.x], ys = [topLeft.y, topRight.y, bottomRight.y, bottomLeft.y]
        return PixelBoxBounds(minX: xs.min() ?? 0, minY: ys.min() ?? 0, maxX: xs.max() ?? 0, maxY: ys.max() ?? 0)
    }
}

/// Continuous bounds (minimum and maximum corners), before rounding to pixels.
public struct PixelBoxBounds: Equatable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double
}

extension DetectedLine {
    /// The line moved by a shift of the scene.
    func moved(dx: Int, dy: Int) -> DetectedLine {
        var moved = self
        moved.centerX += Double(dx)
        moved.centerY += Double(dy)
        return moved
    }
}
