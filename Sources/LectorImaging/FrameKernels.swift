import CFrameKernels
import LectorProtocol
import LectorSystem

/// The capture side's per-pixel loops (the live-text stack's, and the luma of packed YUV
/// frames), in the C target CFrameKernels: the only file that calls it.
///
/// C compiled with optimization in every build (Package.swift): a debug build's Swift
/// loops were far too slow for the capture thread, and its SIMD types slower still. Each
/// function checks the sizes it is given, so that the C code never reads or writes
/// outside the buffers; the arithmetic is the one the Swift loops did, bit for bit
/// (``FrameKernelsTests`` compares both on generated frames).
package enum FrameKernels {
    /// Every `step`-th byte of each row, `width` per row (rows `stride` bytes apart), into
    /// `out` (rows `width` bytes apart): YUYV's Y samples.
    /// The corresponding C function is `lector_pick_samples`.
    static func pickSamples(_ source: UnsafeBufferPointer<UInt8>, stride: Int, step: Int, width: Int, height: Int,
                            into out: UnsafeMutableBufferPointer<UInt8>) {
        guard width > 0, height > 0 else { return }
        precondition(step > 0 && source.count >= (height - 1) * stride + (width - 1) * step + 1, "pickSamples: source too small")
        precondition(out.count >= width * height, "pickSamples: output too small")
        guard let source = source.baseAddress, let out = out.baseAddress else { return }
        lector_pick_samples(source, stride, Int32(step), Int32(width), Int32(height), out)
    }

    /// `values` minus their running mean over ±`radius`, smoothed with a [1 2 1] kernel
    /// (see ``LumaProfiles/detrended(_:)``).
    /// The corresponding C function is `lector_detrend`.
    static func detrended(_ values: [Float], radius: Int) -> [Float] {
        guard !values.isEmpty else { return [] }
        var scratch = [Float](repeating: 0, count: values.count + 1), flat = [Float](repeating: 0, count: values.count)
        var out = [Float](repeating: 0, count: values.count)
        values.withUnsafeBufferPointer { values in
            scratch.withUnsafeMutableBufferPointer { scratch in
                flat.withUnsafeMutableBufferPointer { flat in
                    out.withUnsafeMutableBufferPointer { out in
                        guard let input = values.baseAddress, let scratch = scratch.baseAddress, let flat = flat.baseAddress,
                              let output = out.baseAddress else { return }
                        lector_detrend(input, Int32(values.count), Int32(radius), scratch, flat, output)
                    }
                }
            }
        }
        return out
    }

    /// Per column and per row, the sum of a luma plane's pixels.
    /// - Parameters:
    ///   - image: `width` × `height` pixels, rows `stride` bytes apart.
    ///   - columnSums: overwritten with `width` sums.
    ///   - rowSums: overwritten with `height` sums.
    /// The corresponding C function is `lector_luma_profile_sums`.
    static func profileSums(_ image: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int,
                            columnSums: UnsafeMutableBufferPointer<UInt32>, rowSums: UnsafeMutableBufferPointer<UInt32>) {
        guard width > 0, height > 0 else { return }
        precondition(stride >= width && image.count >= (height - 1) * stride + width, "profileSums: image too small")
        precondition(columnSums.count >= width && rowSums.count >= height, "profileSums: sums too small")
        guard let image = image.baseAddress, let columns = columnSums.baseAddress, let rows = rowSums.baseAddress else { return }
        lector_luma_profile_sums(image, stride, Int32(width), Int32(height), columns, rows)
    }

    /// For each offset d in −`radius`…`radius`, the mean absolute difference of
    /// `reference[i]` and `moved[i + d]` over the indices both have, at `costs[d + radius]`.
    /// - Precondition: both profiles have `count` > 2 × `radius` entries; `costs` has
    ///   2 × `radius` + 1.
    /// The corresponding C function is `lector_profile_offset_costs`.
    static func offsetCosts(_ reference: UnsafeBufferPointer<Float>, _ moved: UnsafeBufferPointer<Float>, count: Int, radius: Int,
                            into costs: UnsafeMutableBufferPointer<Float>) {
        precondition(radius >= 0 && count > 2 * radius && reference.count >= count && moved.count >= count,
                     "offsetCosts: profiles shorter than the search")
        precondition(costs.count >= 2 * radius + 1, "offsetCosts: costs too small")
        guard let reference = reference.baseAddress, let moved = moved.baseAddress, let out = costs.baseAddress else { return }
        lector_profile_offset_costs(reference, moved, Int32(count), Int32(radius), out)
    }

    /// Folds `frame`, whose pixel (x + dx, y + dy) shows the mean's (x, y), into the 8.8
    /// fixed-point `mean` with weight `weight`/32768, and fills the blocks' quarter sums of
    /// the new mean's integer parts, 4 per block (see CFrameKernels.h). `columnSums`:
    /// `width` entries of scratch.
    /// The corresponding C function is `lector_stack_fold`.
    package static func fold(_ frame: UnsafeBufferPointer<UInt8>, stride: Int, into mean: UnsafeMutableBufferPointer<UInt16>,
                     width: Int, height: Int, dx: Int, dy: Int, weight: Int32, side: Int,
                     quarterSums: UnsafeMutableBufferPointer<UInt32>, columnSums: UnsafeMutableBufferPointer<UInt32>) {
        guard width > 0, height > 0 else { return }
        precondition(side > 0 && weight >= 0 && weight <= 32768, "fold: bad side or weight")
        precondition(stride >= width && frame.count >= (height - 1) * stride + width, "fold: frame too small")
        precondition(mean.count >= width * height, "fold: mean too small")
        precondition(quarterSums.count >= quarterCount(width: width, height: height, side: side), "fold: quarter sums too small")
        precondition(columnSums.count >= width, "fold: column sums too small")
        guard let frame = frame.baseAddress, let mean = mean.baseAddress, let sums = quarterSums.baseAddress,
              let columns = columnSums.baseAddress else { return }
        // A shift of a whole frame or more folds nothing, clamped or not (and the C code's
        // sums stay far from Int32's limits).
        lector_stack_fold(mean, frame, stride, Int32(width), Int32(height), Int32(min(max(dx, -width), width)),
                          Int32(min(max(dy, -height), height)), weight, Int32(side), sums, columns)
    }

    /// How far `after` is from `before` (both `width` × `height`, rows packed): the sum of
    /// the pixels' absolute differences, and the largest absolute mean difference of one
    /// block of side `side` (edge blocks smaller).
    /// The corresponding C function is `lector_pixel_change`.
    static func pixelChange(_ before: UnsafeBufferPointer<UInt8>, _ after: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                            side: Int) -> (absoluteSum: UInt64, largestBlockMean: Double) {
        guard width > 0, height > 0 else { return (0, 0) }
        precondition(side > 0 && before.count >= width * height && after.count >= width * height, "pixelChange: images too small")
        guard let before = before.baseAddress, let after = after.baseAddress else { return (0, 0) }
        var blockSums = [Int64](repeating: 0, count: (width + side - 1) / side)
        var absoluteSum: UInt64 = 0, largest = 0.0
        blockSums.withUnsafeMutableBufferPointer { sums in
            lector_pixel_change(before, after, Int32(width), Int32(height), Int32(side), sums.baseAddress, &absoluteSum, &largest)
        }
        return (absoluteSum, largest)
    }

    /// The entries of the quarter sums of `width` × `height` in blocks of `side`: 4 per block.
    package static func quarterCount(width: Int, height: Int, side: Int) -> Int {
        4 * ((width + side - 1) / side) * ((height + side - 1) / side)
    }

    /// The blocks' mean gray levels from their quarter sums into `means`.
    /// The corresponding C function is `lector_stack_block_means`.
    package static func blockMeans(quarterSums: UnsafeBufferPointer<UInt32>, width: Int, height: Int, side: Int,
                                   into means: UnsafeMutableBufferPointer<UInt8>) {
        guard width > 0, height > 0 else { return }
        let quarters = quarterCount(width: width, height: height, side: side)
        precondition(side > 0 && quarterSums.count >= quarters && means.count >= quarters / 4, "blockMeans: buffers too small")
        guard let sums = quarterSums.baseAddress, let means = means.baseAddress else { return }
        lector_stack_block_means(sums, Int32(width), Int32(height), Int32(side), means)
    }

    /// Room the change test (``unexplainedBlocks(frame:stride:meanQuarterSums:scratch:width:height:dx:dy:side:radius:level:enough:)``)
    /// works in, kept across frames by its caller.
    package struct ChangeTestScratch {
        /// The frame's quarter sums at the shift: as many as the mean's.
        var frameQuarterSums: [UInt32] = []
        /// Their column sums: one per column.
        var columnSums: [UInt32] = []
        /// The integral image of one block's neighbourhood.
        var window: [UInt32] = []

        package init() {}

        /// Sizes the room for frames of `width` × `height`, blocks of `side` and a search of `radius`.
        mutating func fit(width: Int, height: Int, side: Int, radius: Int) {
            let quarters = FrameKernels.quarterCount(width: width, height: height, side: side)
            let windowEntries = (side + 2 * radius + 1) * (side + 2 * radius + 1)
            if frameQuarterSums.count != quarters { frameQuarterSums = [UInt32](repeating: 0, count: quarters) }
            if columnSums.count != width { columnSums = [UInt32](repeating: 0, count: width) }
            if window.count != windowEntries { window = [UInt32](repeating: 0, count: windowEntries) }
        }
    }

    /// How many blocks of the mean (its quarter sums, as ``fold(_:stride:into:width:height:dx:dy:weight:side:quarterSums:columnSums:)``
    /// leaves them) no window of `frame` (rows `stride` apart) within `radius` pixels of
    /// the shift (dx, dy) matches, quarter by quarter within `level` gray levels; counting
    /// stops at `enough`. `scratch` is sized here (see CFrameKernels.h for its use).
    /// The corresponding C function is `lector_stack_unexplained_blocks`.
    package static func unexplainedBlocks(frame: UnsafeBufferPointer<UInt8>, stride: Int, meanQuarterSums: UnsafeBufferPointer<UInt32>,
                                          scratch: inout ChangeTestScratch, width: Int, height: Int, dx: Int, dy: Int,
                                          side: Int, radius: Int, level: Int, enough: Int) -> Int {
        guard width > 0, height > 0 else { return 0 }
        precondition(side > 0 && radius >= 0, "unexplainedBlocks: bad side or radius")
        precondition(stride >= width && frame.count >= (height - 1) * stride + width, "unexplainedBlocks: frame too small")
        precondition(meanQuarterSums.count >= quarterCount(width: width, height: height, side: side),
                     "unexplainedBlocks: quarter sums too small")
        scratch.fit(width: width, height: height, side: side, radius: radius)
        guard let frame = frame.baseAddress, let sums = meanQuarterSums.baseAddress else { return 0 }
        return scratch.frameQuarterSums.withUnsafeMutableBufferPointer { seen in
            scratch.columnSums.withUnsafeMutableBufferPointer { columns in
                scratch.window.withUnsafeMutableBufferPointer { window in
                    Int(lector_stack_unexplained_blocks(frame, stride, sums, seen.baseAddress, columns.baseAddress, window.baseAddress,
                                                        Int32(width), Int32(height), Int32(min(max(dx, -width), width)),
                                                        Int32(min(max(dy, -height), height)), Int32(side), Int32(radius),
                                                        Int32(level), Int32(clamping: enough)))
                }
            }
        }
    }

    /// Writes `mean` rounded to 8 bits in the coordinates of a frame shifted by (dx, dy)
    /// (edges the shift uncovers repeat the nearest pixel) into `out`, rows `outStride`
    /// bytes apart.
    /// The corresponding C function is `lector_stack_read_out`.
    package static func readOut(_ mean: UnsafeBufferPointer<UInt16>, width: Int, height: Int, dx: Int, dy: Int,
                        into out: UnsafeMutableBufferPointer<UInt8>, outStride: Int) {
        guard width > 0, height > 0 else { return }
        precondition(mean.count >= width * height, "readOut: mean too small")
        precondition(outStride >= width && out.count >= (height - 1) * outStride + width, "readOut: output too small")
        guard let mean = mean.baseAddress, let out = out.baseAddress else { return }
        // A shift of a whole frame or more reads out the same, clamped or not.
        lector_stack_read_out(mean, Int32(width), Int32(height), Int32(min(max(dx, -width), width)),
                              Int32(min(max(dy, -height), height)), out, outStride)
    }
}
