@testable import LectorDetector
@testable import LectorRecognition
import Testing

@Suite("Detection size: a quick first detection where the full size does not fit")
struct DetectionSizeTests {
    /// (what, full-size estimate in ms, new scene, deadline, image, side expected)
    static let cases: [(String, Double?, Bool, Int, Int, Int, Int)] = [
        ("a new scene, nothing measured yet: quick", nil, true, 3000, 1920, 1440, DetectionSize.quick),
        ("a new scene where the full size takes most of the deadline", 3500, true, 3000, 1920, 1440, DetectionSize.quick),
        ("a new scene where the full size fits", 1100, true, 3000, 1920, 1440, DetectionSize.full),
        ("a sixth of a core: the full size under half of the deadline, over 0.4 of it: quick", 1440, true, 3000, 1920, 1440, DetectionSize.quick),
        ("a still scene detected again: full", 3500, false, 3000, 1920, 1440, DetectionSize.full),
        ("a frame no larger than the quick size: full", nil, true, 3000, 640, 480, DetectionSize.full),
        ("a file read whole (no deadline): full", nil, true, RecognizerOptions.noDeadlineMilliseconds, 1920, 1440, DetectionSize.full),
        ("a file read with a long --deadline-ms, nothing timed yet: full", nil, true, 600_000, 1920, 1440, DetectionSize.full),
        ("a short deadline makes the full size too slow", 1100, true, 1500, 1920, 1440, DetectionSize.quick),
    ]

    @Test("the side chosen", arguments: cases)
    func side(_ row: (String, Double?, Bool, Int, Int, Int, Int)) {
        let (what, estimate, newScene, deadline, width, height, expected) = row
        let size = DetectionSize(fullMilliseconds: estimate)
        #expect(size.side(newScene: newScene, deadline: deadline, width: width, height: height) == expected, "\(what)")
    }

    @Test("a detection's time at one size estimates the full size's by the network's input pixels")
    func estimate() {
        var size = DetectionSize()
        size.record(milliseconds: 600, side: 960, width: 1920, height: 1440)
        // 960×736 (rounded to 32) against 1280×960.
        let expected = 600.0 * Double(1280 * 960) / Double(960 * 736)
        #expect(abs((size.fullMilliseconds ?? 0) - expected) < 0.001, "\(String(describing: size.fullMilliseconds))")
        size.record(milliseconds: 1000, side: DetectionSize.full, width: 1920, height: 1440)
        #expect(size.fullMilliseconds == 1000, "the latest detection wins")
    }

    @Test("the probe's time estimates a frame's at full size; it is timed only where it can change the side")
    func probe() {
        var size = DetectionSize()
        #expect(size.wantsProbe(deadline: 3000, width: 1920, height: 1440))
        #expect(!size.wantsProbe(deadline: 3000, width: 640, height: 480), "detected at full size anyway")
        #expect(!size.wantsProbe(deadline: RecognizerOptions.noDeadlineMilliseconds, width: 1920, height: 1440), "a file read whole")
        // 640×480 input pixels against 1280×960: 4 times as many.
        size.recordProbe(milliseconds: 200, width: 1920, height: 1440)
        #expect(abs((size.fullMilliseconds ?? 0) - 800) < 0.001, "\(String(describing: size.fullMilliseconds))")
        #expect(!size.wantsProbe(deadline: 3000, width: 1920, height: 1440), "timed once")
        #expect(size.side(newScene: true, deadline: 3000, width: 1920, height: 1440) == DetectionSize.full)
        var slow = DetectionSize()
        slow.recordProbe(milliseconds: 500, width: 1920, height: 1440)
        #expect(slow.side(newScene: true, deadline: 3000, width: 1920, height: 1440) == DetectionSize.quick, "a sixth of a core")
    }
}
