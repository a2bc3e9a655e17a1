@testable import LectorCapture
@testable import LectorImaging
@testable import LectorLive
@testable import LectorPipeline
@testable import LectorSystem
import LectorTestSupport
import Testing

/// Pseudo-random frames for the kernels' tables.
private extension SplitMix64 {
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
    /// 8.8 fixed-point means of gray levels (at most 255 << 8, as a stack holds).
    mutating func means(_ count: Int) -> [UInt16] { (0..<count).map { _ in UInt16(next() % UInt64(255 << 8 + 1)) } }
}

private let kernelCases: [FrameKernelsTests.Case] = [
    FrameKernelsTests.Case(width: 1, height: 1, stride: 1, dx: 0, dy: 0, frames: 1),
    FrameKernelsTests.Case(width: 1, height: 1, stride: 4, dx: 1, dy: 0, frames: 2),
    FrameKernelsTests.Case(width: 17, height: 5, stride: 17, dx: 0, dy: 0, frames: 2),
    FrameKernelsTests.Case(width: 17, height: 5, stride: 20, dx: 3, dy: -2, frames: 16),
    FrameKernelsTests.Case(width: 33, height: 19, stride: 33, dx: -5, dy: 7, frames: 3),
    FrameKernelsTests.Case(width: 33, height: 19, stride: 37, dx: 32, dy: 18, frames: 16),  // one pixel left in the frame
    FrameKernelsTests.Case(width: 33, height: 19, stride: 33, dx: -32, dy: -18, frames: 7),
    FrameKernelsTests.Case(width: 33, height: 19, stride: 33, dx: 33, dy: 0, frames: 5),  // all outside: nothing folded
    FrameKernelsTests.Case(width: 33, height: 19, stride: 40, dx: 0, dy: -19, frames: 5),
    FrameKernelsTests.Case(width: 33, height: 19, stride: 33, dx: -70, dy: 45, frames: 5),  // far beyond
    FrameKernelsTests.Case(width: 97, height: 61, stride: 101, dx: 15, dy: -16, frames: 9),
    FrameKernelsTests.Case(width: 320, height: 240, stride: 320, dx: -31, dy: 31, frames: 16),
    FrameKernelsTests.Case(width: 323, height: 243, stride: 336, dx: 2, dy: 1, frames: 11),
]

