#if canImport(CTextDetector)
import CTextDetector
#endif
import LectorEngine
import LectorImaging
import LectorProtocol

/// Why the neural line recognizer is not there or failed.
public enum NeuralEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This lectord was built without ONNX Runtime or OpenCV's imgproc.
    case unavailable
    /// No model file where lectord looks (the folders searched).
    case modelNotFound(searched: [String])
    /// No seven-segment reader model (``SegmentsModel``) where lectord looks (the folders searched).
    case segmentsModelNotFound(searched: [String])
    /// The model file given is not a readable file.
    case modelUnreadable(String)
    /// The character list beside the model is missing, unreadable or empty.
    case charactersUnreadable(String)
    /// The network's classes are not its character list's (blank + characters + space).
    case charactersMismatch(classes: Int, characters: Int)
    /// ONNX Runtime could not load or run the model: its reason.
    case loadFailed(String)
    /// A line could not be read: ONNX Runtime's or OpenCV's reason.
    case readFailed(String)
    /// None of a whitelist's characters is one the model can read.
    case whitelistOutsideModel(String)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without the neural line recognizer: it needs ONNX Runtime and OpenCV's imgproc when "
                + "it is built (scripts/setup installs them)"
        case let .modelNotFound(searched):
            "no neural line recognizer model in \(searched.joined(separator: ", ")); scripts/fetch-engine-model installs it"
        case let .segmentsModelNotFound(searched):
            "no seven-segment reader model (\(SegmentsModel.fileName)) in \(searched.joined(separator: ", ")); "
                + "scripts/setup installs it from the repository's models/segments"
        case let .modelUnreadable(path): "the neural line recognizer model \(path) is not a readable file"
        case let .charactersUnreadable(path):
            "the neural line recognizer's character list \(path) is missing or empty (scripts/fetch-engine-model writes it)"
        case let .charactersMismatch(classes, characters):
            "the neural line recognizer has \(classes) classes, but its character list \(characters) characters "
                + "(it needs blank + characters + space): model and list are from different installs"
        case let .loadFailed(reason): reason
        case let .readFailed(reason): "neural line recognition failed: \(reason)"
        case let .whitelistOutsideModel(whitelist): "the neural line recognizer reads none of the whitelist's characters \(whitelist)"
        }
    }
}

/// PP-OCRv6's text-line recognizer, run in ONNX Runtime (``OnnxSession``): the only Swift
/// file that calls CTextDetector's lector_line_recognizer.h (the line image given to the
/// network, the most probable class per step). Reads one straightened detector line at a
/// time into the result tree's words and symbols, with boxes mapped back through the
/// line's crop to the image.
///
/// Not thread-safe: one read at a time (one engine per recognizer thread).
public final class NeuralLineEngine {
    /// The network's input height: a line is cut out at this thickness, so that the
    /// network reads the crop's pixels without resizing them again.
    public static let lineHeight = 48.0

    private let session: OnnxSession
    /// The model file loaded.
    public var modelPath: String { session.modelPath }
    /// Class i (1...count) is `characters[i − 1]`; class 0 is blank, the last a space.
    public let characters: [String]
    /// Blank, the characters and space.
    public var classCount: Int { characters.count + 2 }
    /// Whether this is the segments engine's network (``SegmentsModel``): a line keeps one
    /// decimal point at most (``SegmentsModel/keepingOnePoint(_:)``).
    public var readsDisplays: Bool { characters == SegmentsModel.characters }

    /// Whether this build has the recognizer (ONNX Runtime and OpenCV's imgproc were
    /// found at build time).
    public static var isBuilt: Bool { OnnxSession.isBuilt }

    /// The classes a read may decode: one flag per class. Blank and space are always
    /// allowed (a whitelist limits characters; words still split).
    public struct ClassMask: Equatable, Sendable {
        public let allowed: [UInt8]
        /// The characters allowed, in the model's order.
        public let characters: [String]
    }

