import LectorImaging
import LectorProtocol
import LectorTestSupport
import Testing

@Suite("FocusMeasure: sharpness and character height")
struct FocusMeasureTests {
    /// Black and white squares of `size` pixels.
    static func checkerboard(size: Int) -> GrayImage {
        var image = GrayImage(width: 64, height: 64)
        for y in 0..<64 { for x in 0..<64 where (x / size + y / size) % 2 == 0 { image[x, y] = 255 } }
        return image
    }

    @Test func flatImageHasNoSharpness() {
        #expect(FocusMeasure.sharpness(of: GrayImage(width: 32, height: 32, pixels: .init(repeating: 90, count: 1024))) == 0)
    }

    @Test func blurReducesSharpness() {
        let sharp = Self.checkerboard(size: 8)
        var blurred = GrayImage(width: 0, height: 0)
        var half = GrayImage(width: 0, height: 0)
        sharp.halved(into: &half)
        // Back to 64×64 by repeating pixels, then a 3×3 box blur: edges soften.
        blurred = GrayImage(width: 64, height: 64)
        for y in 1..<63 {
            for x in 1..<63 {
                var sum = 0
                for dy in -1...1 { for dx in -1...1 { sum += Int(half[min(31, (x + dx) / 2), min(31, (y + dy) / 2)]) } }
                blurred[x, y] = UInt8(sum / 9)
            }
        }
        let a = FocusMeasure.sharpness(of: sharp)
        let b = FocusMeasure.sharpness(of: blurred)
        #expect(a > 0 && b < a, "sharp \(a) > blurred \(b)")
    }

    @Test(arguments: [([20, 30, 40], 30.0), ([10, 20, 30, 40], 25.0), ([16], 16.0)])
    func medianWordHeight(heights: [Int], expected: Double) {
        let words = heights.enumerated().map { TextWord(text: "w\($0.offset)", box: PixelBox(x: 0, y: 0, width: 10, height: $0.element), confidence: 0.9) }
        let text = RecognizedText(blocks: [TextBlock(box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.9,
                                                     lines: [TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.9, words: words)])])
        #expect(FocusMeasure.medianCharacterHeight(of: text) == expected)
    }

    @Test func noWordsNoHeight() {
        let punctuation = TextWord(text: "—", box: PixelBox(x: 0, y: 0, width: 5, height: 50), confidence: 0.9)
        let text = RecognizedText(blocks: [TextBlock(box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.9,
                                                     lines: [TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.9, words: [punctuation])])])
        #expect(FocusMeasure.medianCharacterHeight(of: text) == nil, "punctuation alone has no character height")
        #expect(FocusMeasure.medianCharacterHeight(of: RecognizedText(blocks: [])) == nil)
    }
}
