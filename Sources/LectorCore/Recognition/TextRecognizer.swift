import LectorProtocol
import LectorSystem

/// How much to shrink the upright image before recognition.
public enum Downscale: Equatable, Sendable, CustomStringConvertible {
    /// Full resolution.
    case none
    /// Half width and height (measured 0.5–0.7× the recognition time, no accuracy loss
    /// on text with a cap height of 20 px or more).
    case half
    /// Halve only while the text seen in the last frame is tall enough to survive it,
    /// so small text is always read at full resolution.
    case auto

    public init?(_ text: String) {
        switch text {
        case "1": self = .none
        case "2": self = .half
        case "auto": self = .auto
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .none: "1"
        case .half: "2"
        case .auto: "auto"
        }
    }
}

/// Settings of one camera's recognizer.
public struct RecognizerOptions: Equatable, Sendable {
    /// Tesseract language(s), e.g. `eng` or `eng+deu`.
    public var language = "eng"
    /// Tesseract page segmentation mode; 3 (automatic) by default.
    public var pageSegmentation = 3
    public var downscale = Downscale.auto
    /// Only this part of the upright image is read.
    public var regionOfInterest: PixelBox?
    /// A frame still being recognized after this many milliseconds is abandoned.
    public var deadlineMilliseconds = 3000
    /// Pixels per inch Tesseract assumes (set so that it does not estimate per frame).
    public var resolution = 300
    /// Report characters too.
    public var symbols = false
    /// Estimate the text lines' residual angle (``Deskew``) and level them before
    /// reading (the whole-frame layout; zones are read as they are).
    public var deskew = true
    /// Where the traineddata files are (nil: Tesseract's default).
    public var dataPath: String?
    /// Named rectangles read with their own profiles (`[zone CAMERA/ZONE]`); when there
    /// are any, only they are read (not the whole frame, not `regionOfInterest`).
    public var zones: [ZoneSpec] = []

    public init() {}
}

/// Reads text from upright gray images: one synchronous Tesseract instance plus the
/// policy around it (downscaling, region of interest, mapping boxes back).
///
/// One per camera; not thread-safe except ``cancel()``.
public final class TextRecognizer {
    public let options: RecognizerOptions
    /// The whole-frame engine; nil when the camera reads zones.
    private let engine: IsolatedRecognizer?
    /// With zones: one engine per distinct profile (language, psm, whitelist), made once.
    private let zoneEngines: [ZoneProfile.EngineKey: IsolatedRecognizer]
    private var halvedImage = GrayImage(width: 0, height: 0)
    private var croppedImage = GrayImage(width: 0, height: 0)
    /// In auto mode: whether the next frame is halved, from the text height seen last.
    private var halveNext = false
    /// The angle the last frame was levelled by (clockwise degrees), nil when it was read as it was.
    public private(set) var lastSkewDegrees: Double?
    /// The skew estimated last and the scene it was estimated on (reused while the scene stays).
    private var skewEstimate: (scene: Scene, angle: Double?)?

    /// Which still scene a frame shows, as live text's stack tells it: frames of one scene
    /// (the same stack generation, turned upright the same way) share their lines' angle,
    /// so it is estimated once, and again when the scene's stack has filled (its clearest
    /// image).
    public struct Scene: Equatable, Sendable {
        public var generation: Int
        public var orientation: ImageOrientation
        public var full: Bool

        public init(generation: Int, orientation: ImageOrientation, full: Bool) {
            self.generation = generation
            self.orientation = orientation
            self.full = full
        }
    }

    /// Median line height, in full-resolution pixels, from which auto mode halves the
    /// image (lines then stay ≥ 20 px tall, the height measured to lose nothing).
    public static let autoHalvingLineHeight = 40

    public init(options: RecognizerOptions) throws(RecognitionError) {
        self.options = options
        if options.zones.isEmpty {
            engine = try IsolatedRecognizer(language: options.language, dataPath: options.dataPath,
                                            pageSegmentation: options.pageSegmentation)
            zoneEngines = [:]
        } else {
            engine = nil
            var engines: [ZoneProfile.EngineKey: IsolatedRecognizer] = [:]
            for zone in options.zones {
                let key = zone.profile.engineKey(defaultLanguage: options.language)
                if engines[key] == nil {
                    engines[key] = try IsolatedRecognizer(language: key.language, dataPath: options.dataPath,
                                                          pageSegmentation: key.pageSegmentation, whitelist: key.whitelist)
                }
            }
            zoneEngines = engines
        }
    }

    /// Tesseract engines this recognizer holds (one per zone profile, or one).
    public var engineCount: Int { engine == nil ? zoneEngines.count : 1 }

    private var allEngines: [IsolatedRecognizer] { (engine.map { [$0] } ?? []) + Array(zoneEngines.values) }

    /// Stops a recognition in progress (or the next one); safe from any thread.
    public func cancel() { for engine in allEngines { engine.cancel() } }

    /// Whether a recognition was abandoned somewhere in the process and is still inside
    /// Tesseract: exit then without running Tesseract's static destructors.
    public static var anyAbandonedRecognition: Bool { IsolatedRecognizer.anyAbandonedRunning }

    /// Lets recognition run again after ``cancel()``.
    public func resume() { for engine in allEngines { engine.resume() } }

    /// Where the last recognition spent its time inside Tesseract's engine.
    public var lastTimings: RecognitionTimings { (engine ?? zoneEngines.values.first)?.lastTimings ?? RecognitionTimings() }

