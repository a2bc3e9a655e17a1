import Foundation
import LectorCapture
import LectorHistory
import LectorSystem

/// The evidence folder as lectord holds it: the directory open by its descriptor (every
/// file made, renamed and removed relative to it, never through a link) and its
/// ``EvidenceLedger``. A folder others may write in is refused, as the socket's fallback
/// folder is: they could plant links or take names there.
struct EvidenceFolder {
    let handle: DirectoryHandle
    let ledger: EvidenceLedger

    /// Opens `path`, creating it (mode 0750, whatever the umask) when missing, and its ledger.
    /// - Throws: ``RecordError`` saying why the folder is refused or cannot be used.
    static func open(_ path: String) throws(RecordError) -> EvidenceFolder {
        if Syscalls.linkStatus(path) == nil {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                // Readable by lectord's group (lector-http's SupplementaryGroups=lector), whatever the umask.
                try Syscalls.chmod(path, mode: 0o750)
            } catch {
                throw RecordError("cannot create the evidence directory \(path): \(error.localizedDescription)")
            }
        }
        let handle: DirectoryHandle
        do {
            handle = try DirectoryHandle(path: path)
            if let problem = problem(with: try handle.status(), user: Syscalls.effectiveUserID) {
                throw RecordError("refusing the evidence directory \(path): \(problem)")
            }
        } catch let error as RecordError {
            throw error
        } catch {
            throw RecordError("cannot open the evidence directory \(path): \(error)")
        }
        do {
            return EvidenceFolder(handle: handle, ledger: try EvidenceLedger(folder: path))
        } catch {
            throw RecordError("cannot keep the record of the evidence in \(path): \(error)")
        }
    }

    /// Why a directory with `status` is not safe for `user`'s evidence, nil when it is:
    /// it must be a directory of `user` (or of root) that no one else may write in.
    static func problem(with status: FileStatus, user: UInt32) -> String? {
        guard status.isDirectory else { return "it is not a directory" }
        guard status.owner == user || status.owner == 0 else {
            return "it belongs to uid \(status.owner), not to lectord's user (uid \(user)); give a folder of lectord's own"
        }
        guard status.permissions & 0o022 == 0 else {
            return "others may write in it (mode \(String(status.permissions, radix: 8))): they could plant links or files "
                + "in lectord's names; make it private (chmod go-w) or give another folder"
        }
        return nil
    }

    /// Whether `name` is one of lectord's evidence names: `<time>-<camera>-<seq>.jpg` or
    /// `….crop.jpg`, the time written `20261204T211403.512Z`.
    static func isEvidenceName(_ name: String) -> Bool {
        let characters = Array(name.utf8)
        guard characters.count > 26, name.hasSuffix(".jpg"), !name.contains("/") else { return false }
        let digits = [0..<8, 9..<15, 16..<19].flatMap { Array($0) }
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(characters[$0]) }) else { return false }
        return characters[8] == UInt8(ascii: "T") && characters[15] == UInt8(ascii: ".") && characters[19] == UInt8(ascii: "Z")
            && characters[20] == UInt8(ascii: "-")
    }

    /// Whether the file `name` is one lectord may delete: its ledger names it (the caller
    /// checked), it has an evidence name, and it is a regular file of this process's user
    /// (not a link, nor something put in its place).
    func isOwn(_ name: String) -> Bool {
        guard Self.isEvidenceName(name), let status = handle.status(of: name) else { return false }
        return status.isRegular && status.owner == Syscalls.effectiveUserID
    }
}
