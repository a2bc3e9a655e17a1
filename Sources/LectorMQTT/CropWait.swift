import Foundation
import LectorSystem

/// The crops of accepted MATCHes that lectord named before its writer wrote them.
///
/// lectord publishes a MATCH as soon as its rules decide, naming the evidence files its
/// writer thread then encodes and writes (each renamed into place whole: a crop that
/// exists is complete). The bridge reads a crop when it exists; until then it waits
/// here, checked every ``retryInterval`` for at most ``patience`` seconds (a write that
/// failed, a disk full, never comes: it is logged and forgotten). Crops are published in
/// the order their MATCHes came; a later one that is there already waits behind an
/// earlier one still missing, so a rule's image topic ends with its newest crop.
struct CropWait {
    /// Seconds a crop is waited for after its MATCH (lectord's writer takes milliseconds;
    /// seconds at its low priority on a starved machine, or behind a stalled disk).
    static let patience = 60.0
    /// Seconds between two looks at the missing crops.
    static let retryInterval = 0.02

    /// A crop to publish on `topic` once the file at `path` exists.
    struct Crop: Equatable {
        var topic: String
        var path: String
        /// When its MATCH arrived.
        var since: Date
    }

    /// What a look at the waiting crops found.
    enum Outcome: Equatable {
        /// The file is there: publish `payload` on the crop's topic.
        case ready(Crop, payload: [UInt8])
        /// The file cannot be read (too large, not a regular file, …): said once, not published.
        case unreadable(Crop, reason: String)
        /// Not written within ``patience``.
        case gaveUp(Crop)
    }

    private(set) var waiting: [Crop] = []
    /// Crops given up on before they were written (for the log and the tests).
    private(set) var givenUp = 0

    /// When the next look is due; nil while no crop waits.
    func nextLook(after now: Date) -> Date? { waiting.isEmpty ? nil : now.addingTimeInterval(Self.retryInterval) }

    /// Queues `crop` behind those already waiting.
    mutating func add(_ crop: Crop) { waiting.append(crop) }

    /// Reads the waiting crops in order, up to the first still missing and in time.
    /// - Parameter read: reads a file, at most `maximumBytes` (RegularFile.read in the bridge).
    mutating func look(now: Date, maximumBytes: Int,
                       read: (String, Int) throws(FileReadError) -> [UInt8]) -> [Outcome] {
        var outcomes: [Outcome] = []
        while let crop = waiting.first {
            do {
                outcomes.append(.ready(crop, payload: try read(crop.path, maximumBytes)))
            } catch .notFound {
                guard now.timeIntervalSince(crop.since) >= Self.patience else { break }
                givenUp += 1
                outcomes.append(.gaveUp(crop))
            } catch {
                outcomes.append(.unreadable(crop, reason: "\(error)"))
            }
            waiting.removeFirst()
        }
        return outcomes
    }
}