/// The C kernels behind FrameStack and LumaProfiles against plain Swift written from
/// their definitions, pixel by pixel, on random frames: odd sizes, padded rows, shifts
/// inside, at and beyond the borders.
@Suite("Live text: the C frame kernels")
struct FrameKernelsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        /// Bytes between the frame's rows (≥ width).
        var stride: Int
        var dx: Int
        var dy: Int
        /// Frames in the mean after this fold (the weight is 1/frames).
        var frames: Int
        var testDescription: String { "\(width)x\(height) stride \(stride) shift \(dx),\(dy) 1/\(frames)" }
    }


    /// The entry of pixel (x, y)'s block quarter among the quarter sums: 4 per block, a
    /// block split at half its columns and half its rows (one pixel wide or high: one half).
    static func quarterEntry(x: Int, y: Int, width: Int, height: Int, side: Int) -> Int {
        func half(_ offset: Int, _ extent: Int) -> Int { extent >= 2 && offset >= extent / 2 ? 1 : 0 }
        let (bx, by) = (x / side, y / side), blocksWide = (width + side - 1) / side
        return 4 * (by * blocksWide + bx) + 2 * half(y - by * side, min(side, height - by * side))
            + half(x - bx * side, min(side, width - bx * side))
    }

    /// The quarter sums of the mean's integer parts.
    static func referenceQuarterSums(_ mean: [UInt16], _ c: Case, side: Int) -> [UInt32] {
        var sums = [UInt32](repeating: 0, count: FrameKernels.quarterCount(width: c.width, height: c.height, side: side))
        for y in 0..<c.height {
            for x in 0..<c.width {
                sums[quarterEntry(x: x, y: y, width: c.width, height: c.height, side: side)] += UInt32(mean[y * c.width + x] / 256)
            }
        }
        return sums
    }

    /// Reference fold: every reference pixel whose source (x + dx, y + dy) is in the frame
    /// moves by weight/32768 of its difference; quarter sums of the new integer parts.
    static func referenceFold(_ mean: inout [UInt16], frame: [UInt8], _ c: Case, weight: Int, side: Int) -> [UInt32] {
        for y in 0..<c.height {
            for x in 0..<c.width {
                let index = y * c.width + x
                let sx = x + c.dx, sy = y + c.dy
                if sx >= 0, sx < c.width, sy >= 0, sy < c.height {
                    let sample = Int(frame[sy * c.stride + sx]) * 256, old = Int(mean[index])
                    let product = (sample - old) * weight
                    // Floor division: an arithmetic shift of a negative product.
                    let step = product >= 0 ? product / 32768 : -((-product + 32767) / 32768)
                    mean[index] = UInt16(old + step)
                }
            }
        }
        return referenceQuarterSums(mean, c, side: side)
    }

    @Test("fold matches its definition", arguments: kernelCases)
    func fold(_ c: Case) {
        var random = SplitMix64(UInt64(c.width * 1000 + c.height) &+ UInt64(bitPattern: Int64(c.dx * 31 + c.dy)))
        let frame = random.bytes((c.height - 1) * c.stride + c.width)
        let start = random.means(c.width * c.height)
        let side = FrameStack.blockSide, weight = 32768 / c.frames
        var expected = start
        let referenceSums = Self.referenceFold(&expected, frame: frame, c, weight: weight, side: side)
        var mean = start
        var sums = [UInt32](repeating: 7, count: referenceSums.count)  // overwritten, not added to
        var columns = [UInt32](repeating: 9, count: c.width)  // scratch: whatever it holds
        frame.withUnsafeBufferPointer { frame in
            mean.withUnsafeMutableBufferPointer { mean in
                sums.withUnsafeMutableBufferPointer { sums in
                    columns.withUnsafeMutableBufferPointer {
                        FrameKernels.fold(frame, stride: c.stride, into: mean, width: c.width, height: c.height, dx: c.dx, dy: c.dy,
                                          weight: Int32(weight), side: side, quarterSums: sums, columnSums: $0)
                    }
                }
            }
        }
        let wrong = zip(mean, expected).filter { $0 != $1 }.count
        #expect(wrong == 0, "\(wrong) mean pixels differ")
        let wrongSums = zip(sums, referenceSums).filter { $0 != $1 }.count
        #expect(wrongSums == 0 && sums.count == referenceSums.count, "\(wrongSums) quarter sums differ")
        let inside = max(0, c.width - abs(c.dx)) * max(0, c.height - abs(c.dy))
        if inside == 0 { #expect(mean == start, "nothing in the frame: the mean stays") }
    }

    @Test("block means match their definition", arguments: kernelCases)
    func blockMeans(_ c: Case) {
        let side = FrameStack.blockSide
        let blocksWide = (c.width + side - 1) / side, blocksHigh = (c.height + side - 1) / side
        var random = SplitMix64(UInt64(c.width + c.height))
        // Sums as a block of its size can have, split among its quarters at random.
        var sums: [UInt32] = []
        var expectedMeans: [UInt8] = []
        for by in 0..<blocksHigh {
            for bx in 0..<blocksWide {
                let pixels = min(side, c.height - by * side) * min(side, c.width - bx * side)
                var rest = UInt32(random.next() % UInt64(255 * pixels + 1))
                expectedMeans.append(UInt8(rest / UInt32(pixels)))
                for _ in 0..<3 {
                    let part = UInt32(random.next() % UInt64(rest + 1))
                    sums.append(part)
                    rest -= part
                }
                sums.append(rest)
            }
        }
        var means = [UInt8](repeating: 0, count: expectedMeans.count)
        sums.withUnsafeBufferPointer { sums in
            means.withUnsafeMutableBufferPointer { FrameKernels.blockMeans(quarterSums: sums, width: c.width, height: c.height, side: side, into: $0) }
        }
        #expect(means == expectedMeans)
    }

    /// Reference change test: a block (quarters of side/2, the last quarter taking the rest)
    /// is explained when every window within `radius` of (dx, dy) lies in the frame and one
    /// of them has each quarter's pixel sum within level × pixels of the mean's (integer
    /// levels), or when some window leaves the frame (not tested).
    static func referenceUnexplained(frame: [UInt8], mean: [UInt16], _ c: Case, side: Int, radius: Int, level: Int) -> Int {
        func sum(_ pixel: (Int, Int) -> Int, _ left: Int, _ top: Int, _ width: Int, _ height: Int) -> Int {
            var total = 0
            for y in top..<(top + height) { for x in left..<(left + width) { total += pixel(x, y) } }
            return total
        }
        let seen = { (x: Int, y: Int) in Int(frame[y * c.stride + x]) }, kept = { (x: Int, y: Int) in Int(mean[y * c.width + x]) / 256 }
        var unexplained = 0
        for y0 in Swift.stride(from: 0, to: c.height, by: side) {
            for x0 in Swift.stride(from: 0, to: c.width, by: side) {
                let columns = min(side, c.width - x0), rows = min(side, c.height - y0)
                guard x0 + c.dx - radius >= 0, y0 + c.dy - radius >= 0, x0 + c.dx + radius + columns <= c.width,
                      y0 + c.dy + radius + rows <= c.height else { continue }
                let halvesX = columns >= 2 ? 2 : 1, halvesY = rows >= 2 ? 2 : 1
                var explained = false
                for ey in -radius...radius where !explained {
                    for ex in -radius...radius where !explained {
                        var matches = true
                        for qy in 0..<halvesY {
                            let top = qy * (rows / halvesY), height = qy + 1 == halvesY ? rows - top : rows / halvesY
                            for qx in 0..<halvesX {
                                let left = qx * (columns / halvesX), width = qx + 1 == halvesX ? columns - left : columns / halvesX
                                let a = sum(seen, x0 + left + c.dx + ex, y0 + top + c.dy + ey, width, height)
                                let b = sum(kept, x0 + left, y0 + top, width, height)
                                if abs(a - b) > level * width * height { matches = false }
                            }
                        }
                        explained = matches
                    }
                }
                if !explained { unexplained += 1 }
            }
        }
        return unexplained
    }

    /// The frame is the mean's content moved by (dx, dy) and a jitter within the search's
    /// radius (a corner of it, an edge, none), with noise and a few patches overwritten
    /// (new content): the kernel counts as the reference does.
    @Test("unexplained blocks match their definition", arguments: kernelCases, [(0, 0), (-2, -2), (2, 1), (1, -2)])
    func unexplainedBlocks(_ c: Case, jitter: (x: Int, y: Int)) {
        var random = SplitMix64(UInt64(c.width * 7 + c.height) &+ UInt64(bitPattern: Int64(c.dx * 13 + c.dy)))
        // Black and white cells of 3 x 3 pixels: a window a pixel off differs by many gray
        // levels in some quarter (plain per-pixel noise averages out in any window).
        let cells = (0..<((c.width + 2) / 3 * ((c.height + 2) / 3))).map { _ in random.next() % 2 == 0 ? UInt16(0) : 255 << 8 }
        let mean = (0..<(c.width * c.height)).map { cells[($0 / c.width / 3) * ((c.width + 2) / 3) + $0 % c.width / 3] }
        var frame = [UInt8](repeating: 0, count: (c.height - 1) * c.stride + c.width)
        for y in 0..<c.height {
            for x in 0..<c.width {
                let (mx, my) = (min(max(x - c.dx - jitter.x, 0), c.width - 1), min(max(y - c.dy - jitter.y, 0), c.height - 1))
                frame[y * c.stride + x] = UInt8(clamping: Int(mean[my * c.width + mx]) / 256 + Int(random.next() % 9) - 4)
            }
        }
        for _ in 0..<3 {  // new content: a bright patch
            let (x, y) = (Int(random.next() % UInt64(c.width)), Int(random.next() % UInt64(c.height)))
            for py in y..<min(c.height, y + 12) { for px in x..<min(c.width, x + 12) { frame[py * c.stride + px] = 255 } }
        }
        let side = FrameStack.blockSide, radius = 2, level = 16
        let expected = Self.referenceUnexplained(frame: frame, mean: mean, c, side: side, radius: radius, level: level)
        let quarterSums = Self.referenceQuarterSums(mean, c, side: side)
        // Twice through the same scratch: what the first count leaves there must not matter.
        var scratch = FrameKernels.ChangeTestScratch()
        let counts = (0..<2).map { _ in
            frame.withUnsafeBufferPointer { frame in
                quarterSums.withUnsafeBufferPointer { sums in
                    FrameKernels.unexplainedBlocks(frame: frame, stride: c.stride, meanQuarterSums: sums, scratch: &scratch,
                                                   width: c.width, height: c.height, dx: c.dx, dy: c.dy, side: side,
                                                   radius: radius, level: level, enough: .max)
                }
            }
        }
        #expect(counts[1] == counts[0], "a second count through the same scratch: \(counts[1]), first \(counts[0])")
        let counted = counts[0]
        #expect(counted == expected, "unexplained blocks \(counted), expected \(expected)")
    }

    @Test("read-out matches its definition, padding untouched", arguments: kernelCases)
    func readOut(_ c: Case) {
        var random = SplitMix64(UInt64(c.width * 7 + c.height * 3))
        let mean = random.means(c.width * c.height)
        let outStride = c.stride + 3
        var out = [UInt8](repeating: 0xA5, count: (c.height - 1) * outStride + c.width + 2)
        mean.withUnsafeBufferPointer { mean in
            out.withUnsafeMutableBufferPointer { out in
                FrameKernels.readOut(mean, width: c.width, height: c.height, dx: c.dx, dy: c.dy, into: out, outStride: outStride)
            }
        }
        var wrong = 0, padding = 0
        for y in 0..<c.height {
            let sy = min(max(y - c.dy, 0), c.height - 1)
            for x in 0..<c.width {
                let sx = min(max(x - c.dx, 0), c.width - 1)
                if out[y * outStride + x] != UInt8((Int(mean[sy * c.width + sx]) + 128) / 256) { wrong += 1 }
            }
            let padEnd = y == c.height - 1 ? out.count : (y + 1) * outStride
            for index in (y * outStride + c.width)..<padEnd where out[index] != 0xA5 { padding += 1 }
        }
        #expect(wrong == 0, "\(wrong) pixels differ")
        #expect(padding == 0, "\(padding) padding bytes written")
    }

    @Test("profile sums match their definition", arguments: kernelCases)
    func profileSums(_ c: Case) {
        var random = SplitMix64(UInt64(c.stride * 13 + c.height))
        let image = random.bytes((c.height - 1) * c.stride + c.width)
        var columns = [UInt32](repeating: 99, count: c.width), rows = [UInt32](repeating: 99, count: c.height)
        image.withUnsafeBufferPointer { image in
            columns.withUnsafeMutableBufferPointer { columns in
                rows.withUnsafeMutableBufferPointer { rows in
                    FrameKernels.profileSums(image, width: c.width, height: c.height, stride: c.stride, columnSums: columns, rowSums: rows)
                }
            }
        }
        let expectedColumns = (0..<c.width).map { x in (0..<c.height).reduce(UInt32(0)) { $0 + UInt32(image[$1 * c.stride + x]) } }
        let expectedRows = (0..<c.height).map { y in (0..<c.width).reduce(UInt32(0)) { $0 + UInt32(image[y * c.stride + $1]) } }
        #expect(columns == expectedColumns)
        #expect(rows == expectedRows)
    }

    @Test("sample picking matches its definition", arguments: kernelCases)
    func pickSamples(_ c: Case) {
        var random = SplitMix64(UInt64(c.width * 5 + c.stride))
        let step = 1 + abs(c.dx) % 3  // 1, 2 (YUYV) and 3
        let stride = max(c.stride, c.width * step)
        let source = random.bytes((c.height - 1) * stride + (c.width - 1) * step + 1)
        var out = [UInt8](repeating: 0, count: c.width * c.height)
        source.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                FrameKernels.pickSamples(source, stride: stride, step: step, width: c.width, height: c.height, into: out)
            }
        }
        let expected = (0..<(c.width * c.height)).map { source[($0 / c.width) * stride + ($0 % c.width) * step] }
        #expect(out == expected, "step \(step), stride \(stride)")
    }

    /// The Swift detrending LumaProfiles did before it moved to C, kept here as the reference.
    static func referenceDetrended(_ values: [Float], radius: Int) -> [Float] {
        let count = values.count
        guard count > 0 else { return [] }
        var prefix = [Float](repeating: 0, count: count + 1)
        for index in 0..<count { prefix[index + 1] = prefix[index] + values[index] }
        let flat = (0..<count).map { index in
            let low = max(0, index - radius), high = min(count, index + radius + 1)
            return values[index] - (prefix[high] - prefix[low]) / Float(high - low)
        }
        return (0..<count).map { index -> Float in
            let left: Float = flat[max(index - 1, 0)], right: Float = flat[min(index + 1, count - 1)]
            let middle: Float = 2 * flat[index]
            return (left + middle + right) / 4
        }
    }

    @Test("detrending gives the Swift code's floats", arguments: [1, 2, 7, 25, 240, 1283])
    func detrend(count: Int) {
        var random = SplitMix64(UInt64(count))
        let values = (0..<count).map { _ in Float(random.next() % 65_281) / Float(1 + random.next() % 255) }
        #expect(FrameKernels.detrended(values, radius: LumaProfiles.detrendRadius)
                == Self.referenceDetrended(values, radius: LumaProfiles.detrendRadius))
    }

    /// The offset search's costs are the same floats the Swift loop summed, in order.
    @Test("offset costs match their definition", arguments: [(count: 17, radius: 4), (count: 240, radius: 32), (count: 1283, radius: 32),
                                                             (count: 70, radius: 0)])
    func offsetCosts(count: Int, radius: Int) {
        var random = SplitMix64(UInt64(count * 100 + radius))
        let reference = (0..<count).map { _ in Float(Int(random.next() % 20001) - 10000) / 97 }
        let moved = (0..<count).map { _ in Float(Int(random.next() % 20001) - 10000) / 89 }
        var costs = [Float](repeating: .nan, count: 2 * radius + 1)
        reference.withUnsafeBufferPointer { reference in
            moved.withUnsafeBufferPointer { moved in
                costs.withUnsafeMutableBufferPointer { costs in
                    FrameKernels.offsetCosts(reference, moved, count: count, radius: radius, into: costs)
                }
            }
        }
        let expected = (-radius...radius).map { offset -> Float in
            let start = max(0, -offset), end = min(count, count - offset)
            var cost: Float = 0
            for index in start..<end { cost += abs(reference[index] - moved[index + offset]) }
            return cost / Float(end - start)
        }
        #expect(costs == expected)
    }
}