    /// DEVICES' zones for an upright image of this size, each with what does not fit.
    public func zoneInfos(width: Int, height: Int) -> [ZoneInfo] {
        options.zones.map { $0.info(defaultLanguage: options.language, problem: $0.problem(width: width, height: height)) }
    }

    /// Whether the next call will halve the image.
    public var willHalve: Bool {
        switch options.downscale {
        case .none: false
        case .half: true
        case .auto: halveNext
        }
    }

    /// What is wrong with the region of interest for an upright image of this size, or
    /// nil when it lies inside (or there is none).
    public func regionProblem(width: Int, height: Int) -> String? {
        guard options.zones.isEmpty, let roi = options.regionOfInterest else { return nil }
        return roi.fitProblem(label: "roi", width: width, height: height, outside: "the whole frame is read")
    }

    /// Recognizes text in `image`; boxes come back in `image`'s pixels whatever the
    /// downscaling and deskew.
    /// - Parameter scene: the still scene `image` shows (live text's stack); the skew
    ///   estimated for it is reused. nil: estimated for this image.
    public func recognize(_ image: GrayImage, scene: Scene? = nil) throws(RecognitionError) -> RecognizedText {
        guard let engine else { return try recognizeZones(image) }
        // A region of interest is cut out here rather than with TessBaseAPISetRectangle,
        // which read garbage on camera-like frames when measured (Tesseract 5.3.0).
        var region: PixelBox?
        if let roi = options.regionOfInterest?.clipped(width: image.width, height: image.height), roi.area > 0 {
            region = roi
            croppedImage = image.cropped(to: roi)
        }
        let input = region == nil ? image : croppedImage
        let halve = willHalve && input.width >= 64 && input.height >= 64
        if halve { input.halved(into: &halvedImage) }
        let scale = halve ? 2 : 1
        let read = halve ? halvedImage : input
        // Deskew: the lines' residual angle, levelled when it is large enough to matter;
        // boxes found in the levelled image are turned back.
        let rotation = options.deskew ? Deskew.rotation(for: skewAngle(of: read, scene: scene), width: read.width, height: read.height) : nil
        lastSkewDegrees = rotation?.degrees
        var result = try engine.recognize(rotation.map { $0.apply(read, background: Deskew.background(of: read)) } ?? read,
                                          resolution: options.resolution / scale,
                                          deadline: options.deadlineMilliseconds, symbols: options.symbols)
        if let rotation { result = result.mapped { rotation.sourceBox(ofTurned: $0) } }
        result = result.mapped(scale: scale, dx: region?.x ?? 0, dy: region?.y ?? 0)
        if options.downscale == .auto { halveNext = Self.medianLineHeight(result).map { $0 >= Self.autoHalvingLineHeight } ?? false }
        return result
    }

    /// The lines' angle in `image`, reused from the last estimate while `scene` shows the
    /// same scene the same way up and its stack did not fill since.
    private func skewAngle(of image: GrayImage, scene: Scene?) -> Double? {
        if let scene, let last = skewEstimate, last.scene.generation == scene.generation,
           last.scene.orientation == scene.orientation, last.scene.full || !scene.full {
            return last.angle
        }
        let angle = Deskew.estimateAngle(image)
        skewEstimate = scene.map { ($0, angle) }
        return angle
    }

    /// Reads each zone that lies (at least partly) in `image` with its own engine, one
    /// after the other; the blocks carry the zone's name, boxes are in `image`'s pixels.
    private func recognizeZones(_ image: GrayImage) throws(RecognitionError) -> RecognizedText {
        var blocks: [TextBlock] = []
        for zone in options.zones {
            let rect = zone.rect.clipped(width: image.width, height: image.height)
            guard rect.area > 0, let engine = zoneEngines[zone.profile.engineKey(defaultLanguage: options.language)] else { continue }
            var crop = image.cropped(to: rect)
            if zone.profile.invert { crop = crop.inverted() }
            let scale = zone.profile.scale
            if scale > 1 { crop = crop.upscaled(by: scale) }
            let read = try engine.recognize(crop, resolution: options.resolution * scale,
                                            deadline: options.deadlineMilliseconds, symbols: options.symbols)
            let mapped = read.mapped { box in
                let x = box.x / scale, y = box.y / scale
                return PixelBox(x: rect.x + x, y: rect.y + y,
                                width: max(1, (box.maxX + scale - 1) / scale - x), height: max(1, (box.maxY + scale - 1) / scale - y))
            }
            for var block in Self.dropping(mapped, shorterThan: zone.profile.minimumHeight).blocks {
                block.zone = zone.name
                blocks.append(block)
            }
        }
        return RecognizedText(blocks: blocks)
    }

    /// `text` without the words less than `height` pixels tall (and the lines and blocks
    /// left empty by that); boxes of what remains are kept.
    static func dropping(_ text: RecognizedText, shorterThan height: Int) -> RecognizedText {
        guard height > 0 else { return text }
        return RecognizedText(blocks: text.blocks.compactMap { block in
            var block = block
            block.lines = block.lines.compactMap { line in
                var line = line
                line.words = line.words.filter { $0.box.height >= height }
                return line.words.isEmpty ? nil : line
            }
            return block.lines.isEmpty ? nil : block
        })
    }

    private static func medianLineHeight(_ text: RecognizedText) -> Int? {
        let heights = text.blocks.flatMap { $0.lines.map(\.box.height) }.sorted()
        return heights.isEmpty ? nil : heights[heights.count / 2]
    }
}
