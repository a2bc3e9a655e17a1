import Foundation
import LectorCapture
import LectorHistory
import LectorImaging
import LectorProtocol
import LectorSystem

/// `--evidence DIR`: the files kept for accepted MATCHes, the upright frame and the
/// matched line's crop, both JPEG, within a size bound (`evidence_max_mb`) and an age
/// (`evidence_keep_days`), the oldest deleted first.
///
/// Names sort in capture order: `<time>-<camera>-<seq>.jpg` for a frame (one file for
/// all the MATCHes of that frame) and `<time>-<camera>-<seq>-<n>.crop.jpg` for a crop,
/// with the MATCH's time as `20261204T213005.123Z`. Each file is recorded in the folder's
/// ``EvidenceLedger``, then written to a new temporary name (`….jpg.part`, `O_EXCL`,
/// `O_NOFOLLOW`) and renamed without replacing anything: a reader never finds half a
/// JPEG, and no file or link already in the folder is written through or replaced.
/// Only files lectord can prove it wrote are deleted: recorded in the ledger, named as
/// evidence, regular files of lectord's user ([EvidenceFolder]). A folder that others
/// may write in is refused; one removed (or moved away) is made again at the next MATCH.
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

    private typealias Kept = EvidenceLedger.Entry

    let directory: String
    let maximumBytes: Int
    let keepSeconds: Double
    private let logger: Logger
    /// The folder as opened; nil while it cannot be used (made again at the next MATCH).
    private var folder: EvidenceFolder?
    /// Files in the directory lectord wrote, oldest first, and their names.
    private var files: [Kept] = []
    private var names: Set<String> = []
    private var totalBytes = 0
    /// Until when (monotonic seconds) the keeping is stopped after a failed write.
    private var stoppedUntil: Double?

    /// Creates `directory` when missing, refuses one others may write in, and takes stock
    /// of the evidence its ledger records (``trim(now:)`` is left to the recorder's pruning).
    /// - Throws: ``RecordError`` when the directory cannot be made, is refused, or its ledger cannot be used.
    init(directory: String, maximumBytes: Int, keepDays: Double, logger: Logger) throws(RecordError) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        keepSeconds = keepDays * 86400
        self.logger = logger.with("evidence", directory)
        let folder = try EvidenceFolder.open(directory)
        self.folder = folder
        takeStock(of: folder)
    }

    /// Reads the ledger: files still there are counted; a row whose file is missing (a
    /// write a kill cut short) is dropped with its `.part`, and so is one whose name now
    /// holds something else (a link, another user's file).
    private func takeStock(of folder: EvidenceFolder) {
        files = []
        names = []
        totalBytes = 0
        var forgotten: [String] = []
        for entry in (try? folder.ledger.entries()) ?? [] {
            if folder.isOwn(entry.name), let status = folder.handle.status(of: entry.name) {
                files.append(Kept(name: entry.name, bytes: status.bytes, unixTime: entry.unixTime))
                names.insert(entry.name)
                totalBytes += status.bytes
                continue
            }
            let part = entry.name + Self.partial
            if folder.handle.status(of: entry.name) == nil, let status = folder.handle.status(of: part), status.isRegular,
               status.owner == Syscalls.effectiveUserID {
                try? folder.handle.remove(part)
            }
            forgotten.append(entry.name)
        }
        try? folder.ledger.remove(forgotten)
    }

    /// The folder, made again (and its stock taken again) when it was removed or moved away.
    private func currentFolder() -> EvidenceFolder? {
        if let folder, folder.handle.isStillAtPath() { return folder }
        let wasThere = folder != nil
        folder?.handle.close()
        folder = nil
        do {
            let opened = try EvidenceFolder.open(directory)
            folder = opened
            takeStock(of: opened)
            logger.clearOnce("evidence-folder")
            if wasThere { logger.warning("the evidence folder was removed or moved away: made again") }
            return opened
        } catch {
            logger.once("evidence-folder", .error, "evidence not kept: the folder cannot be used; tried again at each MATCH",
                        [("reason", "\(error)")])
            return nil
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
        guard let folder = currentFolder() else { return false }
        do {
            let picture = item.picture.upright
            let frameName = Self.name(item.paths.frame)
            if !names.contains(frameName) {
                try write(try picture.jpeg(), as: frameName, in: folder, now: now)
            }
            let crop = picture.cropped(to: Self.cropBox(item.box, width: picture.width, height: picture.height))
            try write(try crop.jpeg(), as: Self.name(item.paths.crop), in: folder, now: now)
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

    /// Deletes the oldest quarter of the evidence (at least one file) and stops the
    /// keeping for ``pause`` seconds: room for the history's rows on a full disk.
    /// - Returns: whether a file was deleted.
    @discardableResult
    func giveUpOldest() -> Bool {
        stoppedUntil = Self.monotonicSeconds() + Self.pause
        guard !files.isEmpty else { return false }
        delete(count: max(1, files.count / 4))
        logger.once("evidence-given-up", .warning, "the disk is full: the oldest evidence is deleted to keep the history's rows")
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

    private static func name(_ path: String) -> String { (path as NSString).lastPathComponent }

    private struct WriteFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Records `name`, writes `bytes` to a new `name.part` and renames it to `name`,
    /// which must not exist: nothing in the folder is written through or replaced.
    private func write(_ bytes: [UInt8], as name: String, in folder: EvidenceFolder, now: Double) throws {
        let entry = Kept(name: name, bytes: bytes.count, unixTime: now)
        do { try folder.ledger.add(entry) } catch { throw WriteFailure(description: "\(name): \(error)") }
        let part = name + Self.partial
        do throws(SystemError) {
            do throws(SystemError) {
                try folder.handle.createFile(part, mode: 0o640, bytes: bytes)  // lector-http (group lector) shows them
            } catch where error.errno != EEXIST {
                try? folder.handle.remove(part)  // ours, half written
                throw error
            }
            do throws(SystemError) { try folder.handle.renameWithoutReplacing(part, to: name) } catch {
                try? folder.handle.remove(part)
                throw error
            }
        } catch {
            try? folder.ledger.remove([name])
            let taken = error.errno == EEXIST ? " (the name is taken by a file lectord did not write: left alone)" : ""
            throw WriteFailure(description: "\(directory)/\(error.call == "openat" ? part : name): \(error.reason)\(taken)")
        }
        files.append(entry)
        names.insert(name)
        totalBytes += bytes.count
    }

    /// Deletes the oldest files while the store is over its bound or they are too old.
    func trim(now: Double) {
        var count = 0
        var bytes = totalBytes
        for file in files {
            guard bytes > maximumBytes || file.unixTime < now - keepSeconds else { break }
            bytes -= file.bytes
            count += 1
        }
        delete(count: count)
    }

    /// Deletes the `count` oldest files lectord can prove are its own, then their rows
    /// (a row whose file was replaced by something else is only forgotten).
    private func delete(count: Int) {
        guard count > 0 else { return }
        let oldest = files.prefix(count)
        files.removeFirst(count)
        for file in oldest {
            totalBytes -= file.bytes
            names.remove(file.name)
            if let folder, folder.isOwn(file.name) { try? folder.handle.remove(file.name) }
        }
        try? folder?.ledger.remove(oldest.map(\.name))
    }
}