/// Stacked frames are read out of the stack only when read, and then show the mean of
/// their own fold: read at once, after later folds, or through `bytes`.
@Suite("Live text: stacked frames read when taken")
struct StackedFrameReadOutTests {
    /// Frames of a noisy, jittered card (320×240 GREY), 66.7 ms apart.
    static func frames(_ count: Int) -> [Frame] {
        var random = SplitMix64(42)
        let width = 320, height = 240
        let start = MonotonicInstant.now()
        let shifts = [(0, 0), (2, 1), (-1, 3), (3, -2), (1, 1), (-2, -2), (0, 2), (2, 0)]
        return (0..<count).map { index in
            let (dx, dy) = shifts[index % shifts.count]
            var pixels = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let sx = x - dx, sy = y - dy
                    let card = sx > 40 && sx < 280 && sy > 40 && sy < 200
                    let text = card && (sy / 9) % 3 == 0 && (sx / 5) % 2 == 0
                    let base = text ? 40 : (card ? 220 : 70)
                    pixels[y * width + x] = UInt8(clamping: base + Int(random.next() % 41) - 20)
                }
            }
            return Frame(format: .grey, width: width, height: height, sequence: UInt32(index),
                         timestamp: start.adding(milliseconds: 66.7 * Double(index)), buffer: HeapFrameBuffer(copying: pixels))
        }
    }

    /// The means an eager stack gives after each frame (the reference).
    static func expectedMeans(_ frames: [Frame], capacity: Int) -> [GrayImage] {
        let stack = FrameStack(settings: .init(capacity: capacity))
        let extractor = LumaExtractor()
        return frames.map { frame in
            var luma = GrayImage(width: 0, height: 0)
            try? extractor.extract(frame, into: &luma)
            stack.add(luma)
            var mean = GrayImage(width: 0, height: 0)
            stack.mean(into: &mean)
            return mean
        }
    }

    enum Reading: String, CaseIterable, Sendable {
        /// The luma extractor right after the fold (a recognizer that takes it at once).
        case extractAtOnce
        /// The luma extractor after two more folds (taken, then read late).
        case extractAfterLaterFolds
        /// `bytes` after two more folds.
        case bytesAfterLaterFolds
    }

    @Test("a stacked frame shows its own fold's mean", arguments: StackedFrameReadOutTests.Reading.allCases)
    func ownMean(_ reading: Reading) throws {
        let frames = Self.frames(7), expected = Self.expectedMeans(frames, capacity: 4)
        let stacker = FrameStacker(capacity: 4)
        let extractor = LumaExtractor()
        var kept: Frame?
        for (index, frame) in frames.enumerated() {
            let stacked = try #require(try stacker.fold(frame))
            if index == 2 { kept = stacked } else { stacked.giveBack() }  // the others replaced unread
            if index == 2, reading == .extractAtOnce, let kept {
                var luma = GrayImage(width: 0, height: 0)
                try extractor.extract(kept, into: &luma)
                #expect(luma == expected[2], "read at once")
            }
        }
        let frame = try #require(kept)
        switch reading {
        case .extractAtOnce:
            break
        case .extractAfterLaterFolds:
            var luma = GrayImage(width: 0, height: 0)
            try extractor.extract(frame, into: &luma)
            #expect(luma == expected[2], "read after later folds")
            #expect(luma != expected[6], "not the newest mean")
        case .bytesAfterLaterFolds:
            #expect(Array(frame.bytes) == expected[2].pixels, "bytes after later folds")
            #expect(frame.bytesUsed == 320 * 240)
        }
        frame.giveBack()
    }

    /// Through the sink: frames nobody takes are withdrawn and dropped before the next
    /// fold; the one left waiting is the mean of all; the accounting holds.
    @Test("the sink drops unread means and keeps the newest", arguments: [1, 3, 6])
    func sink(frameCount: Int) throws {
        let frames = Self.frames(frameCount), expected = Self.expectedMeans(frames, capacity: 16)
        let mailbox = LatestFrameMailbox(), counters = FrameCounters()
        let sink = CameraFrameSink(mailbox: mailbox, counters: counters, stacker: FrameStacker(capacity: 16))
        for frame in frames { sink.deliver(frame) }
        let counts = counters.snapshot
        #expect(counts.captured == frameCount && counts.dropped == frameCount - 1 && counts.inFlight == 1,
                "captured \(counts.captured), dropped \(counts.dropped), in flight \(counts.inFlight)")
        let waiting = try #require(mailbox.takeIfWaiting())
        #expect(waiting.sequence == UInt32(frameCount - 1) && waiting.stackInfo?.stacked == frameCount)
        var luma = GrayImage(width: 0, height: 0)
        try LumaExtractor().extract(waiting, into: &luma)
        #expect(luma == expected[frameCount - 1])
        waiting.giveBack()
        #expect(mailbox.takeIfWaiting() == nil, "nothing else waits")
    }
}
