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
/// logged once, and recognition goes on. A row that meets a lock or a full disk waits in
/// ``HistoryWriter``'s own bounded queue and is tried again every second.
///
/// A history file that cannot be used (another program's, damaged) is refused at start
/// with the reason logged; lectord reads on without it and HISTORY says why.
public final class MatchRecorder: Sendable {
    /// MATCHes waiting to be written at most; more are not kept.
    static let queueLimit = 64
    /// Why HISTORY is refused when lectord keeps no history.
    public static let noHistory = "lectord keeps no history (start it with --history PATH)"
    /// Seconds between prunings of the history (`history_keep_days`).
    static let pruneInterval = 3600
    /// Seconds between tries at rows a lock or a full disk held back.
    static let retryInterval = 1.0

    /// Where and how long things are kept.
    public struct Settings: Sendable {
        public var historyPath: String?
        public var historyKeepDays: Double
        public var evidenceDirectory: String?
        public var evidenceMaximumBytes: Int
        public var evidenceKeepDays: Double
        /// The group that may read the history's files (mode 0640; without one 0600).
        public var historyGroup: UInt32?

        public init(historyPath: String?, historyKeepDays: Double, evidenceDirectory: String?, evidenceMaximumBytes: Int,
                    evidenceKeepDays: Double, historyGroup: UInt32? = nil) {
            self.historyGroup = historyGroup
            self.historyPath = historyPath
            self.historyKeepDays = historyKeepDays
            self.evidenceDirectory = evidenceDirectory
            self.evidenceMaximumBytes = evidenceMaximumBytes
            self.evidenceKeepDays = evidenceKeepDays
        }
    }

    /// What the writer thread is given: a MATCH to keep, the hourly pruning, or another
    /// try at the rows a lock or a full disk held back.
    private enum Job {
        case keep(MatchMessage, unixTime: Double, evidence: EvidenceStore.Item?)
        case prune
        case retry
    }

    private let settings: Settings
    private let queue = BoundedWorkQueue<Job>(limit: queueLimit)
    private let writer: HistoryWriter
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
    /// Ends the thread that offers the writer a ``Job/prune`` every ``pruneInterval`` seconds (and ``Job/retry`` every second while rows wait).
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
                store = try HistoryStore(path: path, readOnly: false, group: settings.historyGroup,
                                         busyMilliseconds: HistoryWriter.busyMilliseconds)
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
        let writer = HistoryWriter(store: store, evidence: evidence, keepDays: settings.historyKeepDays, logger: logger)
        self.writer = writer
        queue.start(name: "lector-history", niceness: 10) { job in
            switch job {
            case let .keep(match, unixTime, item): writer.keep(match, unixTime: unixTime, evidence: item)
            case .prune: writer.prune()
            case .retry: writer.flush()
            }
        }
        // Pruning at start, then hourly; another try every second while rows wait; on the writer's thread.
        Thread.detachNewThread { [queue, pruningStopped] in
            Thread.current.name = "lector-prune"
            var seconds = 0
            repeat {
                if seconds % Self.pruneInterval == 0 {
                    queue.offer([.prune])
                } else if writer.waiting.load(ordering: .relaxed) && queue.hasRoom {
                    queue.offer([.retry])
                }
                seconds += 1
            } while !pruningStopped.wait(seconds: Self.retryInterval)
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

    /// The newest accepted MATCH of each rule of `device` in the history, with its
    /// capture time (seconds since 1970); none when no history is kept.
    /// - Throws: the reason as text (the file cannot be read).
    public func lastAccepted(device: String) throws(HistoryUnavailable) -> [(match: MatchMessage, unixTime: Double)] {
        guard keepsHistory, let path = settings.historyPath else { return [] }
        return try reader.withLock { (reader) throws(HistoryUnavailable) -> [(match: MatchMessage, unixTime: Double)] in
            do {
                if reader == nil { reader = try HistoryStore(path: path, readOnly: true) }
                return try reader?.lastAccepted(device: device) ?? []
            } catch {
                throw HistoryUnavailable(reason: "\(error)")
            }
        }
    }

    /// Writes what is queued, then ends the writer thread; returns once it has.
    public func stop() {
        pruningStopped.raise()
        queue.stop()
        writer.finish()
    }
}

/// Why HISTORY cannot be answered: no history kept, or its file cannot be read.
public struct HistoryUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
