import LectorProtocol

/// Figures that help aim and focus a camera: how sharp the frame is and how large its
/// text is. Reported in FRAME (`sharpness`, `char_height`).
public enum FocusMeasure {
    /// The variance of the Laplacian of the luma (4-neighbour kernel), over every pixel
    /// not on the border: higher is sharper. It depends on the scene (a blank wall scores
    /// low when in focus), so it is for comparing one view while turning the focus.
    public static func sharpness(of image: GrayImage) -> Double {
        let width = image.width
        let height = image.height
        guard width >= 3, height >= 3 else { return 0 }
        var sum: Int64 = 0
        var squares: Int64 = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 1..<(height - 1) {
                let row = y * width
                var rowSum = 0
                var rowSquares = 0
                for x in 1..<(width - 1) {
                    let center = row + x
                    let laplacian = Int(pixels[center - 1]) + Int(pixels[center + 1]) + Int(pixels[center - width])
                        + Int(pixels[center + width]) - 4 * Int(pixels[center])
                    rowSum += laplacian
                    rowSquares += laplacian * laplacian
                }
                sum += Int64(rowSum)
                squares += Int64(rowSquares)
            }
        }
        let count = Double((width - 2) * (height - 2))
        let mean = Double(sum) / count
        return max(0, Double(squares) / count - mean * mean)
    }

    /// The median height in upright pixels of the recognized words that hold a letter or
    /// digit (a word's box is as tall as its tallest character), or nil without any.
    /// ML Kit's guidance: about 16 px per character reads reliably.
    public static func medianCharacterHeight(of text: RecognizedText) -> Double? {
        let heights = text.words
            .filter { $0.text.contains(where: { $0.isLetter || $0.isNumber }) }
            .map(\.box.height)
            .sorted()
        guard !heights.isEmpty else { return nil }
        let middle = heights.count / 2
        return heights.count % 2 == 1 ? Double(heights[middle]) : Double(heights[middle - 1] + heights[middle]) / 2
    }
}
