@testable import LectorImaging
import LectorTestSupport
import Testing

@Suite("Gray image")
struct GrayImageTests {
    /// The vectorised halving equals the plain 2×2 mean, rounded, on every pixel,
    /// including widths that leave a remainder after the 16-pixel vectors and odd sizes.
    @Test("halved is the rounded mean of each 2×2 block", arguments: [(2, 2), (33, 7), (64, 4), (70, 9), (1921, 1081)])
    func halved(width: Int, height: Int) {
        let image = GrayImage(width: width, height: height, pixels: TestSupport.randomBytes(count: width * height, seed: UInt64(width)))
        var out = GrayImage(width: 0, height: 0)
        image.halved(into: &out)
        #expect(out.width == width / 2 && out.height == height / 2)
        var mismatches = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let sum = Int(image[2 * x, 2 * y]) + Int(image[2 * x + 1, 2 * y]) + Int(image[2 * x, 2 * y + 1]) + Int(image[2 * x + 1, 2 * y + 1])
                if out[x, y] != UInt8((sum + 2) / 4) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(mismatches) pixels differ from the 2×2 mean")
    }

    /// A fresh image grows to its size in one step, and shrinking keeps the allocation.
    @Test("resize from empty and back")
    func resize() {
        var image = GrayImage(width: 0, height: 0)
        image.resize(width: 40, height: 30)
        #expect(image.pixels.count == 1200)
        image.resize(width: 10, height: 10)
        #expect(image.pixels.count == 100)
        image.resize(width: 50, height: 50)
        #expect(image.pixels.count == 2500)
    }
}
