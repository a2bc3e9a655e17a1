import Foundation
import LectorClient
import LectorImaging
import LectorProtocol
import LectorSystem

/// The frames every section measures with: the committed clean frames (rendered by
/// scripts/make-bench-frames.py, known text), a noisy variant of each made here with a
/// fixed seed (a slight blur, then sensor-like noise), and camera encodings of both.
/// Sendable: everything is set in `init` except the encodings cache, which `lock` guards.
final class BenchFrameSet: @unchecked Sendable {
    /// Standard deviation of the added noise, in gray levels.
    static let noiseSigma = 6.0

    let name: String
    let width: Int
    let height: Int
    let truth: [String]
    let clean: GrayImage
    let noisy: GrayImage
    private var encoded: [String: HeapFrameBuffer] = [:]
    private let lock = NSLock()

    init(name: String, folder: String) throws {
        self.name = name
        clean = try ImageFile.readGray(path: "\(folder)/text-\(name).png")
        width = clean.width
        height = clean.height
        truth = try String(contentsOfFile: "\(folder)/text-\(name).txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        noisy = Self.addNoise(to: Self.blurred(clean), seed: UInt64(width * 31 + height))
    }

    /// Where the committed frames are: the bundled resources, or the source tree.
    static func folder() -> String? {
        let candidates = [Bundle.module.resourcePath.map { "\($0)/Frames" }, Bundle.module.path(forResource: "Frames", ofType: nil),
                          FileManager.default.currentDirectoryPath + "/Sources/lector-bench/Frames"]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: "\($0)/text-640x480.png") }
    }

    /// The image, noisy or clean.
    func image(noisy: Bool) -> GrayImage { noisy ? self.noisy : clean }

    /// A frame of `format` holding the noisy (or clean) image, timestamped now. The
    /// bytes are made once and shared by every frame returned.
    func frame(_ format: PixelFormat, noisy: Bool = true, sequence: UInt32 = 0) -> Frame {
        Frame(format: format, width: width, height: height, sequence: sequence, timestamp: .now(),
              buffer: buffer(format, noisy: noisy))
    }

    func buffer(_ format: PixelFormat, noisy: Bool = true) -> HeapFrameBuffer {
        let key = "\(format.fourcc)-\(noisy)"
        lock.lock()
        defer { lock.unlock() }
        if let buffer = encoded[key] { return buffer }
        let buffer = HeapFrameBuffer(copying: Self.encode(image(noisy: noisy), as: format, seed: UInt64(width)))
        encoded[key] = buffer
        return buffer
    }

    /// The bytes a camera would deliver for `image` in `format`: flat chroma for the
    /// raw YUV formats, gray R = G = B for RGB, and for MJPEG a colour JPEG (quality 85,
    /// libjpeg's default 4:2:0) with a little independent noise per channel, as a
    /// camera's colour noise gives.
    static func encode(_ image: GrayImage, as format: PixelFormat, seed: UInt64) -> [UInt8] {
        let width = image.width, height = image.height, pixels = image.pixels
        switch format {
        case .grey:
            return pixels
        case .yuyv, .yvyu, .uyvy, .vyuy:
            var out = [UInt8](repeating: 128, count: width * height * 2)
            let lumaFirst = format == .yuyv || format == .yvyu
            for index in 0..<(width * height) { out[2 * index + (lumaFirst ? 0 : 1)] = pixels[index] }
            return out
        case .nv12, .nv21, .yu12, .yv12, .nv16, .nv61:
            let size = format.frameSize(width: width, height: height, bytesPerLine: width) ?? width * height
            var out = [UInt8](repeating: 128, count: size)
            out.replaceSubrange(0..<(width * height), with: pixels)
            return out
        case .rgb24, .bgr24:
            return pixels.flatMap { [$0, $0, $0] }
        case .xrgb32, .argb32, .xbgr32, .abgr32:
            return pixels.flatMap { [$0, $0, $0, 255] }
        case .mjpeg, .jpeg:
            do {
                return try JPEGEncoder.encode(pixels: colour(image, seed: seed), width: width, height: height, components: 3, quality: 85)
            } catch {
                fatalError("cannot encode the benchmark frame: \(error)")  // libjpeg fails only on bad parameters
            }
        }
    }

    /// `image` as packed RGB with a little independent noise per channel, as a colour
    /// camera gives.
    static func colour(_ image: GrayImage, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for (index, pixel) in image.pixels.enumerated() {
            for channel in 0..<3 {
                let value = Double(pixel) + 2 * generator.gaussian()
                rgb[3 * index + channel] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return rgb
    }

    /// A 3x3 [1 2 1] blur: camera optics are never perfectly sharp.
    static func blurred(_ image: GrayImage) -> GrayImage {
        let width = image.width, height = image.height, source = image.pixels
        var out = source
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                var sum = 0
                for dy in -1...1 {
                    let row = (y + dy) * width + x
                    let weight = dy == 0 ? 2 : 1
                    sum += weight * (Int(source[row - 1]) + 2 * Int(source[row]) + Int(source[row + 1]))
                }
                out[y * width + x] = UInt8((sum + 8) / 16)
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    static func addNoise(to image: GrayImage, seed: UInt64) -> GrayImage {
        var generator = SeededGenerator(seed: seed)
        var out = image
        for index in out.pixels.indices {
            let value = Double(out.pixels[index]) + noiseSigma * generator.gaussian()
            out.pixels[index] = UInt8(max(0, min(255, value.rounded())))
        }
        return out
    }

    /// Writes `image` as a binary PGM (lossless; Pillow and Leptonica read it).
    static func writePGM(_ image: GrayImage, to path: String) throws {
        var data = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.pixels)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The fraction of the truth's words found among `words` (each counted once).
    func wordRecall(_ words: [String]) -> Double {
        var pool = words.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        let wanted = truth.flatMap { $0.split(separator: " ").map(String.init) }
        var found = 0
        for word in wanted where (pool[word] ?? 0) > 0 {
            pool[word]! -= 1  // checked just above
            found += 1
        }
        return wanted.isEmpty ? 1 : Double(found) / Double(wanted.count)
    }
}
