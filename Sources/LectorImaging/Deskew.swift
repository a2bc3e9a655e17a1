import Foundation
import LectorProtocol

/// The residual angle of text lines in an upright image (what remains after the
/// 0/90/180/270 orientation: a card held a little crooked, a page photographed at a
/// slant), estimated from the image itself, and what Lector does with it.
///
/// The estimate is a projection profile on a reduced image: dark pixels (darker than
/// their neighbourhood) are projected across the image at each candidate angle, and the
/// angle whose profile has the sharpest rows (the largest sum of squared differences
/// between neighbouring rows, as Leptonica's skew sweep scores it) is the lines' angle.
/// A sweep over ±``maximumDegrees`` in ``sweepStep`` steps, then a finer one around the
/// best. Images without enough aligned dark marks give nil.
public enum Deskew {
    /// The largest angle looked for, either way.
    public static let maximumDegrees = 15.0
    /// Angles smaller than this are left alone: turning the image costs more than it
    /// gains (Tesseract itself copes with a degree or so).
    public static let minimumDegrees = 0.5
    /// The long side of the reduced image the angle is estimated on, at most (halved
    /// until it fits: a 1920×1080 frame is read at 480×270).
    public static let estimateSide = 1024
    /// The coarse sweep's step, degrees.
    static let sweepStep = 0.5
    /// The best angle's score must be this many times the sweep's median score.
    static let minimumConfidence = 1.25
    /// Dark pixels sampled at most (spread evenly over the image).
    static let maximumPoints = 16_000

    /// One estimate: the angle and how clearly it stood out.
    public struct Estimate: Sendable, Equatable {
        /// Counter-clockwise degrees (on screen) at which the text lines rise to the
        /// right; turning the image clockwise by it lays them level.
        public var degrees: Double
        /// The best score over the sweep's median score (1: no preference).
        public var confidence: Double
    }

    /// The text lines' angle in `image`, counter-clockwise degrees (lines rising to the
    /// right are positive), within ±`maximum`; nil when no angle stands out (no text,
    /// too little of it, or text that is not in lines).
    public static func estimateAngle(_ image: GrayImage, maximum: Double = maximumDegrees) -> Double? {
        estimate(image, maximum: maximum).flatMap { $0.confidence >= minimumConfidence ? $0.degrees : nil }
    }

    /// The sweep's best angle and its confidence, whatever the confidence; nil when the
    /// image has too few dark marks to say anything.
    public static func estimate(_ image: GrayImage, maximum: Double = maximumDegrees) -> Estimate? {
        let reduced = image.reduced(toLongSide: estimateSide)
        let points = darkPoints(of: reduced)
        guard points.x.count >= 200 else { return nil }
        let diagonal = Int((Double(reduced.width * reduced.width + reduced.height * reduced.height)).squareRoot().rounded(.up)) + 4
        var bins = [Int32](repeating: 0, count: diagonal)
        // The coarse sweep looks at one point in `coarseStride` (the points are a random
        // sample already), the fine one at all of them.
        let coarseStride = max(1, points.x.count / 4000)
        func score(_ degrees: Double, stride step: Int = 1) -> Double {
            let radians = degrees * .pi / 180
            let s = Float(sin(radians)), c = Float(cos(radians))
            let offset = Float(diagonal / 2)
            for index in bins.indices { bins[index] = 0 }
            points.x.withUnsafeBufferPointer { xs in
                points.y.withUnsafeBufferPointer { ys in
                    bins.withUnsafeMutableBufferPointer { counts in
                        for index in Swift.stride(from: 0, to: xs.count, by: step) {
                            let bin = Int(xs[index] * s + ys[index] * c + offset)
                            if bin >= 0 && bin < counts.count { counts[bin] &+= 1 }
                        }
                    }
                }
            }
            var sum = 0.0
            for index in 1..<bins.count {
                let difference = Double(bins[index] - bins[index - 1])
                sum += difference * difference
            }
            return sum
        }
        let steps = Int((maximum / sweepStep).rounded())
        var scores: [(degrees: Double, score: Double)] = []
        for step in -steps...steps {
            let degrees = Double(step) * sweepStep
            scores.append((degrees, score(degrees, stride: coarseStride)))
        }
        guard let coarse = scores.max(by: { $0.score < $1.score }) else { return nil }
        let sorted = scores.map(\.score).sorted()
        let median = sorted[sorted.count / 2]
        // A finer sweep around the best coarse angle, with every point.
        var best = (degrees: coarse.degrees, score: score(coarse.degrees))
        var degrees = coarse.degrees - sweepStep
        while degrees <= coarse.degrees + sweepStep + 1e-9 {
            let value = score(degrees)
            if value > best.score { best = (degrees, value) }
            degrees += 0.1
        }
        // The best at the very end of the range is the range's edge, not a peak; a second
        // peak almost as high elsewhere (a grid, tiles: no lines of text) is no answer either.
        guard abs(best.degrees) < maximum - sweepStep / 2 else { return Estimate(degrees: best.degrees, confidence: 1) }
        let rival = scores.filter { abs($0.degrees - coarse.degrees) > 2 }.map(\.score).max() ?? 0
        guard rival < 0.85 * coarse.score else { return Estimate(degrees: best.degrees, confidence: 1) }
        let confidence = median > 0 ? coarse.score / median : 1
        return Estimate(degrees: (best.degrees * 10).rounded() / 10, confidence: confidence)
    }

