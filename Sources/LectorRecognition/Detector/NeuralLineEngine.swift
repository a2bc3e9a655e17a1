#if canImport(CTextDetector)
import CTextDetector
#endif
import LectorImaging
import LectorProtocol

/// Why the neural line recognizer is not there or failed.
public enum NeuralEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This lectord was built without OpenCV's DNN module.
    case unavailable
    /// No model file where lectord looks (the folders searched).
    case modelNotFound(searched: [String])
    /// The model file given is not a readable file.
    case modelUnreadable(String)
    /// The character list beside the model is missing, unreadable or empty.
    case charactersUnreadable(String)
    /// The network's classes are not its character list's (blank + characters + space).
    case charactersMismatch(classes: Int, characters: Int)
    /// OpenCV could not load or run the model: its reason.
    case loadFailed(String)
    /// A line could not be read: OpenCV's reason.
    case readFailed(String)
    /// None of a whitelist's characters is one the model can read.
    case whitelistOutsideModel(String)

    public var description: String {
        switch self {
        case .unavailable:
            "this lectord was built without the neural line recognizer: it needs OpenCV's DNN module when it is built "
                + "(libopencv-dnn-dev and libopencv-imgproc-dev, which scripts/setup installs)"
        case let .modelNotFound(searched):
            "no neural line recognizer model in \(searched.joined(separator: ", ")); scripts/fetch-engine-model installs it"
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

/// PP-OCRv6's text-line recognizer, run by OpenCV's DNN module: the only Swift file that
/// calls it (through CTextDetector's lector_line_recognizer.h). Reads one straightened
/// detector line at a time into the result tree's words and symbols, with boxes mapped
/// back through the line's crop to the image. Owner of the C handle, freed in deinit.
///
/// Not thread-safe: one read at a time (one engine per recognizer thread).
public final class NeuralLineEngine {
    /// The network's input height: a line is cut out at this thickness, so that the
    /// network reads the crop's pixels without resizing them again.
    public static let lineHeight = 48.0

    #if canImport(CTextDetector)
    private let handle: OpaquePointer
    #endif
    /// The model file loaded.
    public let modelPath: String
    /// Class i (1...count) is `characters[i − 1]`; class 0 is blank, the last a space.
    public let characters: [String]
    /// Blank, the characters and space.
    public var classCount: Int { characters.count + 2 }

    /// Whether this build has the recognizer (OpenCV's DNN module was found at build time).
    public static var isBuilt: Bool {
        #if canImport(CTextDetector)
        true
        #else
        false
        #endif
    }

    /// The classes a read may decode: one flag per class. Blank and space are always
    /// allowed (a whitelist limits characters; words still split).
    public struct ClassMask: Equatable, Sendable {
        public let allowed: [UInt8]
        /// The characters allowed, in the model's order.
        public let characters: [String]
    }

    /// Loads the model at `modelPath` and its character list.
    /// - Parameters:
    ///   - charactersPath: the character list (default: beside the model,
    ///     ``NeuralModel/charactersPath(forModel:)``).
    ///   - threads: OpenCV's worker threads (process-wide; 0: OpenCV's choice).
    /// - Throws: ``NeuralEngineError/unavailable`` without OpenCV,
    ///   ``NeuralEngineError/charactersUnreadable(_:)``, ``NeuralEngineError/loadFailed(_:)``,
    ///   ``NeuralEngineError/charactersMismatch(classes:characters:)``.
    ///
    /// The corresponding C function is `lector_lr_create` (which runs the network once).
    public init(modelPath: String, charactersPath: String? = nil, threads: Int = 1) throws(NeuralEngineError) {
        self.modelPath = modelPath
        characters = try NeuralModel.characters(at: charactersPath ?? NeuralModel.charactersPath(forModel: modelPath))
        #if canImport(CTextDetector)
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = lector_lr_create(modelPath, Int32(threads), &error, error.count) else {
            throw .loadFailed(Self.message(error))
        }
        let classes = Int(lector_lr_classes(handle))
        guard classes == characters.count + 2 else {
            lector_lr_destroy(handle)
            throw .charactersMismatch(classes: classes, characters: characters.count)
        }
        self.handle = handle
        #else
        throw .unavailable
        #endif
    }

    deinit {
        #if canImport(CTextDetector)
        lector_lr_destroy(handle)
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
    /// The corresponding C function is `lector_lr_read`.
    public func steps(of image: GrayImage, mask: ClassMask? = nil) throws(NeuralEngineError) -> Steps {
        #if canImport(CTextDetector)
        guard image.width > 0, image.height > 0 else { throw .readFailed("an empty line image") }
        precondition(mask == nil || mask?.allowed.count == classCount, "a mask made by another model")
        var error = [CChar](repeating: 0, count: 512)
        var geometry = lector_lr_geometry()
        var output: UnsafePointer<Float>?
        let count = image.pixels.withUnsafeBufferPointer { pixels in
            lector_lr_read(handle, pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), 1,
                           &output, &geometry, &error, error.count)
        }
        guard count >= 0, let output else { throw .readFailed(Self.message(error)) }
        let steps = CTCDecoding.steps(output: UnsafeBufferPointer(start: output, count: Int(count) * classCount), classes: classCount,
                                      allowed: mask?.allowed)
        return Steps(steps: steps, inputWidth: Int(geometry.input_width), contentWidth: Int(geometry.content_width),
                     scale: Double(geometry.scale), turned: geometry.turned != 0)
        #else
        throw .unavailable
        #endif
    }

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
        let decoded = CTCDecoding.decode(output.steps, characters: characters, extent: output.extent)
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
