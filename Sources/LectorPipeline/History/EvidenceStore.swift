import Foundation
import LectorCapture
import LectorImaging
import LectorProtocol
import LectorSystem

/// `--evidence DIR`: the files kept for accepted MATCHes, the upright frame and the
/// matched line's crop, both JPEG, within a size bound (`evidence_max_mb`) and an age
/// (`evidence_keep_days`), the oldest deleted first.
///
/// Names sort in capture order: `<time>-<camera>-<seq>.jpg` for a frame (one file for
/// all the MATCHes of that frame) and `<time>-<camera>-<seq>-<n>.crop.jpg` for a crop,
/// with the MATCH's time as `20261204T213005.123Z`. Each file is written to a temporary
/// name (`….jpg.part`, deleted at start when a kill left one) and renamed: a reader
/// never finds half a JPEG.
///
/// A write that fails (a full disk) stops the keeping for ``pause`` seconds, logged once;
/// the MATCHes of that time name no evidence. Recognition never waits for it: only
/// ``MatchRecorder``'s writer thread calls ``keep(_:)``. Not thread-safe otherwise.
final class EvidenceStore {
    /// Seconds the keeping stays stopped after a failed write before it is tried again.
    static let pause = 60.0
    /// How much of a line's height is added around its box in the crop, on each side.
    static let cropMargin = 0.25
    /// The suffix of a file being written.
    static let partial = ".part"

    /// What to keep for one accepted MATCH.
    struct Item {
        /// The frame upright as the camera saw it (shared by the MATCHes of one frame).
        var picture: EvidencePicture
        /// The line's box in the upright frame.
        var box: PixelBox
        var paths: MatchEvidence
    }

    private struct Kept {
        var name: String
        var bytes: Int
        var unixTime: Double
    }

    let directory: String
    let maximumBytes: Int
    let keepSeconds: Double
    private let logger: Logger
    /// Files in the directory, oldest first.
    private var files: [Kept] = []
    private var totalBytes = 0
    /// Until when (monotonic seconds) the keeping is stopped after a failed write.
    private var stoppedUntil: Double?

    /// Creates `directory` when missing and takes stock of the evidence already there
    /// (``trim(now:)`` is left to the recorder's pruning).
    /// - Throws: ``RecordError`` when the directory cannot be made or read.
    init(directory: String, maximumBytes: Int, keepDays: Double, logger: Logger) throws(RecordError) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        keepSeconds = keepDays * 86400
        self.logger = logger.with("evidence", directory)
        let manager = FileManager.default
        do {
            if !manager.fileExists(atPath: directory) {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
                // Readable by lectord's group (lector-http's SupplementaryGroups=lector), whatever the umask.
                try? Syscalls.chmod(directory, mode: 0o750)
            }
        } catch {
            throw RecordError("cannot create the evidence directory \(directory): \(error.localizedDescription)")
        }
        let names: [String]
        do { names = try manager.contentsOfDirectory(atPath: directory) } catch {
            throw RecordError("cannot list the evidence directory \(directory): \(error.localizedDescription)")
        }
        for name in names where name.hasSuffix(Self.partial) {
            try? manager.removeItem(atPath: directory + "/" + name)  // a write a kill cut short
        }
        for name in names.sorted() where name.hasSuffix(".jpg") {
            let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name)
            let size = attributes?[.size] as? Int ?? 0
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files.append(Kept(name: name, bytes: size, unixTime: modified))
            totalBytes += size
        }
    }

    /// Whether a MATCH now gets evidence (not while the keeping is stopped by a failure).
    var isKeeping: Bool {
        guard let stoppedUntil else { return true }
        return Self.monotonicSeconds() >= stoppedUntil
    }

    /// The paths `match`'s evidence will have in `directory` (the `index`th MATCH of its frame).
    static func paths(in directory: String, for match: MatchMessage, index: Int) -> MatchEvidence {
        let stamp = String(match.time.filter { $0 != "-" && $0 != ":" })
        let camera = String(match.device.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" })
        let base = directory + "/" + stamp + "-" + camera + "-" + String(match.sequence)
        return MatchEvidence(frame: base + ".jpg", crop: base + "-" + String(index) + ".crop.jpg")
    }

    /// Writes `item`'s frame (unless a MATCH of the same frame already did) and crop.
    /// - Returns: whether both files are there.
    func keep(_ item: Item) -> Bool {
        let now = Date().timeIntervalSince1970
        do {
            let picture = item.picture.upright
            if !FileManager.default.fileExists(atPath: item.paths.frame) {
                try write(try picture.jpeg(), to: item.paths.frame, now: now)
            }
            let crop = picture.cropped(to: Self.cropBox(item.box, width: picture.width, height: picture.height))
            try write(try crop.jpeg(), to: item.paths.crop, now: now)
        } catch {
            stoppedUntil = Self.monotonicSeconds() + Self.pause
            logger.once("evidence-write", .error, "evidence not kept: the keeping stops for a while, reading goes on",
                        [("reason", "\(error)")])
            return false
        }
        if stoppedUntil != nil {
            stoppedUntil = nil
            logger.clearOnce("evidence-write")
            logger.notice("evidence kept again")
        }
        trim(now: now)
        return true
    }

    /// A line's box with a margin, clipped to the frame (never empty).
    static func cropBox(_ box: PixelBox, width: Int, height: Int) -> PixelBox {
        let margin = Int((Double(box.height) * cropMargin).rounded())
        let x = max(0, box.x - margin), y = max(0, box.y - margin)
        let right = min(width, box.x + box.width + margin), bottom = min(height, box.y + box.height + margin)
        return PixelBox(x: min(x, width - 1), y: min(y, height - 1), width: max(1, right - x), height: max(1, bottom - y))
    }

    private static func monotonicSeconds() -> Double { Double(MonotonicInstant.now().nanoseconds) / 1e9 }

    private struct WriteFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func write(_ bytes: [UInt8], to path: String, now: Double) throws {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path + Self.partial))
            try? Syscalls.chmod(path + Self.partial, mode: 0o640)  // lector-http (group lector) shows them
            try FileManager.default.moveItem(atPath: path + Self.partial, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: path + Self.partial)
            throw WriteFailure(description: "\(path): \(error.localizedDescription)")
        }
        files.append(Kept(name: (path as NSString).lastPathComponent, bytes: bytes.count, unixTime: now))
        totalBytes += bytes.count
    }

    /// Deletes the oldest files while the store is over its bound or they are too old.
    func trim(now: Double) {
        while let oldest = files.first, totalBytes > maximumBytes || oldest.unixTime < now - keepSeconds {
            files.removeFirst()
            totalBytes -= oldest.bytes
            try? FileManager.default.removeItem(atPath: directory + "/" + oldest.name)
        }
    }
}
