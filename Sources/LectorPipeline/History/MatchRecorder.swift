import Foundation
import LectorCapture
import LectorHistory
import LectorImaging
import LectorProtocol
import LectorSystem
import Synchronization

/// What lectord keeps of its MATCHes: the evidence files of accepted ones (`--evidence`)
/// and a row per MATCH, accepted or rejected, in the history (`--history`).
///
/// The camera's publish step only names the evidence files (``record(_:frame:unixTime:)``,
/// no disk, no encoding) and queues the work; one writer thread of its own, at low
/// priority, encodes and writes the files, then the row that names them. So a MATCH may
/// name files a few milliseconds before they exist: a client that opens them at once
/// waits for them or asks HISTORY, whose rows only name files that were written (a
/// failed write leaves `evidence` out of the row). The queue is bounded: when the writer
/// falls behind (a disk stalled), MATCHes are published without evidence and not kept,
/// logged once, and recognition goes on.
///
/// A history file that cannot be used (another program's, damaged) is refused at start
/// with the reason logged; lectord reads on without it and HISTORY says why.
public final class MatchRecorder: Sendable {
    /// MATCHes waiting to be written at most; more are not kept.
    static let queueLimit = 64
    /// Why HISTORY is refused when lectord keeps no history.
    public static let noHistory = "lectord keeps no history (start it with --history PATH)"
    /// Seconds between prunings of the history (`history_keep_days`).
    static let pruneInterval = 3600.0

    /// Where and how long things are kept.
    public struct Settings: Sendable {
        public var historyPath: String?
        public var historyKeepDays: Double
        public var evidenceDirectory: String?
        public var evidenceMaximumBytes: Int
        public var evidenceKeepDays: Double

        public init(historyPath: String?, historyKeepDays: Double, evidenceDirectory: String?, evidenceMaximumBytes: Int,
                    evidenceKeepDays: Double) {
            self.historyPath = historyPath
            self.historyKeepDays = historyKeepDays
            self.evidenceDirectory = evidenceDirectory
            self.evidenceMaximumBytes = evidenceMaximumBytes
            self.evidenceKeepDays = evidenceKeepDays
        }
    }

    /// What the writer thread is given: a MATCH to keep, or the hourly pruning.
    private enum Job {
        case keep(MatchMessage, unixTime: Double, evidence: EvidenceStore.Item?)
        case prune
    }

    /// What the writer thread owns (its store, evidence and pruning time: touched by it
    /// only), and whether evidence is kept now (read by the publish step).
    private final class Writer: @unchecked Sendable {
        let store: HistoryStore?
        let evidence: EvidenceStore?
        let keepDays: Double
        let logger: Logger
        let keepingEvidence: Atomic<Bool>

        init(store: HistoryStore?, evidence: EvidenceStore?, keepDays: Double, logger: Logger) {
            self.store = store
            self.evidence = evidence
            self.keepDays = keepDays
            self.logger = logger
            keepingEvidence = Atomic(evidence != nil)
        }

        func write(_ job: Job) {
            switch job {
            case let .keep(match, unixTime, item): keep(match, unixTime: unixTime, evidence: item)
            case .prune: prune()
            }
        }

        /// The evidence files first, then the row that names them (without them when
        /// they could not be written).
        private func keep(_ match: MatchMessage, unixTime: Double, evidence item: EvidenceStore.Item?) {
            var match = match
            let started = MonotonicInstant.now()
            if let item, let evidence {
                if !evidence.keep(item) { match.evidence = nil }
                keepingEvidence.store(evidence.isKeeping, ordering: .relaxed)
            }
            let kept = MonotonicInstant.now()
            guard let store else { return }
            do {
                try store.insert(match, unixTime: unixTime)
                logger.clearOnce("history-write")
            } catch {
                logger.once("history-write", .error, "a MATCH was not kept in the history", [("reason", error.description)])
            }
            logger.debug("MATCH kept", [("rule", match.rule), ("evidence_ms", String(format: "%.1f", kept.milliseconds(since: started))),
                                        ("row_ms", String(format: "%.1f", MonotonicInstant.now().milliseconds(since: kept)))])
        }

        /// Deletes the readings older than `history_keep_days`, then the evidence older
        /// than `evidence_keep_days` (also when no MATCH comes for days): rows go before
        /// files, so a reader that sees the files gone sees the rows gone too.
        private func prune() {
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
    }

    private let settings: Settings
    private let queue = BoundedWorkQueue<Job>(limit: queueLimit)
    private let writer: Writer
    /// Why the history is not kept (a refused file), for HISTORY's ERROR.
    public let historyRefusal: String?
    /// A read-only connection for HISTORY replies (one caller at a time), opened by the first.
    private let reader = Mutex<HistoryStore?>(nil)
    /// Whether the history is kept (its file was accepted).
    private let keepsHistory: Bool
    /// Whether accepted MATCHes get evidence files (`--evidence`): cameras then hold
    /// their captured frames until published, for evidence in colour.
    public var keepsEvidence: Bool { settings.evidenceDirectory != nil }
    private let logger: Logger
    /// Ends the thread that offers the writer a ``Job/prune`` every ``pruneInterval`` seconds.
    private let pruningStopped = StopSignal()