    /// The rotation that lays `image`'s lines level, or nil when they already are (the
    /// angle is unknown or smaller than ``minimumDegrees``).
    public static func rotation(for angle: Double?, width: Int, height: Int) -> SmallRotation? {
        guard let angle, abs(angle) >= minimumDegrees, abs(angle) <= maximumDegrees else { return nil }
        return SmallRotation(clockwise: angle, sourceWidth: width, sourceHeight: height)
    }

    /// The value of the image's border, where a page or card usually shows its ground:
    /// what the canvas around a turned image is filled with.
    public static func background(of image: GrayImage) -> UInt8 {
        guard image.width > 0, image.height > 0 else { return 255 }
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            let w = image.width, h = image.height
            for x in 0..<w {
                histogram[Int(pixels[x])] += 1
                histogram[Int(pixels[(h - 1) * w + x])] += 1
            }
            for y in 0..<h {
                histogram[Int(pixels[y * w])] += 1
                histogram[Int(pixels[y * w + w - 1])] += 1
            }
            count = 2 * (w + h)
        }
        var seen = 0
        for value in 0..<256 {
            seen += histogram[value]
            if seen * 2 >= count { return UInt8(value) }
        }
        return 255
    }

    /// Pixels clearly darker than the mean of their neighbourhood (ink on a page or a
    /// card, whatever the light falling on it), as coordinates from the image's centre,
    /// at most ``maximumPoints`` of them, taken evenly.
    static func darkPoints(of image: GrayImage) -> (x: [Float], y: [Float]) {
        let w = image.width, h = image.height
        guard w >= 16, h >= 16 else { return ([], []) }
        // Integral image, one row and column of zeros in front.
        let iw = w + 1
        var integral = [Int32](repeating: 0, count: iw * (h + 1))
        let radius = max(4, min(w, h) / 30)
        var dark: [Int32] = []
        dark.reserveCapacity(w * h / 8)
        image.pixels.withUnsafeBufferPointer { pixels in
            integral.withUnsafeMutableBufferPointer { sums in
                for y in 0..<h {
                    var rowSum: Int32 = 0
                    let row = y * w, above = y * iw + 1, here = (y + 1) * iw + 1
                    for x in 0..<w {
                        rowSum &+= Int32(pixels[row + x])
                        sums[here + x] = sums[above + x] &+ rowSum
                    }
                }
                for y in 0..<h {
                    let top = max(0, y - radius), bottom = min(h, y + radius + 1)
                    let topRow = top * iw, bottomRow = bottom * iw, height = bottom - top
                    for x in 0..<w {
                        let left = max(0, x - radius), right = min(w, x + radius + 1)
                        let area = height * (right - left)
                        let total = Int(sums[bottomRow + right]) - Int(sums[topRow + right]) - Int(sums[bottomRow + left]) + Int(sums[topRow + left])
                        let value = Int(pixels[y * w + x])
                        // Darker than the local mean by 12% of it, and by at least 10 levels.
                        if value * area * 100 < total * 88 && (value + 10) * area < total {
                            dark.append(Int32(y * w + x))
                        }
                    }
                }
            }
        }
        guard !dark.isEmpty else { return ([], []) }
        let every = max(1, (dark.count + maximumPoints - 1) / maximumPoints)
        var xs: [Float] = [], ys: [Float] = []
        xs.reserveCapacity(dark.count / every + 1)
        ys.reserveCapacity(dark.count / every + 1)
        let cx = Float(w) / 2, cy = Float(h) / 2
        // A pseudo-random one in `every` (a fixed seed: the same image gives the same
        // angle); taking every n-th point in raster order would sample on a lattice, whose
        // own slopes show up as false peaks.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let keep = UInt64(every)
        for index in dark {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if keep == 1 || (state >> 33) % keep == 0 {
                let i = Int(index)
                xs.append(Float(i % w) + 0.5 - cx)
                ys.append(Float(i / w) + 0.5 - cy)
            }
        }
        return (xs, ys)
    }
}
