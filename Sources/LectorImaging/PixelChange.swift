/// How much an image of a scene changed since an earlier one of the same size, in gray
/// levels: over all its pixels (noise shows here, as does every change) and in the block
/// that changed most (a local change shows here even when the rest stayed: a character,
/// a line coming into view).
///
/// A reader uses it to tell whether reading the same place again can tell anything new:
/// the same pixels read the same.
public struct PixelChange: Equatable, Sendable {
    /// Side of the blocks ``largestBlockDifference`` compares.
    public static let blockSide = 8
    /// The pixels' mean absolute difference.
    public let meanDifference: Double
    /// The largest absolute difference of one block's mean.
    public let largestBlockDifference: Double

    /// The change from `before` to `after`; nil when their sizes differ.
    public init?(from before: GrayImage, to after: GrayImage) {
        guard before.width == after.width, before.height == after.height else { return nil }
        guard before.width > 0, before.height > 0 else {
            meanDifference = 0
            largestBlockDifference = 0
            return
        }
        let change = before.pixels.withUnsafeBufferPointer { old in
            after.pixels.withUnsafeBufferPointer { new in
                FrameKernels.pixelChange(old, new, width: before.width, height: before.height, side: Self.blockSide)
            }
        }
        meanDifference = Double(change.absoluteSum) / Double(before.width * before.height)
        largestBlockDifference = change.largestBlockMean
    }

    /// Whether the change is no more than a still scene's stacked frames differ by: a
    /// mean difference of at most 1 gray level (the mean of 16 frames of a camera whose
    /// noise is σ 3.5 differs from the next 16's by about that; a dim camera's single
    /// frame from its stack by several times more) and no block's mean moved by more than
    /// 4 (a changed character moves its blocks by tens).
    public var isNegligible: Bool { meanDifference <= 1 && largestBlockDifference <= 4 }
}
