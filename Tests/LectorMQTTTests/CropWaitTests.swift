import Foundation
@testable import LectorMQTT
import LectorSystem
import Testing

@Suite("lector-mqtt waits for a MATCH's crop until lectord's writer wrote it")
struct CropWaitTests {
    /// Files that exist, by path (the rest do not).
    static func reader(_ files: [String: [UInt8]]) -> (String, Int) throws(FileReadError) -> [UInt8] {
        { path, limit throws(FileReadError) in
            guard let bytes = files[path] else { throw .notFound(path: path) }
            guard bytes.count <= limit else { throw .tooLarge(path: path, bytes: bytes.count, limit: limit) }
            return bytes
        }
    }

    @Test func publishedInOrderOnceWritten() {
        let start = Date()
        var wait = CropWait()
        wait.add(.init(topic: "a", path: "/e/1.crop.jpg", since: start))
        wait.add(.init(topic: "a", path: "/e/2.crop.jpg", since: start))
        #expect(wait.nextLook(after: start) != nil)
        // The second is written, the first not yet: nothing goes out (order kept).
        #expect(wait.look(now: start, maximumBytes: 100, read: Self.reader(["/e/2.crop.jpg": [2]])).isEmpty)
        let outcomes = wait.look(now: start.addingTimeInterval(0.05), maximumBytes: 100,
                                 read: Self.reader(["/e/1.crop.jpg": [1], "/e/2.crop.jpg": [2]]))
        var payloads: [[UInt8]] = []
        for case let .ready(_, payload) in outcomes { payloads.append(payload) }
        #expect(payloads == [[1], [2]] && outcomes.count == 2)
        #expect(wait.waiting.isEmpty && wait.nextLook(after: start) == nil)
    }

    @Test func aFileNeverWrittenIsGivenUpAndOneTooLargeIsSaid() {
        let start = Date()
        var wait = CropWait()
        wait.add(.init(topic: "a", path: "/e/never.jpg", since: start))
        wait.add(.init(topic: "a", path: "/e/big.jpg", since: start))
        #expect(wait.look(now: start.addingTimeInterval(CropWait.patience - 1), maximumBytes: 1, read: Self.reader([:])).isEmpty)
        let outcomes = wait.look(now: start.addingTimeInterval(CropWait.patience), maximumBytes: 1,
                                 read: Self.reader(["/e/big.jpg": [1, 2, 3]]))
        #expect(outcomes.count == 2 && wait.givenUp == 1 && wait.waiting.isEmpty)
        if case .gaveUp = outcomes[0] {} else { Issue.record("the missing file is given up: \(outcomes)") }
        if case .unreadable = outcomes[1] {} else { Issue.record("the too large one is said: \(outcomes)") }
    }
}
