import Foundation
import LectorProtocol
import Testing
@testable import LectorMQTT

/// The bridge's command gate (issue 29, break 2): size, rate, a bounded queue, merged
/// snapshots, and at most a few commands unanswered at lectord.
@Suite("Command gate")
struct CommandGateTests {
    static func snapshot(_ device: String) -> CommandGate.Command {
        CommandGate.Command(request: .snapshot(device: device, boxes: true, maximumWidth: nil), device: device)
    }

    static func rotation(_ device: String, _ degrees: Int) -> CommandGate.Command {
        var settings = OrientationSettings()
        settings.rotation = degrees
        return CommandGate.Command(request: .orientation(device: device, settings), device: device)
    }

    @Test("payload sizes", arguments: [(0, true), (4096, true), (4097, false), (11 * 1024, false), (100 << 20, false)])
    func size(bytes: Int, taken: Bool) {
        var gate = CommandGate()
        #expect((gate.checkSize(bytes) == nil) == taken, "\(bytes) bytes")
        #expect(gate.refused == (taken ? 0 : 1))
    }

    @Test("1,000 snapshots of one camera wait as one; of many cameras, up to the queue's bound")
    func snapshotsMerge() {
        var gate = CommandGate(rate: 1000, burst: 1000, capacity: 32)
        let now = Date()
        for _ in 0..<1000 { #expect(gate.offer(Self.snapshot("a"), now: now) == nil) }
        #expect(gate.count == 1 && gate.merged == 999 && gate.refused == 0)
        for index in 0..<40 { _ = gate.offer(Self.snapshot("cam\(index)"), now: now) }
        #expect(gate.count == 32 && gate.refused == 9, "queue \(gate.count), refused \(gate.refused)")
    }

    @Test("the rate: a burst, then the rate per second", arguments: [(0.0, 20), (1.0, 30), (0.5, 25)])
    func rate(later: Double, taken: Int) {
        var gate = CommandGate(rate: 10, burst: 20, capacity: 1000)
        let start = Date()
        var accepted = 0
        for index in 0..<100 where gate.offer(Self.rotation("a", 90 * (index % 4)), now: start) == nil { accepted += 1 }
        for index in 0..<100 where gate.offer(Self.rotation("a", 90 * (index % 4)), now: start.addingTimeInterval(later)) == nil {
            accepted += 1
        }
        #expect(accepted == taken, "accepted \(accepted) with a second offer \(later) s later")
    }

    @Test("at most maximumInFlight unanswered, an answer or the reply timeout frees a slot; clear drops what waits")
    func inFlight() {
        var gate = CommandGate(rate: 1000, burst: 1000, capacity: 32)
        let now = Date()
        for index in 0..<10 { _ = gate.offer(Self.rotation("cam\(index)", 90), now: now) }
        var sent = 0
        while gate.next(now: now) != nil { sent += 1 }
        #expect(sent == CommandGate.maximumInFlight && gate.count == 10 - CommandGate.maximumInFlight)
        gate.answered()
        #expect(gate.next(now: now)?.device == "cam\(CommandGate.maximumInFlight)" && gate.next(now: now) == nil)
        let later = now.addingTimeInterval(CommandGate.replyTimeout + 1)
        #expect(gate.next(now: later) != nil, "unanswered commands stop counting after the reply timeout")
        #expect(gate.clear() == 10 - CommandGate.maximumInFlight - 2 && gate.count == 0 && gate.inFlight == 0)
    }
}
