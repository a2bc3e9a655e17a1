import LectorProtocol
import LectorSystem

/// The row and column intensity profiles of a luma image, high-pass filtered: a cheap
/// fingerprint from which the global shift between two frames of a scene is estimated.
///
/// Projections instead of a 2-D phase correlation: one pass over the image plus two 1-D
/// searches, far under the capture side's budget at 720p, and exact to the pixel for
/// the translations of a hand-held camera. Small rotations (a fraction of a degree) are
/// not estimated: they move text near a 1280 px frame's edge by a pixel or two.
public struct LumaProfiles: Sendable, Equatable {
    /// Per row, the mean of the row minus a local mean over nearby rows.
    public var rows: [Float]
    /// Per column, the same over columns.
    public var columns: [Float]

    /// Radius, in pixels, of the local mean removed from each profile (uneven light).
    static let detrendRadius = 12

    public init(rows: [Float], columns: [Float]) {
        self.rows = rows
        self.columns = columns
    }

    /// The profiles of `image` (a luma plane of `width` × `height`, rows `stride` apart).
    public init(_ image: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int) {
        guard image.baseAddress != nil, width > 0, height > 0 else {
            self.init(rows: [], columns: [])
            return
        }
        var columnSums = [UInt32](repeating: 0, count: width)
        var rowSums = [UInt32](repeating: 0, count: height)
        columnSums.withUnsafeMutableBufferPointer { columns in
            rowSums.withUnsafeMutableBufferPointer { rows in
                FrameKernels.profileSums(image, width: width, height: height, stride: stride, columnSums: columns, rowSums: rows)
            }
        }
        let rowMeans = rowSums.map { Float($0) / Float(width) }
        let columnMeans = columnSums.map { Float($0) / Float(height) }
        self.init(rows: Self.detrended(rowMeans), columns: Self.detrended(columnMeans))
    }

    /// The profiles of a gray image.
    public init(_ image: GrayImage) {
        let (width, height) = (image.width, image.height)
        self = image.pixels.withUnsafeBufferPointer { LumaProfiles($0, width: width, height: height, stride: width) }
    }

    /// `values` minus their running mean over ±``detrendRadius``, smoothed with a
    /// [1 2 1] kernel (measured on dim, noisy scenes: halves the worst shift error).
    static func detrended(_ values: [Float]) -> [Float] { FrameKernels.detrended(values, radius: detrendRadius) }

    /// How far the content of `self` moved relative to `reference`, searched within
    /// ±`radius` pixels per axis, and how well the best shift matches. Of the offsets
    /// that match about as well as the best (``ambiguity``), the one nearest `near` is
    /// taken: lines of text repeat along both axes, and a noisy frame's best match can be
    /// a line or a few letters away (measured: ±30 px on a dim 640×480 hand-held scene).
    /// - Parameter near: the shift expected (the previous frame's); zero: none.
    public func shift(from reference: LumaProfiles, radius: Int, near: EstimatedShift = .init(dx: 0, dy: 0)) -> EstimatedShift {
        let x = Self.bestOffset(reference.columns, columns, radius: radius, near: near.dx)
        let y = Self.bestOffset(reference.rows, rows, radius: radius, near: near.dy)
        return EstimatedShift(dx: x.offset, dy: y.offset, mismatch: min(x.mismatch, y.mismatch))
    }

    /// Minima of the cost whose cost is within this share of the gap between the best
    /// cost and the median cost match about as well as the best.
    static let ambiguity: Float = 0.15

    /// The offset d minimizing the mean |reference[i] − moved[i + d]| over the overlap
    /// (of those about as good, the one nearest `near`), and the mismatch: that cost over
    /// the median cost of all offsets searched. A sharp minimum (the same scene, moved)
    /// gives a small ratio even under heavy noise; another scene has no clear minimum and
    /// a ratio near 1.
    static func bestOffset(_ reference: [Float], _ moved: [Float], radius: Int, near: Int = 0) -> (offset: Int, mismatch: Float) {
        let count = min(reference.count, moved.count)
        guard count > 2 * radius + 8 else { return (0, 0) }
        var costs = [Float](repeating: 0, count: 2 * radius + 1)
        reference.withUnsafeBufferPointer { reference in
            moved.withUnsafeBufferPointer { moved in
                costs.withUnsafeMutableBufferPointer { costs in
                    FrameKernels.offsetCosts(reference, moved, count: count, radius: radius, into: costs)
                }
            }
        }
        var best = 0
        for index in costs.indices where costs[index] < costs[best] { best = index }
        let median = costs.sorted()[costs.count / 2]
        let good = costs[best] + ambiguity * (median - costs[best])
        // Candidates are the minima of the cost curve (a shift within one minimum's basin
        // is no other match), the best and those within the ambiguity of it.
        func isMinimum(_ index: Int) -> Bool {
            (index == 0 || costs[index] <= costs[index - 1]) && (index == costs.count - 1 || costs[index] <= costs[index + 1])
        }
        var chosen = best
        for index in costs.indices where costs[index] <= good && isMinimum(index)
            && abs(index - radius - near) < abs(chosen - radius - near) {
            chosen = index
        }
        return (chosen - radius, median > 0 ? costs[chosen] / median : 0)
    }
}

/// A global translation between two frames: content at (x, y) in the reference is at
/// (x + dx, y + dy) in the newer frame.
public struct EstimatedShift: Sendable, Equatable {
    public var dx: Int
    public var dy: Int
    /// The best shift's profile difference over the median difference of all shifts
    /// searched, on the axis with the clearer minimum: measured 0.06–0.15 for clean
    /// scenes, 0.3–0.65 for small dim noisy text, 0.75–0.97 for another scene (content
    /// changes are mostly caught by the block test; this catches a blank or flat view).
    public var mismatch: Float

    public init(dx: Int, dy: Int, mismatch: Float = 0) {
        self.dx = dx
        self.dy = dy
        self.mismatch = mismatch
    }
}
