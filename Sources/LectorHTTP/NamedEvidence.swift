import Foundation

/// The evidence files HISTORY replies named lately (at most ``limit``, the oldest
/// forgotten first): what `/api/evidence.jpg` may read.
final class NamedEvidence: @unchecked Sendable {
    static let limit = 4096
    private let lock = NSLock()
    private var paths: [String] = []
    private var known: Set<String> = []

    func add(_ named: [String]) {
        lock.withLock {
            for path in named where known.insert(path).inserted { paths.append(path) }
            while paths.count > Self.limit { known.remove(paths.removeFirst()) }
        }
    }

    func contains(_ path: String) -> Bool { lock.withLock { known.contains(path) } }
}