    /// Loads the model at `modelPath` and its character list, and runs it once on a blank
    /// line (a network whose classes are not the list's fails here).
    /// - Parameters:
    ///   - charactersPath: the character list (default: beside the model,
    ///     ``NeuralModel/charactersPath(forModel:)``).
    ///   - threads: ONNX Runtime's threads inside an operator (1: one core).
    ///   - optimization: ONNX Runtime's graph optimizations.
    /// - Throws: ``NeuralEngineError/unavailable`` without ONNX Runtime,
    ///   ``NeuralEngineError/charactersUnreadable(_:)``, ``NeuralEngineError/loadFailed(_:)``,
    ///   ``NeuralEngineError/charactersMismatch(classes:characters:)``.
    public init(modelPath: String, charactersPath: String? = nil, threads: Int = 1,
                optimization: OnnxSession.Optimization = .all) throws(NeuralEngineError) {
        characters = try NeuralModel.characters(at: charactersPath ?? NeuralModel.charactersPath(forModel: modelPath))
        session = try OnnxSession.load(modelPath: modelPath, threads: threads, optimization: optimization,
                                       unavailable: NeuralEngineError.unavailable, failed: NeuralEngineError.loadFailed)
        #if canImport(CTextDetector)
        let side = Int(Self.lineHeight)
        let blank = try input(of: GrayImage(width: 320, height: side, pixels: [UInt8](repeating: 255, count: 320 * side)))
        let classes: Int
        do {
            classes = try session.run(blank.values, shape: blank.shape) { _, shape in shape.last ?? 0 }
        } catch {
            throw .loadFailed("\(modelPath): \(error)")
        }
        guard classes == characters.count + 2 else { throw .charactersMismatch(classes: classes, characters: characters.count) }
        #endif
    }

    /// The mask that lets only `allowed` characters (and blank and space) be decoded: a
    /// zone's whitelist.
    /// - Throws: ``NeuralEngineError/whitelistOutsideModel(_:)`` when the model reads none of them.
    public func mask(allowing allowed: Set<Character>) throws(NeuralEngineError) -> ClassMask {
        var flags = [UInt8](repeating: 0, count: classCount)
        flags[0] = 1
        flags[classCount - 1] = 1
        var kept: [String] = []
        for (index, character) in characters.enumerated() where character.count == 1 && allowed.contains(Character(character)) {
            flags[index + 1] = 1
            kept.append(character)
        }
        guard !kept.isEmpty else { throw .whitelistOutsideModel(String(allowed.sorted())) }
        return ClassMask(allowed: flags, characters: kept)
    }

    /// What the network made of one line image: its steps and how they map back.
    public struct Steps: Equatable, Sendable {
        public var steps: [CTCDecoding.Step]
        /// The network's input width (padding included) and the columns of it holding the image.
        public var inputWidth: Int
        public var contentWidth: Int
        /// Network pixels per line-image pixel.
        public var scale: Double
        /// Whether the image was read turned a quarter counter-clockwise (taller than 1.5 × wide).
        public var turned: Bool

        /// The line image's pixels per step, along its reading axis.
        public var pixelsPerStep: Double { Double(inputWidth) / Double(max(steps.count, 1)) / scale }
        /// The steps that show the image (the rest is padding), fractional.
        public var extent: Double { Double(contentWidth) / (Double(inputWidth) / Double(max(steps.count, 1))) }
    }

    /// Runs the network on `image` (8-bit gray, text left to right).
    /// - Parameter mask: only these classes are taken (nil: all).
    /// - Throws: ``NeuralEngineError/readFailed(_:)``.
    ///
    /// The corresponding C functions are `lector_lr_input_geometry`, `lector_lr_input` and `lector_onnx_session_run`.
    public func steps(of image: GrayImage, mask: ClassMask? = nil) throws(NeuralEngineError) -> Steps {
        #if canImport(CTextDetector)
        guard image.width > 0, image.height > 0 else { throw .readFailed("an empty line image") }
        precondition(mask == nil || mask?.allowed.count == classCount, "a mask made by another model")
        let (input, shape, geometry) = try self.input(of: image)
        let classCount = classCount
        let read: (steps: [CTCDecoding.Step], classes: Int)
        do {
            read = try session.run(input, shape: shape) { output, outputShape in
                // 1 × steps × classes.
                guard outputShape.count == 3, outputShape[0] == 1, outputShape[2] == classCount else {
                    return ([], outputShape.last ?? 0)
                }
                let values = UnsafeBufferPointer(start: output.baseAddress, count: outputShape[1] * classCount)
                return (CTCDecoding.steps(output: values, classes: classCount, allowed: mask?.allowed), classCount)
            }
        } catch {
            throw .readFailed(error.description)
        }
        guard read.classes == classCount else { throw .charactersMismatch(classes: read.classes, characters: characters.count) }
        let steps = read.steps
        return Steps(steps: steps, inputWidth: Int(geometry.input_width), contentWidth: Int(geometry.content_width),
                     scale: Double(geometry.scale), turned: geometry.turned != 0)
        #else
        throw .unavailable
        #endif
    }

