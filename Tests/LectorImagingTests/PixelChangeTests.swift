@testable import LectorImaging
import LectorTestSupport
import Testing

@Suite("Pixel change")
struct PixelChangeTests {
    /// A change made to a random image (sizes that leave partial blocks at the edges).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let width: Int
        let height: Int
        /// The new value of pixel (x, y) of value v.
        let change: @Sendable (Int, Int, UInt8) -> UInt8
        let mean: Double
        let largestBlock: Double
        let negligible: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the same pixels", width: 37, height: 21, change: { _, _, v in v }, mean: 0, largestBlock: 0, negligible: true),
        Case(name: "one gray level lighter", width: 64, height: 48, change: { _, _, v in bounded(v, 1) },
             mean: 1, largestBlock: 1, negligible: true),
        Case(name: "noise of ±1 that averages out", width: 64, height: 48, change: { x, _, v in bounded(v, x % 2 == 0 ? 1 : -1) },
             mean: 1, largestBlock: 0, negligible: true),
        Case(name: "three gray levels lighter", width: 64, height: 48, change: { _, _, v in bounded(v, 3) },
             mean: 3, largestBlock: 3, negligible: false),
        Case(name: "one block of 8×8 changed by 40", width: 640, height: 480,
             change: { x, y, v in (80..<88).contains(x) && (16..<24).contains(y) ? bounded(v, 40) : v },
             mean: 40.0 * 64 / (640 * 480), largestBlock: 40, negligible: false),
        Case(name: "the last, partial block changed by 10", width: 37, height: 21,
             change: { x, y, v in x >= 32 && y >= 16 ? bounded(v, -10) : v }, mean: 10.0 * 25 / (37 * 21), largestBlock: 10,
             negligible: false),
    ]

    /// `v` + `d`: the images' values are kept in 20...215, so that no change clips.
    static func bounded(_ v: UInt8, _ d: Int) -> UInt8 { UInt8(Int(v) + d) }

    @Test("mean and largest block difference", arguments: cases)
    func change(_ test: Case) throws {
        let before = GrayImage(width: test.width, height: test.height,
                               pixels: TestSupport.randomBytes(count: test.width * test.height, seed: 7).map { 20 + $0 % 196 })
        var after = before
        for y in 0..<before.height { for x in 0..<before.width { after[x, y] = test.change(x, y, before[x, y]) } }
        let change = try #require(PixelChange(from: before, to: after))
        #expect(abs(change.meanDifference - test.mean) < 1e-9, "mean \(change.meanDifference)")
        #expect(abs(change.largestBlockDifference - test.largestBlock) < 1e-9, "largest block \(change.largestBlockDifference)")
        #expect(change.isNegligible == test.negligible)
    }

    @Test("images of different sizes are not compared")
    func sizes() {
        #expect(PixelChange(from: GrayImage(width: 8, height: 8), to: GrayImage(width: 8, height: 9)) == nil)
        #expect(PixelChange(from: GrayImage(width: 0, height: 0), to: GrayImage(width: 0, height: 0))?.isNegligible == true)
    }
}
