import LectorImaging
import LectorProtocol
import LectorSystem

/// Renders a SNAPSHOT: the upright gray frame that produced the latest TEXT, optionally
/// shrunk to a maximum width, with the recognized word boxes drawn in red, as JPEG.
enum SnapshotRenderer {
    /// Colour of the word boxes (RGB).
    static let boxColor: [UInt8] = [255, 0, 0]

    /// - Parameters:
    ///   - boxes: word boxes in `image` pixels to draw, or empty for a plain gray JPEG.
    ///   - maximumWidth: the image is shrunk by a whole factor until it is no wider.
    /// - Returns: the JPEG bytes and the encoded size.
    static func render(_ image: GrayImage, boxes: [PixelBox], maximumWidth: Int?) throws(JPEGEncoder.Failure)
        -> (jpeg: [UInt8], width: Int, height: Int) {
        var factor = 1
        if let maximumWidth, maximumWidth > 0 {
            while image.width / factor > maximumWidth { factor += 1 }
        }
        let width = max(1, image.width / factor)
        let height = max(1, image.height / factor)
        var gray = image.pixels
        if factor > 1 {
            gray = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    // Nearest sample: enough for a preview.
                    gray[y * width + x] = image.pixels[(y * factor) * image.width + x * factor]
                }
            }
        }
        guard !boxes.isEmpty else {
            return (try JPEGEncoder.encode(pixels: gray, width: width, height: height, components: 1), width, height)
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            let value = gray[index]
            rgb[index * 3] = value
            rgb[index * 3 + 1] = value
            rgb[index * 3 + 2] = value
        }
        let thickness = max(1, 2 / factor)
        for box in boxes {
            let scaled = PixelBox(x: box.x / factor, y: box.y / factor,
                                  width: max(1, box.width / factor), height: max(1, box.height / factor))
            drawRectangle(scaled, thickness: thickness, into: &rgb, width: width, height: height)
        }
        return (try JPEGEncoder.encode(pixels: rgb, width: width, height: height, components: 3), width, height)
    }

    /// Draws the outline of `box`, `thickness` pixels wide, inside the box.
    static func drawRectangle(_ box: PixelBox, thickness: Int, into rgb: inout [UInt8], width: Int, height: Int) {
        let minX = max(0, box.x), minY = max(0, box.y)
        let maxX = min(width - 1, box.x + box.width - 1), maxY = min(height - 1, box.y + box.height - 1)
        guard minX <= maxX, minY <= maxY else { return }
        func plot(_ x: Int, _ y: Int) {
            let offset = (y * width + x) * 3
            rgb[offset] = boxColor[0]
            rgb[offset + 1] = boxColor[1]
            rgb[offset + 2] = boxColor[2]
        }
        for t in 0..<thickness {
            for x in minX...maxX {
                if minY + t <= maxY { plot(x, minY + t) }
                if maxY - t >= minY { plot(x, maxY - t) }
            }
            for y in minY...maxY {
                if minX + t <= maxX { plot(minX + t, y) }
                if maxX - t >= minX { plot(maxX - t, y) }
            }
        }
    }
}
