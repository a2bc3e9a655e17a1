import LectorImaging
import LectorProtocol
import LectorSystem

/// A motion-compensated running mean of the recent frames of one still scene.
///
/// Each new luma frame is aligned to the stack's reference (the first frame of the
/// scene) by its global shift (``LumaProfiles``) and folded into an 8.8 fixed-point
/// running mean that weighs the newest frame 1/n, n growing to `capacity`: after
/// `capacity` frames it behaves like the mean of the last `capacity` frames. The mean is
/// read out in the newest frame's coordinates, so boxes found in it are where the text
/// is now.
///
/// A new scene is never blurred with the old one: the stack starts again from the new
/// frame when the shift is at the edge of the search (large motion), when the profiles
/// no longer match, or when some 16×16 blocks of the mean differ from the aligned frame
/// by more than noise can explain (content change) — in two frames in a row
/// (``Settings/restartAfter``): a lone frame that does so is left out, not folded. A hand-held camera turns as well as
/// shifts, and a global shift does not follow a turn: a block counts as changed only
/// when no window of the frame within ``jitterRadius(width:height:)`` pixels of the
/// shift matches it (a turn moves each block by a few pixels; new content matches no
/// nearby window). The mean of such frames blurs by those few pixels at the frame's edges.
///
/// Not thread-safe: one owner (the camera's capture thread).
public final class FrameStack {
    /// Why the stack started again with the newest frame.
    public enum Start: String, Sendable {
        case first, size, motion, content
    }

    /// What adding a frame did.
    public enum Outcome: Sendable, Equatable {
        case folded
        case started(Start)
        /// The frame showed another scene (or a large motion), but the frames before it
        /// did not: it is left out, and the stack starts again only if the next frame
        /// does too (``Settings/restartAfter``).
        case skipped(Start)
    }

    /// Tuning, measured on the generated camera-like sequences (scripts/make-live-sequences.py).
    public struct Settings: Sendable, Equatable {
        /// Frames in the mean at most (1: the newest frame only, still aligned and signed).
        public var capacity: Int
        /// Largest global shift followed, per axis, in pixels; more is a large motion.
        public var searchRadius = 32
        /// Profile mismatch from which the frame shows another scene.
        public var mismatchLimit: Float = 0.9
        /// A block of the stack has changed when no window of the frame near the shift
        /// (``FrameStack/jitterRadius(width:height:)``) has each quarter's mean within
        /// this many gray levels of the block's.
        public var blockLevel = 16
        /// Changed blocks from which the content changed.
        public var changedBlocks = 3
        /// Frames in a row that must show another scene (or a large motion) before the
        /// stack starts again; the ones before are left out. One hand-held frame now and
        /// then is turned, blurred or shifted far enough that the profiles or the block
        /// test do not follow it (issue 49: on 1280×720 hand-held still scenes such a frame
        /// restarted the stack, the next one restarted it again back, the gate lost its
        /// reference and the still scene was read in most frames). A real change shows in
        /// every frame after it and starts the stack one frame later.
        public var restartAfter = 2

        public init(capacity: Int) { self.capacity = max(1, capacity) }
    }

    /// Side of the square blocks of the change test and the signature.
    public static let blockSide = 16

    /// How far from the global shift a block of the frame may sit and still show the
    /// stack's content: 6 px up to 768 px, a 128th of the longer side above, at most 10
    /// px. A hand-held camera's turn of 0.35° (its standard deviation per frame, issue 25)
    /// moves text 320 px from the centre by 2 px, and the profiles' shift of a dim, noisy
    /// frame can be a few pixels off. Measured on tests/handheld's 640×480 scenes: with
    /// the global shift alone 157 of 450 frames of a clean scene restarted the stack; with
    /// 4 px, 18 of a dim one; with 6 px, none and one.
    public static func jitterRadius(width: Int, height: Int) -> Int { min(10, max(6, max(width, height) / 128)) }

    public let settings: Settings
    public private(set) var width = 0
    public private(set) var height = 0
    /// Frames folded since the stack started, capped at the capacity: how many frames
    /// the mean averages.
    public private(set) var count = 0
    /// Counts starts: two reads with the same generation saw the same scene.
    public private(set) var generation = 0
    /// Frames in a row, just before the next, that the stack did not explain (left out).
    public private(set) var unexplainedInRow = 0
    /// Whether the last frame was left out: the next one decides whether the scene changed.
    public var awaitsConfirmation: Bool { count > 0 && unexplainedInRow > 0 }
    /// The newest frame's shift from the reference.
    public private(set) var shift = EstimatedShift(dx: 0, dy: 0)
    /// Block means of the current mean, in the reference's coordinates.
    public private(set) var signature = SceneSignature(blocksWide: 0, blocksHigh: 0, means: [])

    private var accumulator: [UInt16] = []
    private var reference = LumaProfiles(rows: [], columns: [])
    /// The mean's integer levels summed per quarter of each block (4 per block), as the
    /// last fold left them: the signature's and the change test's.
    private var quarterSums: [UInt32] = []
    /// The fold's scratch: the mean's column sums over a half row of blocks.
    private var columnSums: [UInt32] = []
    /// Room for the change test's look at the newest frame.
    private var changeTestScratch = FrameKernels.ChangeTestScratch()

    public init(settings: Settings) { self.settings = settings }

    /// Forgets the scene; the next frame starts a new stack.
    public func reset() { count = 0 }

