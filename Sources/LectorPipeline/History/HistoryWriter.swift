import Foundation
import LectorHistory
import LectorProtocol
import LectorSystem
import Synchronization

/// What ``MatchRecorder``'s writer thread owns: the history's store, the evidence, the
/// pruning time and the rows not written yet (touched by that thread only), and two
/// flags the other threads read: whether evidence is kept now, and whether rows wait.
///
/// A row that meets a lock (another process holding the database) or a full disk is not
/// lost: it waits, in order, in a bounded queue (``pendingLimit``) and is tried again
/// every second (``MatchRecorder``'s ticker) until it is written; that is said once, and
/// once more when the rows are written. While rows wait, evidence is given up first:
/// MATCHes name no files, and on a full disk the oldest evidence is deleted to make room
/// for the rows.
final class HistoryWriter: @unchecked Sendable {
    /// Rows waiting at most; more are not kept (said once).
    static let pendingLimit = 10_000
    /// How long one try waits for another process's lock (a HISTORY reader never blocks it).
    static let busyMilliseconds: Int32 = 1000

    let store: HistoryStore?
    let evidence: EvidenceStore?
    let keepDays: Double
    let logger: Logger
    /// Whether a MATCH published now gets evidence (read by the publish step).
    let keepingEvidence: Atomic<Bool>
    /// Whether rows wait for another try (read by the ticker).
    let waiting = Atomic<Bool>(false)
    private var pending: [(match: MatchMessage, unixTime: Double)] = []
    private var dropped = 0

    init(store: HistoryStore?, evidence: EvidenceStore?, keepDays: Double, logger: Logger) {
        self.store = store
        self.evidence = evidence
        self.keepDays = keepDays
        self.logger = logger
        keepingEvidence = Atomic(evidence != nil)
    }

    /// The evidence files first (unless rows wait), then the row that names them
    /// (without them when they could not be written).
    func keep(_ match: MatchMessage, unixTime: Double, evidence item: EvidenceStore.Item?) {
        var match = match
        let started = MonotonicInstant.now()
        if let item, let evidence {
            if !pending.isEmpty || !evidence.keep(item) { match.evidence = nil }
        }
        let kept = MonotonicInstant.now()
        defer { updateKeepingEvidence() }
        guard store != nil else { return }
        guard pending.count < Self.pendingLimit else {
            dropped += 1
            logger.once("history-dropped", .error, "MATCHes not kept: \(Self.pendingLimit) already wait for the history")
            return
        }
        pending.append((match, unixTime))
        if pending.count == 1 { flush() }  // else the ticker's next retry writes them in order
        logger.debug("MATCH kept", [("rule", match.rule), ("evidence_ms", String(format: "%.1f", kept.milliseconds(since: started))),
                                    ("row_ms", String(format: "%.1f", MonotonicInstant.now().milliseconds(since: kept)))])
    }

    /// Writes the waiting rows, oldest first, until one fails; on a full disk the log is
    /// emptied and the oldest evidence deleted, and the row tried again.
    func flush() {
        guard let store, !pending.isEmpty else { return }
        let waited = waiting.load(ordering: .relaxed)
        var written = 0
        var freed = 0
        while let row = pending.first {
            do {
                try store.insert(row.match, unixTime: row.unixTime)
                pending.removeFirst()
                written += 1
            } catch {
                if error.isDiskFull && freed < 16 {
                    freed += 1
                    store.checkpoint()
                    if evidence?.giveUpOldest() == true || freed == 1 { continue }
                }
                logger.once("history-write", .error, "MATCHes wait to be kept in the history; tried again every second",
                            [("reason", error.description)])
                waiting.store(true, ordering: .relaxed)
                updateKeepingEvidence()
                return
            }
        }
        waiting.store(false, ordering: .relaxed)
        updateKeepingEvidence()
        if waited {
            logger.clearOnce("history-write")
            logger.clearOnce("history-dropped")
            logger.notice("the history is written again", [("rows", "\(written)"), ("not_kept", "\(dropped)")])
            dropped = 0
        }
    }

    /// Deletes the readings older than `history_keep_days`, then the evidence older
    /// than `evidence_keep_days` (also when no MATCH comes for days): rows go before
    /// files, so a reader that sees the files gone sees the rows gone too.
    func prune() {
        let now = Date().timeIntervalSince1970
        if let store {
            do {
                let deleted = try store.prune(before: now - keepDays * 86400)
                if deleted > 0 { logger.info("history pruned", [("deleted", "\(deleted)")]) }
            } catch {
                logger.once("history-prune", .error, "the history was not pruned", [("reason", error.description)])
            }
        }
        evidence?.trim(now: now)
    }

    /// After the queue ended: a last try, and what is still not written said.
    func finish() {
        flush()
        if !pending.isEmpty {
            logger.error("MATCHes not kept in the history before lectord stopped", [("rows", "\(pending.count)")])
        }
    }

    private func updateKeepingEvidence() {
        keepingEvidence.store(evidence.map { $0.isKeeping && pending.isEmpty } ?? false, ordering: .relaxed)
    }
}
