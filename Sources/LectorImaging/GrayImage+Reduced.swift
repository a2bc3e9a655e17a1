/// Small copies of an image for the checks that need no detail: the skew estimate and
/// the orientation check.
extension GrayImage {
    /// This image halved (2×2 means, ``halved(into:)``) as often as it takes to bring its
    /// long side to at most `side` pixels; itself when it already fits.
    public func reduced(toLongSide side: Int) -> GrayImage {
        var factor = Self.reduction(width: width, height: height, toLongSide: side)
        guard factor > 1 else { return self }
        var current = self
        var next = GrayImage(width: 0, height: 0)
        while factor > 1 && current.width >= 2 && current.height >= 2 {
            current.halved(into: &next)
            swap(&current, &next)
            factor /= 2
        }
        return current
    }

    /// The power of two ``reduced(toLongSide:)`` divides by.
    public static func reduction(width: Int, height: Int, toLongSide side: Int) -> Int {
        var factor = 1
        while max(width, height) / factor > max(1, side) { factor *= 2 }
        return factor
    }
}