    /// Opens the history (a refused file is logged, and the rest goes on without it) and
    /// the evidence directory, and starts the writer thread.
    /// - Throws: ``RecordError`` when the evidence directory cannot be made or read.
    public init(settings: Settings, logger: Logger) throws(RecordError) {
        self.settings = settings
        self.logger = logger
        var store: HistoryStore?
        var refusal: String?
        if let path = settings.historyPath {
            do {
                store = try HistoryStore(path: path, readOnly: false)
                logger.info("history kept", [("file", path)])
            } catch {
                refusal = error.description
                logger.error("history not kept: the file is refused; reading goes on", [("reason", error.description)])
            }
        }
        historyRefusal = settings.historyPath == nil ? Self.noHistory : refusal
        keepsHistory = store != nil
        var evidence: EvidenceStore?
        if let directory = settings.evidenceDirectory {
            evidence = try EvidenceStore(directory: directory, maximumBytes: settings.evidenceMaximumBytes,
                                         keepDays: settings.evidenceKeepDays, logger: logger)
        }
        let writer = Writer(store: store, evidence: evidence, keepDays: settings.historyKeepDays, logger: logger)
        self.writer = writer
        queue.start(name: "lector-history", niceness: 10) { job in writer.write(job) }
        // Pruning at start, then hourly, on the writer's thread.
        Thread.detachNewThread { [queue, pruningStopped] in
            Thread.current.name = "lector-prune"
            repeat { queue.offer([.prune]) } while !pruningStopped.wait(seconds: Self.pruneInterval)
        }
    }

    /// Names the evidence of `matches`' accepted ones (when kept now) and queues them to
    /// be written; returns them with their `evidence`. Called in a camera's publish step:
    /// no disk, no encoding, never waits.
    /// - Parameters:
    ///   - frame: the upright image the matches' boxes are in.
    ///   - held: the frame as captured, still borrowed: when a MATCH is kept, its bytes are
    ///     copied here (the only copy of a frame's colour) for the writer to decode.
    ///   - transform: how `held` turns upright (into `frame`).
    ///   - unixTime: the frame's capture time.
    public func record(_ matches: [MatchMessage], frame: GrayImage, held: HeldCapture? = nil, transform: OrientationTransform? = nil,
                       unixTime: Double) -> [MatchMessage] {
        guard !matches.isEmpty else { return matches }
        let keeping = writer.keepingEvidence.load(ordering: .relaxed)
        var jobs: [Job] = []
        var named: [MatchMessage] = []
        var picture: EvidencePicture?
        for (index, match) in matches.enumerated() {
            var match = match
            var item: EvidenceStore.Item?
            if keeping, match.isAccepted, let directory = settings.evidenceDirectory {
                let paths = EvidenceStore.paths(in: directory, for: match, index: index)
                match.evidence = paths
                // The frame's colour is copied once, for all its MATCHes, and only here.
                if picture == nil { picture = EvidencePicture(gray: frame, color: held?.colorSource(), transform: transform) }
                if let picture { item = EvidenceStore.Item(picture: picture, box: match.box, paths: paths) }
            }
            named.append(match)
            jobs.append(.keep(match, unixTime: unixTime, evidence: item))
        }
        let refused = queue.offer(jobs)
        if refused > 0 {
            // Not queued: their files will not be written, so they name none.
            for index in named.count - refused..<named.count { named[index].evidence = nil }
            logger.once("history-skip", .warning, "the history's writer falls behind; MATCHes not kept")
        }
        return named
    }

    /// The MATCHes `query` asks for, newest first (HISTORY; any thread, one at a time).
    /// - Throws: the reason as text (no history kept, or the file cannot be read).
    public func history(_ query: HistoryQuery) throws(HistoryUnavailable) -> [MatchMessage] {
        guard keepsHistory, let path = settings.historyPath else { throw HistoryUnavailable(reason: historyRefusal ?? "no history") }
        return try reader.withLock { (reader) throws(HistoryUnavailable) -> [MatchMessage] in
            do {
                if reader == nil { reader = try HistoryStore(path: path, readOnly: true) }
                return try reader?.matches(query) ?? []
            } catch {
                throw HistoryUnavailable(reason: "\(error)")
            }
        }
    }

    /// Writes what is queued, then ends the writer thread; returns once it has.
    public func stop() {
        pruningStopped.raise()
        queue.stop()
    }
}

/// Why HISTORY cannot be answered: no history kept, or its file cannot be read.
public struct HistoryUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
