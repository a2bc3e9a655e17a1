import LectorProtocol
import LectorSystem

/// A small, noise-tolerant summary of a scene: the mean gray level of each 16×16 block of
/// a stack's mean, in the stack's reference coordinates. Comparing two signatures of
/// the same stack tells whether anything changed between two reads.
public struct SceneSignature: Sendable, Equatable {
    public var blocksWide: Int
    public var blocksHigh: Int
    public var means: [UInt8]

    public init(blocksWide: Int, blocksHigh: Int, means: [UInt8]) {
        self.blocksWide = blocksWide
        self.blocksHigh = blocksHigh
        self.means = means
    }

    /// Blocks whose means differ by more than `level` gray levels; every block when the
    /// layouts differ.
    public func changedBlocks(from other: SceneSignature, level: Int) -> Int {
        guard blocksWide == other.blocksWide, blocksHigh == other.blocksHigh, means.count == other.means.count else {
            return max(means.count, other.means.count, 1)
        }
        var changed = 0
        for index in means.indices where abs(Int(means[index]) - Int(other.means[index])) > level { changed += 1 }
        return changed
    }
}