    /// Aligns `luma` to the stack and folds it in, or starts again from it.
    @discardableResult
    public func add(_ luma: GrayImage) -> Outcome {
        let profiles = LumaProfiles(luma)
        if count == 0 { return start(luma, profiles, .first) }
        if luma.width != width || luma.height != height { return start(luma, profiles, .size) }
        let estimated = profiles.shift(from: reference, radius: settings.searchRadius, near: shift)
        if let reason = unexplained(luma, shift: estimated) {
            unexplainedInRow += 1
            return unexplainedInRow >= settings.restartAfter ? start(luma, profiles, reason) : .skipped(reason)
        }
        unexplainedInRow = 0
        fold(luma, shift: estimated, frames: min(count + 1, settings.capacity))
        shift = estimated
        count = min(count + 1, settings.capacity)
        return .folded
    }

    /// Why `luma`, estimated at `shift` from the reference, is not the stack's scene
    /// (a large motion, or other content); nil when it is.
    private func unexplained(_ luma: GrayImage, shift estimated: EstimatedShift) -> Start? {
        if abs(estimated.dx) >= settings.searchRadius || abs(estimated.dy) >= settings.searchRadius { return .motion }
        if estimated.mismatch > settings.mismatchLimit { return .content }
        if unexplainedBlocks(luma, shift: estimated) >= settings.changedBlocks { return .content }
        return nil
    }

    private func start(_ luma: GrayImage, _ profiles: LumaProfiles, _ reason: Start) -> Outcome {
        unexplainedInRow = 0
        width = luma.width
        height = luma.height
        let blocksWide = (width + Self.blockSide - 1) / Self.blockSide
        let blocksHigh = (height + Self.blockSide - 1) / Self.blockSide
        if accumulator.count != width * height { accumulator = [UInt16](repeating: 0, count: width * height) }
        if quarterSums.count != 4 * blocksWide * blocksHigh { quarterSums = [UInt32](repeating: 0, count: 4 * blocksWide * blocksHigh) }
        if columnSums.count != width { columnSums = [UInt32](repeating: 0, count: width) }
        reference = profiles
        shift = EstimatedShift(dx: 0, dy: 0)
        fold(luma, shift: shift, frames: 1)
        count = 1
        generation += 1
        return .started(reason)
    }

    /// How many blocks of the mean no window of `luma` near `shift` shows (content
    /// change), counted up to ``Settings/changedBlocks``.
    private func unexplainedBlocks(_ luma: GrayImage, shift: EstimatedShift) -> Int {
        let width = self.width, height = self.height
        return luma.pixels.withUnsafeBufferPointer { frame in
            quarterSums.withUnsafeBufferPointer { sums in
                FrameKernels.unexplainedBlocks(frame: frame, stride: width, meanQuarterSums: sums, scratch: &changeTestScratch,
                                               width: width, height: height, dx: shift.dx, dy: shift.dy, side: Self.blockSide,
                                               radius: Self.jitterRadius(width: width, height: height),
                                               level: settings.blockLevel, enough: settings.changedBlocks)
            }
        }
    }

    /// Folds `luma`, shifted back by `shift`, into the mean with weight 1/`frames`, and
    /// recomputes the signature.
    private func fold(_ luma: GrayImage, shift: EstimatedShift, frames: Int) {
        let width = self.width, height = self.height, side = Self.blockSide
        let blocksWide = (width + side - 1) / side, blocksHigh = (height + side - 1) / side
        let weight = Int32(32768 / frames)  // 1/frames in 1/32768ths: (65280 × 32768) fits Int32
        luma.pixels.withUnsafeBufferPointer { source in
            accumulator.withUnsafeMutableBufferPointer { mean in
                quarterSums.withUnsafeMutableBufferPointer { sums in
                    columnSums.withUnsafeMutableBufferPointer {
                        FrameKernels.fold(source, stride: width, into: mean, width: width, height: height, dx: shift.dx,
                                          dy: shift.dy, weight: weight, side: side, quarterSums: sums, columnSums: $0)
                    }
                }
            }
        }
        var means = [UInt8](repeating: 0, count: blocksWide * blocksHigh)
        quarterSums.withUnsafeBufferPointer { sums in
            means.withUnsafeMutableBufferPointer { FrameKernels.blockMeans(quarterSums: sums, width: width, height: height, side: side, into: $0) }
        }
        signature = SceneSignature(blocksWide: blocksWide, blocksHigh: blocksHigh, means: means)
    }

    /// Writes the mean in the newest frame's coordinates into `image` (edges the shift
    /// uncovers repeat the nearest pixel of the mean).
    public func mean(into image: inout GrayImage) {
        image.resize(width: width, height: height)
        image.pixels.withUnsafeMutableBufferPointer { mean(into: $0) }
    }

    /// The same into `out`, rows `stride` bytes apart (at least `width`), which holds at
    /// least (`height` − 1) × `stride` + `width` bytes.
    public func mean(into out: UnsafeMutableBufferPointer<UInt8>, stride: Int? = nil) {
        let stride = stride ?? width
        precondition(stride >= width && out.count >= max(0, (height - 1) * stride + width), "mean(into:) needs height rows of stride bytes")
        accumulator.withUnsafeBufferPointer { mean in
            FrameKernels.readOut(mean, width: width, height: height, dx: shift.dx, dy: shift.dy, into: out, outStride: stride)
        }
    }
}
