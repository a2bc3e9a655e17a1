import Foundation
import LectorProtocol
import LectorSystem
import Synchronization

/// A copy of a captured frame as the camera delivered it (any pixel format), kept
/// for colour previews.
public struct CapturedFrame: Sendable, Equatable {
    public var format: PixelFormat
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var bytes: [UInt8]

    public init(format: PixelFormat, width: Int, height: Int, bytesPerLine: Int, bytes: [UInt8]) {
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.bytes = bytes
    }

    public init(_ frame: Frame) {
        format = frame.format
        width = frame.width
        height = frame.height
        bytesPerLine = frame.bytesPerLine
        bytes = Array(frame.bytes)
    }
}

/// Whether someone asked for a colour preview lately, and the newest frame kept for it.
/// While nobody asks, a camera keeps no copy of its frames: one atomic load per frame.
/// While somebody does, every frame that reaches the camera's stacker or recognizer is
/// kept as captured, also those the change gate then skips: a preview shows the camera
/// live even while a still scene is not read again.
public final class ColorPreviewDemand: Sendable {
    private let wantedUntil = Atomic<Int64>(0)
    private let newest = Mutex<(frame: CapturedFrame, sequence: UInt32)?>(nil)

    public init() {}

    /// Keeps captured frames for `seconds` from now.
    public func want(seconds: Double) {
        wantedUntil.store(MonotonicInstant.now().nanoseconds + Int64(seconds * 1e9), ordering: .relaxed)
    }

    public var isWanted: Bool { wantedUntil.load(ordering: .relaxed) > MonotonicInstant.now().nanoseconds }

    /// Keeps a copy of `frame` as captured when a preview is wanted, and returns it.
    public func keep(_ frame: Frame) -> CapturedFrame? {
        guard isWanted else { return nil }
        let captured = CapturedFrame(frame)
        newest.withLock { $0 = (captured, frame.sequence) }
        return captured
    }

    /// The newest frame kept, with its sequence number; nil when none was kept lately.
    /// Once previews are no longer wanted, the kept copy is let go here.
    public func newestKept() -> (frame: CapturedFrame, sequence: UInt32)? {
        guard isWanted else {
            newest.withLock { $0 = nil }
            return nil
        }
        return newest.withLock { $0 }
    }
}

/// Encodes a kept frame in colour: MJPEG passed through as the camera sent it; YUYV and
/// NV12 stored as JPEG's own Y Cb Cr from all their planes (video range widened to full
/// range, no RGB in between: half the work of converting to RGB and back); GREY as gray.
/// Other formats: nil (the caller falls back to the gray upright snapshot).
public enum ColorPreviewEncoder {
    /// Video-range luma (16–235) widened to JPEG's full range (BT.601).
    static let fullRangeLuma: [UInt8] = (0..<256).map { UInt8(clamping: (($0 - 16) * 255 + 109) / 219) }
    /// Video-range chroma (16–240 around 128) widened to JPEG's full range.
    static let fullRangeChroma: [UInt8] = (0..<256).map { UInt8(clamping: 128 + (($0 - 128) * 255 + ($0 >= 128 ? 112 : -112)) / 224) }

    /// - Parameter maximumWidth: shrink by a whole factor to at most this width (not for MJPEG).
    public static func encode(_ frame: CapturedFrame, maximumWidth: Int?) -> (jpeg: [UInt8], width: Int, height: Int)? {
        if frame.format == .mjpeg || frame.format == .jpeg { return (frame.bytes, frame.width, frame.height) }
        let step = maximumWidth.map { max(1, (frame.width + $0 - 1) / $0) } ?? 1
        let width = frame.width / step
        let height = frame.height / step
        guard width > 0, height > 0 else { return nil }
        let components = frame.format == .grey ? 1 : 3
        var out = [UInt8](repeating: 0, count: width * height * components)
        let line = frame.bytesPerLine
        let ok: Bool = frame.bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                switch frame.format {
                case .grey:
                    guard source.count >= (frame.height - 1) * line + frame.width else { return false }
                    for row in 0..<height {
                        for column in 0..<width { out[row * width + column] = source[row * step * line + column * step] }
                    }
                case .yuyv:
                    // Y Cb Cr as JPEG stores them: no RGB in between, only the range widened.
                    guard source.count >= (frame.height - 1) * line + frame.width * 2 else { return false }
                    for row in 0..<height {
                        for column in 0..<width {
                            let x = column * step, base = row * step * line + (x / 2) * 4, index = (row * width + column) * 3
                            out[index] = Self.fullRangeLuma[Int(source[base + (x % 2) * 2])]
                            out[index + 1] = Self.fullRangeChroma[Int(source[base + 1])]
                            out[index + 2] = Self.fullRangeChroma[Int(source[base + 3])]
                        }
                    }
                case .nv12:
                    let chroma = frame.height * line
                    guard source.count >= chroma + (frame.height / 2 - 1) * line + frame.width else { return false }
                    for row in 0..<height {
                        for column in 0..<width {
                            let x = column * step, y = row * step, index = (row * width + column) * 3
                            let uv = chroma + (y / 2) * line + (x / 2) * 2
                            out[index] = Self.fullRangeLuma[Int(source[y * line + x])]
                            out[index + 1] = Self.fullRangeChroma[Int(source[uv])]
                            out[index + 2] = Self.fullRangeChroma[Int(source[uv + 1])]
                        }
                    }
                default:
                    return false
                }
                return true
            }
        }
        guard ok, let jpeg = try? JPEGEncoder.encode(pixels: out, width: width, height: height, components: components,
                                                     ycbcr: true) else { return nil }
        return (jpeg, width, height)
    }
}
