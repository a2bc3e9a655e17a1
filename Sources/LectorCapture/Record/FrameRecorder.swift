import Foundation
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// `--record DIR`: keeps a camera's captured frames as files that `--replay DIR` reads
/// back (the counterpart of replay, as gpsd's logs are of gpsfake), within a size bound,
/// the oldest deleted first.
///
/// JPEG frames (MJPEG cameras, JPEG replays) are written as they came (`.jpg`); every
/// other format as its luma plane, an 8-bit PGM (`.pgm`): what recognition reads, not
/// the colour. Names sort in capture order (`frame-<unix ms>-<n>.jpg`).
///
/// The capture thread only copies the frame into a small queue (``offer(_:)``); a thread
/// of its own, at low priority, converts and writes. When it falls behind, frames are
/// skipped, counted, and the first skip is logged.
public final class FrameRecorder: Sendable {
    /// Frames waiting to be written at most; more are skipped.
    static let queueLimit = 4
    /// Extensions of the files a recorder writes (and counts against its bound).
    static let extensions: Set<String> = ["jpg", "pgm"]

    public let directory: String
    /// The bound on the bytes of recorded files in `directory`.
    public let maximumBytes: Int

    private struct Recorded {
        var name: String
        var bytes: Int
    }

    private struct State {
        /// Files in the directory, oldest first.
        var files: [Recorded] = []
        var totalBytes = 0
        var written = 0
        var skipped = 0
        var serial = 0
    }

    private let state: Mutex<State>
    private let queue = BoundedWorkQueue<Frame>(limit: queueLimit)
    private let logger: Logger

    /// Creates `directory` when missing and takes stock of the frames already there.
    /// - Throws: ``RecordError`` when the directory cannot be made or read.
    public init(directory: String, maximumBytes: Int, logger: Logger) throws(RecordError) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        self.logger = logger.with("record", directory)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw RecordError("cannot create the record directory \(directory): \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw RecordError("\(directory) exists and is not a directory")
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw RecordError("the record directory \(directory) is not writable")
        }
        var initial = State()
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw RecordError("cannot list the record directory \(directory): \(error.localizedDescription)")
        }
        for name in names.sorted() where Self.isRecording(name) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            let size = attributes?[.size] as? Int ?? 0
            initial.files.append(Recorded(name: name, bytes: size))
            initial.totalBytes += size
        }
        state = Mutex(initial)
        queue.start(name: "lector-record", niceness: 10) { [self] frame in write(frame) }
    }

    /// A file this recorder (or an earlier one) wrote.
    static func isRecording(_ name: String) -> Bool {
        name.hasPrefix("frame-") && extensions.contains((name as NSString).pathExtension)
    }

    /// Frames written and skipped so far, and the bytes of recorded files in the directory.
    public var counts: (written: Int, skipped: Int, bytes: Int) { state.withLock { ($0.written, $0.skipped, $0.totalBytes) } }

    /// Takes a copy of `frame` to write (on the capture thread: one copy, no waiting).
    public func offer(_ frame: Frame) {
        // The camera's buffer goes back to the driver: keep a copy of its bytes (only when it fits).
        guard queue.hasRoom, queue.offer([Frame(format: frame.format, width: frame.width, height: frame.height,
                                                bytesPerLine: frame.bytesPerLine, sequence: frame.sequence,
                                                timestamp: frame.timestamp, buffer: HeapFrameBuffer(copying: frame.bytes))]) == 0 else {
            state.withLock { $0.skipped += 1 }
            logger.once("record-skip", .warning, "recording falls behind; frames skipped")
            return
        }
    }

    /// Writes what is queued, then ends the writer thread; returns once it has.
    public func stop() {
        queue.stop()
        let counts = self.counts
        logger.info("recording stopped", [("written", "\(counts.written)"), ("skipped", "\(counts.skipped)"), ("bytes", "\(counts.bytes)")])
    }

    private func write(_ frame: Frame) {
        guard let (bytes, ext) = Self.encode(frame) else {
            logger.once("record-format", .warning, "frames of this format cannot be recorded", [("format", frame.format.fourcc)])
            return
        }
        let serial = state.withLock { state -> Int in
            state.serial += 1
            return state.serial
        }
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        let name = "frame-" + Self.padded(milliseconds, 13) + "-" + Self.padded(Int64(serial), 6) + "." + ext
        do {
            // Written to a temporary name, then renamed: a reader never sees half a frame.
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name), options: .atomic)
        } catch {
            logger.once("record-write", .error, "cannot write a recorded frame", [("reason", error.localizedDescription)])
            return
        }
        logger.clearOnce("record-write")
        let doomed = state.withLock { state -> [String] in
            state.files.append(Recorded(name: name, bytes: bytes.count))
            state.totalBytes += bytes.count
            state.written += 1
            var doomed: [String] = []
            // The oldest go first; the newest frame stays even when it alone is over the bound.
            while state.totalBytes > maximumBytes, state.files.count > 1 {
                let oldest = state.files.removeFirst()
                state.totalBytes -= oldest.bytes
                doomed.append(oldest.name)
            }
            return doomed
        }
        for name in doomed { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The file's bytes and extension: JPEG as is, anything else as the luma in a PGM.
    static func encode(_ frame: Frame) -> (bytes: [UInt8], ext: String)? {
        if frame.format == .mjpeg || frame.format == .jpeg { return (Array(frame.bytes), "jpg") }
        var image = GrayImage(width: 0, height: 0)
        do { try LumaExtractor().extract(frame, into: &image) } catch { return nil }
        var bytes = Array("P5\n\(image.width) \(image.height)\n255\n".utf8)
        bytes.append(contentsOf: image.pixels)
        return (bytes, "pgm")
    }
}

/// Why `--record` cannot start.
public struct RecordError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
