import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem

/// What to replay and how fast.
public struct ReplayOptions: Equatable, Sendable {
    /// An image file, a directory of them, an MJPEG file, or a raw frame file.
    public var path: String
    /// Frames per second; nil replays as fast as the recognizer takes frames, losing none.
    public var fps: Double?
    /// Start again after the last frame.
    public var loop = false
    /// Seconds each image stays in front of the camera: with `fps`, each is delivered
    /// again at that rate for this long (a camera held on a page sends the same picture
    /// many times) before the next; nil delivers each once.
    public var holdSeconds: Double?
    /// For raw frame files: the pixel format and size of every frame.
    public var rawFormat: PixelFormat?
    public var rawSize: (width: Int, height: Int)?

    public init(path: String, fps: Double? = nil, loop: Bool = false, holdSeconds: Double? = nil, rawFormat: PixelFormat? = nil,
                rawSize: (width: Int, height: Int)? = nil) {
        self.path = path
        self.fps = fps
        self.loop = loop
        self.holdSeconds = holdSeconds
        self.rawFormat = rawFormat
        self.rawSize = rawSize
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.path == rhs.path && lhs.fps == rhs.fps && lhs.loop == rhs.loop && lhs.holdSeconds == rhs.holdSeconds
            && lhs.rawFormat == rhs.rawFormat
            && lhs.rawSize?.width == rhs.rawSize?.width && lhs.rawSize?.height == rhs.rawSize?.height
    }
}

/// Why a replay cannot start.
public enum ReplayError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)
    case empty(path: String)
    case rawNeedsSize(path: String)
    case rawSizeMismatch(path: String, fileSize: Int, frameSize: Int)

    public var description: String {
        switch self {
        case let .notFound(path): "replay source \(path) does not exist"
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .empty(path): "no frames to replay in \(path)"
        case let .rawNeedsSize(path): "raw replay of \(path) needs --size WxH with --replay-format"
        case let .rawSizeMismatch(path, fileSize, frameSize):
            "\(path) holds \(fileSize) bytes, not a whole number of \(frameSize)-byte frames"
        }
    }
}

/// Replays frames from files, like gpsd's gpsfake: an image file or a directory of
/// them (sorted by name; JPEGs are replayed as MJPEG frames, other images are decoded
/// by Leptonica into GREY frames, a colour file's bytes kept for evidence in colour), an MJPEG file (concatenated JPEGs), or a raw frame
/// file of one pixel format and size. A file that cannot be decoded is delivered as a
/// rejected frame and the replay goes on.
public final class ReplaySource: FrameSource {
    public let name: String
    public let options: ReplayOptions
    private let entries: [Entry]
    /// Without `--fps` the replay waits for the recognizer to take each frame.
    public var isPacedByRecognizer: Bool { options.fps == nil }

    /// How many times each image is delivered in a row: its hold at the replay's rate
    /// (at least once).
    public var deliveriesPerImage: Int {
        guard let fps = options.fps, let hold = options.holdSeconds else { return 1 }
        return max(1, Int((hold * fps).rounded()))
    }

    /// One replayed frame, loaded when the source is made.
    enum Entry: Sendable {
        case frame(format: PixelFormat, width: Int, height: Int, buffer: HeapFrameBuffer)
        /// A file that cannot be a frame: replayed as a rejected frame, named once in the log.
        case unreadable(path: String, reason: String)
    }

    /// Builds the replay; each file that cannot be replayed is logged once here, with its
    /// name and why, and is then delivered as a rejected frame on every pass.
    public init(name: String = "replay", options: ReplayOptions, limits: FrameLimits = .standard,
                logger: Logger? = nil) throws(ReplayError) {
        self.name = name
        self.options = options
        entries = try Self.load(options, limits: limits)
        guard !entries.isEmpty else { throw .empty(path: options.path) }
        for case let .unreadable(path, reason) in entries {
            logger?.warning("frame file skipped: replayed as rejected", [("device", name), ("file", path), ("reason", reason)])
        }
    }