    #if canImport(CTextDetector)
    /// The network's input for a line image (8-bit gray): its values, shape and geometry.
    ///
    /// The corresponding C functions are `lector_lr_input_geometry` and `lector_lr_input`.
    private func input(of image: GrayImage) throws(NeuralEngineError) -> (values: [Float], shape: [Int], geometry: lector_lr_geometry) {
        var geometry = lector_lr_geometry()
        lector_lr_input_geometry(Int32(image.width), Int32(image.height), &geometry)
        let height = Int(LECTOR_LR_HEIGHT), width = Int(geometry.input_width)
        var error = [CChar](repeating: 0, count: 512)
        var prepared: Int32 = -1
        // Written whole by lector_lr_input, padding included.
        let values = [Float](unsafeUninitializedCapacity: 3 * height * width) { target, initialized in
            prepared = image.pixels.withUnsafeBufferPointer { pixels in
                lector_lr_input(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), 1, &geometry,
                                target.baseAddress, &error, error.count)
            }
            initialized = 3 * height * width
        }
        guard prepared == 0 else { throw .readFailed(Self.message(error)) }
        return (values, [1, 3, height, width], geometry)
    }
    #endif

    /// Reads the line `quad` of `image`: cuts it out straightened at the network's height
    /// (``LineCrop``, no margin: measured on ../shared/testdata/realworld's detector lines,
    /// growing the quad by 5, 10 or 20% of its thickness on every side read documents at a
    /// recall of 0.935, 0.920, 0.838 instead of 0.956), runs the network, decodes it
    /// (``CTCDecoding``), and maps each word's and symbol's span back through the crop
    /// into `image`'s pixels.
    /// - Parameters:
    ///   - mask: only these characters are decoded (a whitelist; nil: all).
    ///   - symbols: whether words carry their characters.
    /// - Returns: the line with its words (none when nothing was read; the box is then
    ///   the quad's), boxes in `image`'s pixels; confidences are the mean probabilities
    ///   of the kept steps.
    public func read(_ quad: LineQuad, of image: GrayImage, mask: ClassMask? = nil, symbols: Bool = false) throws(NeuralEngineError) -> TextLine {
        let crop = LineCrop(quad: quad, scale: Self.lineHeight / max(quad.thickness, 1e-6))
        return try read(crop.image(from: image), crop: crop, imageWidth: image.width, imageHeight: image.height,
                        mask: mask, symbols: symbols)
    }

    /// Reads a line already cut out: `pixels` is `crop`'s image (any scale and padding;
    /// the network resizes it to its height), boxes land in the `imageWidth` ×
    /// `imageHeight` image the crop was cut from.
    public func read(_ pixels: GrayImage, crop: LineCrop, imageWidth: Int, imageHeight: Int, mask: ClassMask? = nil,
                     symbols: Bool = false) throws(NeuralEngineError) -> TextLine {
        let output = try steps(of: pixels, mask: mask)
        var decoded = CTCDecoding.decode(output.steps, characters: characters, extent: output.extent)
        if readsDisplays { decoded = SegmentsModel.keepingOnePoint(decoded) }
        let pad = Double(crop.padding)
        // A span of steps → the crop's rectangle it stands for: columns along the reading
        // axis (rows when the image was read turned), the quad's thickness across.
        func box(_ span: ClosedRange<Double>) -> PixelBox {
            let low = span.lowerBound * output.pixelsPerStep, high = span.upperBound * output.pixelsPerStep
            let bounds = output.turned
                ? PixelBoxBounds(minX: pad, minY: low, maxX: Double(crop.width) - pad, maxY: high)
                : PixelBoxBounds(minX: low, minY: pad, maxX: high, maxY: Double(crop.height) - pad)
            return crop.imageBox(ofCrop: bounds, imageWidth: imageWidth, imageHeight: imageHeight)
        }
        let words = decoded.words.map { word in
            var read = TextWord(text: word.text, box: box(word.span), confidence: word.confidence,
                                symbols: symbols ? word.symbols.map { TextSymbol(text: $0.text, box: box($0.span), confidence: $0.probability) } : [])
            read.alternatives = word.alternatives
            return read
        }
        let lineBox = words.dropFirst().reduce(words.first?.box ?? box(0...output.extent)) { $0.union($1.box) }
        return TextLine(box: lineBox, confidence: words.isEmpty ? 0 : decoded.confidence, words: words, engine: "neural")
    }

    private static func message(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
