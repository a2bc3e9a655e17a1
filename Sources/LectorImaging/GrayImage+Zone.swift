/// Preparing a zone's crop for recognition: upscaling small text, inverting light text.
extension GrayImage {
    /// This image `factor` times as wide and tall, bilinearly interpolated (pixel centres
    /// aligned), for text too small for Tesseract.
    public func upscaled(by factor: Int) -> GrayImage {
        guard factor > 1, width > 0, height > 0 else { return self }
        let outWidth = width * factor, outHeight = height * factor
        var out = GrayImage(width: outWidth, height: outHeight)
        let scale = 1 / Double(factor)
        pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    let sy = max(0, (Double(y) + 0.5) * scale - 0.5)
                    let y0 = min(Int(sy), height - 1), y1 = min(y0 + 1, height - 1)
                    let fy = sy - Double(y0)
                    for x in 0..<outWidth {
                        let sx = max(0, (Double(x) + 0.5) * scale - 0.5)
                        let x0 = min(Int(sx), width - 1), x1 = min(x0 + 1, width - 1)
                        let fx = sx - Double(x0)
                        let top = Double(source[y0 * width + x0]) * (1 - fx) + Double(source[y0 * width + x1]) * fx
                        let bottom = Double(source[y1 * width + x0]) * (1 - fx) + Double(source[y1 * width + x1]) * fx
                        target[y * outWidth + x] = UInt8(clamping: Int((top * (1 - fy) + bottom * fy).rounded()))
                    }
                }
            }
        }
        return out
    }

    /// The negative: dark text on light ground from light text on dark.
    public func inverted() -> GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }
}