    public func run(into sink: any FrameSink, stop: StopSignal) throws {
        var sequence: UInt32 = 0
        var info = DeviceInfo(path: name, state: .streaming, name: "replay of \(options.path)")
        info.fps = options.fps
        sink.report(info)
        defer {
            info.state = .idle
            sink.report(info)
        }
        let interval = options.fps.map { 1 / max($0, 0.001) }
        var next = MonotonicInstant.now()
        let deliveries = deliveriesPerImage
        repeat {
            for entry in entries {
                for _ in 0..<deliveries {
                    if stop.isRaised { return }
                    if let interval {
                        let wait = -MonotonicInstant.now().milliseconds(since: next) / 1000
                        if wait > 0, stop.wait(seconds: wait) { return }
                        next = next.adding(milliseconds: interval * 1000)
                    } else if !sink.waitForRoom() {
                        return
                    }
                    deliver(entry, sequence: sequence, into: sink)
                    sequence &+= 1
                }
            }
        } while options.loop && !stop.isRaised
    }

    /// Hands one replayed frame (a new capture time, as a camera's) or a rejection to `sink`.
    private func deliver(_ entry: Entry, sequence: UInt32, into sink: any FrameSink) {
        switch entry {
        case let .frame(format, width, height, buffer):
            sink.deliver(Frame(format: format, width: width, height: height, sequence: sequence,
                               timestamp: .now(), buffer: buffer))
        case .unreadable:
            sink.reject()
        }
    }

    // MARK: Loading

    private static let jpegExtensions: Set<String> = ["jpg", "jpeg", "jpe"]
    private static let mjpegExtensions: Set<String> = ["mjpeg", "mjpg"]
    private static let imageExtensions: Set<String> = ["png", "tif", "tiff", "pnm", "pgm", "ppm", "pbm", "bmp", "gif", "webp", "jp2"]

    /// The largest replay file read whole (an MJPEG or raw file of many frames).
    static let maximumFileBytes = 1 << 30

