import LectorImaging

/// The gate's refresh of a still scene (``LiveSettings/refreshSeconds``) on a camera
/// whose source decodes little while the scene is still (a ``StillSceneHint``: a network
/// camera decoding key frames only), where that refresh's read is most of what the
/// camera costs besides receiving its stream.
///
/// The refresh is there for changes the gate's signature cannot see: a digit on a meter
/// or a word on a label moves a block of the 16×16 signature by less than
/// ``LiveSettings/gateLevel``. A changed character moves the 8×8 blocks it covers by tens
/// of gray levels, so the stacked frame due for its refresh is first compared with the
/// frame last read (``PixelChange``): a frame that is still the one read (``isSame(_:)``)
/// is not read again, since the same pixels read the same (as the detector layout keeps
/// a line's reading); any other is read. The frame last *read* stays the reference, so a
/// slow change adds up from refresh to refresh until it is read.
///
/// Not thread-safe: the recognition loop keeps it inside its ordered step.
package struct StillSceneRefresh {
    /// No 8×8 block's mean moved by more than this many gray levels (as
    /// ``PixelChange/isNegligible``: a changed character moves its blocks by tens)…
    package static let largestBlockDifference = 4.0
    /// …and the pixels by at most this on average. Twice ``PixelChange/isNegligible``'s
    /// bound: a stack fed key frames only folds a new frame every key frame interval, and
    /// on tests/netcam's noisy 1080p stream two refreshes' stacks differed by 0.5-1.4 gray
    /// levels a pixel, every block within 1-2 (2026-12-07). The mean is not what shows a
    /// change of text (a character hardly moves a whole frame's mean); it bounds the
    /// noise, so that the blocks can be trusted: at 2 levels a pixel an 8×8 block's mean
    /// varies by some 0.3.
    package static let largestMeanDifference = 2.0

    /// The luma (as captured, stacked) of the frame the camera last read.
    package private(set) var lastRead: GrayImage?

    package init() {}

    /// Remembers `luma` as the frame last read.
    package mutating func remember(_ luma: GrayImage) {
        lastRead = luma
    }

    /// How `luma` differs from `lastRead`; nil when nothing was read yet or the sizes differ.
    package static func change(from lastRead: GrayImage?, to luma: GrayImage) -> PixelChange? {
        lastRead.flatMap { PixelChange(from: $0, to: luma) }
    }

    /// Whether a frame that differs by `change` from the frame last read is still that frame.
    package static func isSame(_ change: PixelChange) -> Bool {
        change.meanDifference <= largestMeanDifference && change.largestBlockDifference <= largestBlockDifference
    }
}
