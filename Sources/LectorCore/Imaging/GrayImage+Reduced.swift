/// Small copies of an image for the checks that need no detail: the skew estimate and
/// the orientation check.
extension GrayImage {
    /// This image box-averaged by the smallest whole factor that brings its long side to
    /// at most `side` pixels (itself when it already fits); the last rows and columns
    /// that do not fill a whole block are dropped.
    public func reduced(toLongSide side: Int) -> GrayImage {
        let factor = Self.reduction(width: width, height: height, toLongSide: side)
        guard factor > 1 else { return self }
        let w = width / factor, h = height / factor
        var out = GrayImage(width: w, height: h)
        let sw = width, area = factor * factor
        pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                var sums = [Int](repeating: 0, count: w)
                for y in 0..<h {
                    for index in 0..<w { sums[index] = 0 }
                    for row in (y * factor)..<(y * factor + factor) {
                        let base = row * sw
                        for x in 0..<w {
                            var sum = 0
                            let start = base + x * factor
                            for column in 0..<factor { sum &+= Int(source[start + column]) }
                            sums[x] &+= sum
                        }
                    }
                    for x in 0..<w { target[y * w + x] = UInt8(truncatingIfNeeded: (sums[x] + area / 2) / area) }
                }
            }
        }
        return out
    }

    /// The whole factor ``reduced(toLongSide:)`` divides by.
    public static func reduction(width: Int, height: Int, toLongSide side: Int) -> Int {
        max(1, Int((Double(max(width, height)) / Double(max(1, side))).rounded(.up)))
    }
}