    private static func load(_ options: ReplayOptions, limits: FrameLimits) throws(ReplayError) -> [Entry] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.path, isDirectory: &isDirectory) else {
            // A link that leads nowhere (or to itself) exists: say what it is.
            if Syscalls.fileStatus(options.path)?.type == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: options.path)) ?? "?"
                throw .unreadable(path: options.path, reason: "it is a symbolic link to \(target) that leads to no file (a loop or a missing target)")
            }
            throw .notFound(path: options.path)
        }
        if let format = options.rawFormat {
            return try loadRaw(path: options.path, format: format, size: options.rawSize, limits: limits)
        }
        guard isDirectory.boolValue else {
            let entries = loadFile(options.path, limits: limits)
            // A single file that cannot be read is a mistake to report, not a frame to reject.
            if entries.count == 1, case let .unreadable(path, reason) = entries[0] { throw .unreadable(path: path, reason: reason) }
            return entries
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: options.path).sorted()
        } catch {
            throw .unreadable(path: options.path, reason: "\(error.localizedDescription)")
        }
        var entries: [Entry] = []
        for name in names where !name.hasPrefix(".") {
            let ext = (name as NSString).pathExtension.lowercased()
            guard jpegExtensions.contains(ext) || mjpegExtensions.contains(ext) || imageExtensions.contains(ext) else { continue }
            entries += loadFile((options.path as NSString).appendingPathComponent(name), limits: limits)
        }
        return entries
    }

    /// A regular file's bytes, read without blocking (a FIFO is refused, never opened
    /// for reading).
    private static func readBytes(_ path: String) throws(ReplayError) -> [UInt8] {
        do {
            return try RegularFile.read(path, maximumBytes: maximumFileBytes)
        } catch {
            if case .notFound = error { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: error.reason)
        }
    }

    /// One file's frames; a file that cannot be read or decoded is one unreadable entry.
    private static func loadFile(_ path: String, limits: FrameLimits) -> [Entry] {
        let ext = (path as NSString).pathExtension.lowercased()
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, maximumBytes: maximumFileBytes)
        } catch {
            return [.unreadable(path: path, reason: error.reason)]
        }
        if bytes.isEmpty { return [.unreadable(path: path, reason: "the file is empty")] }
        if jpegExtensions.contains(ext) {
            return [jpegEntry(bytes[...], path: path, limits: limits)]
        }
        if mjpegExtensions.contains(ext) {
            return splitJPEGs(bytes).map { jpegEntry($0, path: path, limits: limits) }
        }
        do {
            let image = try ImageFile.decodeGray(bytes, path: path, limits: limits)
            // A colour file keeps its bytes: an accepted MATCH's evidence is decoded from them in colour.
            return [.frame(format: .grey, width: image.width, height: image.height,
                           buffer: HeapFrameBuffer(copying: image.pixels, origin: path,
                                                   imageFile: ImageFile.hasColor(bytes) ? bytes : nil))]
        } catch {
            return [.unreadable(path: path, reason: error.reason)]
        }
    }

    /// A JPEG is replayed as an MJPEG frame, as a webcam delivers it; its header is read
    /// here, so a JPEG beyond the limits or without a header is named once at start.
    private static func jpegEntry(_ bytes: ArraySlice<UInt8>, path: String, limits: FrameLimits) -> Entry {
        let header = bytes.withUnsafeBytes { raw in Result { () throws(FrameError) in try JPEGDecoder(limits: limits).size(of: raw) } }
        if case let .failure(error) = header { return .unreadable(path: path, reason: "\(error)") }
        // Cut short (a copy in progress, a full disk): refused now, named once, rather than
        // at every pass of a loop.
        let complete = bytes.withUnsafeBytes { LumaExtractor.hasJPEGMarkers($0) }
        guard complete else { return .unreadable(path: path, reason: "no JPEG end-of-image marker: the file is cut short") }
        return .frame(format: .mjpeg, width: 0, height: 0, buffer: HeapFrameBuffer(copying: bytes, origin: path))
    }

    /// Splits concatenated JPEGs at each start-of-image marker (FF D8 FF).
    static func splitJPEGs(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var starts: [Int] = []
        var index = 0
        while index + 2 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] == 0xD8, bytes[index + 2] == 0xFF { starts.append(index); index += 3 } else { index += 1 }
        }
        return starts.enumerated().map { offset, start in
            bytes[start..<(offset + 1 < starts.count ? starts[offset + 1] : bytes.count)]
        }
    }

    private static func loadRaw(path: String, format: PixelFormat, size: (width: Int, height: Int)?,
                                limits: FrameLimits) throws(ReplayError) -> [Entry] {
        let bytes = try readBytes(path)
        if format.isCompressed { return splitJPEGs(bytes).map { jpegEntry($0, path: path, limits: limits) } }
        guard let size, size.width > 0, size.height > 0 else { throw .rawNeedsSize(path: path) }
        if let refusal = limits.refusal(width: size.width, height: size.height) {
            throw .unreadable(path: path, reason: "--size \(refusal.replacingOccurrences(of: "declares ", with: ""))")
        }
        let bytesPerLine = format.minimumBytesPerLine(width: size.width)
        let frameSize = format.frameSize(width: size.width, height: size.height, bytesPerLine: bytesPerLine) ?? 0
        guard frameSize > 0, bytes.count >= frameSize, bytes.count % frameSize == 0 else {
            throw .rawSizeMismatch(path: path, fileSize: bytes.count, frameSize: frameSize)
        }
        return stride(from: 0, to: bytes.count, by: frameSize).map { start in
            .frame(format: format, width: size.width, height: size.height,
                   buffer: HeapFrameBuffer(copying: bytes[start..<start + frameSize], origin: path))
        }
    }
}
