import LectorDetector
import LectorEngine
import LectorImaging
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
    /// Tesseract language(s), e.g. `eng` or `eng+deu`; `auto`: per scene, the installed
    /// traineddata that reads the script Tesseract's OSD finds (``ScriptLanguages``).
    public var language = "eng"

    /// The language the whole frame is read with when no script says otherwise, and the
    /// default of zones: `language`, or Latin's for `auto`.
    public var baseLanguage: String { language == ScriptLanguages.automatic ? ScriptLanguages.latin : language }
    /// Tesseract page segmentation mode; 3 (automatic) by default.
    public var pageSegmentation = 3
    public var downscale = Downscale.auto
    /// Only this part of the upright image is read.
    public var regionOfInterest: PixelBox?
    /// `--deadline-ms`: milliseconds a frame's read may take. When it runs out, the
    /// detector layout publishes what it read and goes on with the next frames;
    /// Tesseract's layout abandons the frame. nil: the default, ``liveDeadlineMilliseconds``
    /// for a camera and none for a file read offline (``readsWhole``).
    public var deadlineMilliseconds: Int?
    /// `codes`: the QR code and barcode formats looked for in each frame read (before
    /// its text); empty (the default): none, and no cost. Zones may say otherwise.
    public var codes: Set<CodeFormat> = []
    /// `codes_repeat_after`: seconds a code must be out of view before it is announced again.
    public var codesRepeatAfter = 30.0
    /// The source is a file read offline (a replay without `--fps`, paced by its
    /// recognizer): without a deadline given, it is read whole, however long that takes.
    public var readsWhole = false
    /// A camera's deadline when none is given.
    public static let liveDeadlineMilliseconds = 3000
    /// What stands for no deadline (a day: Tesseract takes milliseconds as an Int32).
    static let noDeadlineMilliseconds = 86_400_000

    /// The deadline a read has: as given, else the source's default.
    public var deadline: Int { deadlineMilliseconds ?? (readsWhole ? Self.noDeadlineMilliseconds : Self.liveDeadlineMilliseconds) }

    /// What the deadline is, in words (`--check-config`, logs).
    public var deadlineDescription: String {
        deadline == Self.noDeadlineMilliseconds ? "none (a file read whole)" : "\(deadline) ms"
    }
    /// Pixels per inch Tesseract assumes (set so that it does not estimate per frame).
    public var resolution = 300
    /// Report characters too.
    public var symbols = false
    /// Estimate the text lines' residual angle (``Deskew``) and level them before
    /// reading (Tesseract's whole-frame layout; zones are read as they are, the
    /// detector straightens each line itself). Off by default: in one run each of
    /// tests/live/run (2026-12-01) live text's dim scenes settled at a mean recall of
    /// 0.667 with it and 1.000 without (README, Deskew).
    public var deskew = false
    /// Where the traineddata files are (nil: Tesseract's default).
    public var dataPath: String?
    /// Named rectangles read with their own profiles (`[zone CAMERA/ZONE]`); when there
    /// are any, only they are read (not the whole frame, not `regionOfInterest`).
    public var zones: [ZoneSpec] = []
    /// How the whole frame is laid out into lines (zones keep their own profiles).
    public var layout = Layout.auto
    /// The text-line detector's model file; nil: searched where ``DetectorModel`` says.
    public var detectorModel: String?
    /// `--engine`: which engine reads the detector's lines (zones: their own `engine`,
    /// else this; `auto` zones read with Tesseract).
    public var engine = LineEngine.auto
    /// `--engine-model`: the neural line recognizer's model; nil: the installed one that
    /// reads `language` (``NeuralModel/variant(forLanguage:)``).
    public var engineModel: String?

    public init() {}
}

/// Reads text from upright gray images: one synchronous Tesseract instance plus the
/// policy around it (downscaling, region of interest, mapping boxes back), or, with the
/// detector layout, the text-line detector and a single-line Tesseract
/// (``DetectorLayout``).
///
/// One per camera; not thread-safe except ``cancel()``.
public final class TextRecognizer {
    public let options: RecognizerOptions
    /// The whole-frame engine of Tesseract's layout; nil when the camera reads zones or
    /// with the detector layout.
    private let engine: IsolatedRecognizer?
    /// The detector layout, when it reads the whole frame.
    private let detectorLayout: DetectorLayout?
    /// The layout the whole frame is read with (zones: `tesseract`, they have their own).
    public let layout: ResolvedLayout
    /// With `layout auto`: why the detector is not used (nil when it is, or not asked for).
    public let layoutNote: String?
    /// With zones: one engine per zone language (at most ``ZoneSpec/maximumLanguages``),
    /// made once; each zone's psm and whitelist are set for its read.
    private let zoneEngines: [String: IsolatedRecognizer]
    /// With zones: the zone the next frame starts with (the first one a deadline left
    /// unread), so that every zone is read in turn when a frame cannot read them all.
    private var nextZone = 0
    /// Zones read by the neural line recognizer, by name: the recognizer (one per model)
    /// and the whitelist's mask.
    private let zoneNeural: [String: (engine: NeuralLineEngine, mask: NeuralLineEngine.ClassMask?)]
    /// Why lines are read without the neural line recognizer under `--engine auto` (nil:
    /// with it, or not asked for); said once in the log.
    public let engineNote: String?
    /// Whether the detector's lines are read with the neural line recognizer too.
    public var readsNeural: Bool { detectorLayout?.readsNeural ?? false }
    private var halvedImage = GrayImage(width: 0, height: 0)
    private var croppedImage = GrayImage(width: 0, height: 0)
    /// In auto mode: whether the next frame is halved, from the text height seen last.
    private var halveNext = false
    /// The angle the last frame was levelled by (clockwise degrees), nil when it was read as it was.
    public private(set) var lastSkewDegrees: Double?
    /// How far the last read got (the detector layout reads a scene over several frames
    /// when a frame's deadline is too short for all its lines).
    public private(set) var lastProgress = ReadProgress()
    /// The skew estimated last and the scene it was estimated on (reused while the scene stays).
    private var skewEstimate: (scene: SceneHint, angle: Double?)?
    /// With `lang auto`: the script check and the other languages' recognizers.
    private let autoLanguage: AutoLanguage?
    /// With `lang auto`: the other language's recognizer that read the last frame (nil: this one).
    private var lastReader: TextRecognizer?

    /// Median line height, in full-resolution pixels, from which auto mode halves the
    /// image (lines then stay ≥ 20 px tall, the height measured to lose nothing).
    public static let autoHalvingLineHeight = 40

    /// - Parameter detectors: text-line detectors to share (another recognizer's of the
    ///   same camera), used when the detector layout reads with their model; nil: load them.
    public init(options: RecognizerOptions, sharing detectors: DetectorPool? = nil) throws(RecognitionError) {
        self.options = options
        if options.zones.isEmpty {
            var (layout, note) = try ResolvedLayout.resolve(options)
            var detectorLayout: DetectorLayout?
            if case let .detector(modelPath) = layout {
                var loaded: DetectorPool?
                do {
                    if let detectors, detectors.modelPath == modelPath {
                        loaded = detectors
                    } else {
                        loaded = try DetectorPool(modelPath: modelPath, threads: DetectorLayout.networkThreads)
                    }
                } catch {
                    if options.layout == .detector { throw .detectorUnavailable(error.description) }
                    (layout, note) = (.tesseract, error.description)
                }
                if let loaded {
                    let neural = try ResolvedEngine.load(options.engine, language: options.baseLanguage, model: options.engineModel)
                    engineNote = neural.note
                    detectorLayout = try DetectorLayout(detectors: loaded, language: options.baseLanguage, dataPath: options.dataPath,
                                                        neural: neural.engine, engine: options.engine)
                    // A camera's first scene does not wait for the network to be timed.
                    if !options.readsWhole { try detectorLayout?.timeProbe(deadline: options.deadline) }
                } else {
                    engineNote = nil
                }
            } else {
                engineNote = options.engine == .tesseract ? nil : "Tesseract's page layout reads its own lines (the neural engine reads the detector's)"
            }
            self.layout = layout
            layoutNote = note
            self.detectorLayout = detectorLayout
            if detectorLayout == nil {
                engine = try IsolatedRecognizer(language: options.baseLanguage, dataPath: options.dataPath,
                                                pageSegmentation: options.pageSegmentation)
            } else {
                engine = nil
            }
            zoneEngines = [:]
            autoLanguage = options.language == ScriptLanguages.automatic
                ? try AutoLanguage(options: options, detectors: detectorLayout?.detectors) : nil
            zoneNeural = [:]
        } else {
            autoLanguage = nil
            layout = .tesseract
            layoutNote = nil
            engineNote = nil
            detectorLayout = nil
            engine = nil
            zoneNeural = try Self.neuralZones(options)
            var engines: [String: IsolatedRecognizer] = [:]
            for zone in options.zones where zoneNeural[zone.name] == nil {
                let language = zone.profile.engineLanguage(defaultLanguage: options.baseLanguage)
                if engines[language] == nil {
                    engines[language] = try IsolatedRecognizer(language: language, dataPath: options.dataPath,
                                                               pageSegmentation: zone.profile.pageSegmentation)
                }
            }
            zoneEngines = engines
        }
    }

    /// The zones of `options` a neural line recognizer reads (`engine` neural or
    /// segments, the zone's or the camera's), each with its whitelist's mask; one network per model.
    /// - Throws: ``RecognitionError/engineUnavailable(_:)`` when one cannot be read so.
    private static func neuralZones(_ options: RecognizerOptions) throws(RecognitionError)
        -> [String: (engine: NeuralLineEngine, mask: NeuralLineEngine.ClassMask?)] {
        var loaded: [String: NeuralLineEngine] = [:]
        var zones: [String: (engine: NeuralLineEngine, mask: NeuralLineEngine.ClassMask?)] = [:]
        for zone in options.zones {
            let choice = zone.profile.engine ?? options.engine
            guard choice == .neural || choice == .segments else { continue }
            let language = zone.profile.language ?? options.baseLanguage
            guard let path = try ResolvedEngine.resolve(choice, language: language, model: options.engineModel).neuralModel else { continue }
            do {
                let engine = try loaded[path] ?? NeuralLineEngine(modelPath: path, threads: DetectorLayout.networkThreads)
                loaded[path] = engine
                zones[zone.name] = (engine, try zone.profile.whitelist.map { try engine.mask(allowing: Set($0)) })
            } catch {
                throw .engineUnavailable("zone \(zone.name): \(error)")
            }
        }
        return zones
    }

    /// Tesseract engines this recognizer holds (one per zone language, or one).
    public var engineCount: Int { options.zones.isEmpty ? 1 : zoneEngines.count }

    /// The text-line detectors the detector layout reads with (nil: Tesseract's layout).
    public var detectors: DetectorPool? { detectorLayout?.detectors }

    private var allEngines: [IsolatedRecognizer] { (engine.map { [$0] } ?? []) + Array(zoneEngines.values) }

    /// Stops a recognition in progress (or the next one); safe from any thread.
    public func cancel() {
        for engine in allEngines { engine.cancel() }
        detectorLayout?.cancel()
        autoLanguage?.cancel()
    }

    /// Whether a recognition was abandoned somewhere in the process and is still inside
    /// Tesseract: exit then without running Tesseract's static destructors.
    public static var anyAbandonedRecognition: Bool { IsolatedRecognizer.anyAbandonedRunning }

    /// Lets recognition run again after ``cancel()``.
    public func resume() {
        for engine in allEngines { engine.resume() }
        detectorLayout?.resume()
        autoLanguage?.resume()
    }

    /// With `lang auto`: the traineddata installed (nil without `auto`).
    public var installedLanguages: [String]? { autoLanguage.map { $0.installed.sorted() } }

    /// With `lang auto`: the languages a scene needed that are not installed, each
    /// returned once (to be logged with ``ScriptLanguages/package(of:)``).
    public func takeMissingLanguages() -> [String] { autoLanguage?.takeMissing() ?? [] }

    /// With `lang auto`: the script check the last read made (a new scene's), once: what
    /// OSD named, its confidence, the languages read (the last one's read is not always
    /// the one kept) and the language kept; nil when it made none.
    public func takeLanguageCheck() -> (script: String?, confidence: Double, tried: [String], language: String)? {
        guard let autoLanguage, let check = autoLanguage.takeCheck() else { return nil }
        return (check.script, check.confidence, check.tried, autoLanguage.language)
    }

    /// Where the last recognition spent its time inside Tesseract's engine (with the
    /// detector layout: its last line).
    public var lastTimings: RecognitionTimings {
        if let lastReader { return lastReader.lastTimings }
        return detectorLayout?.lastTimings ?? (engine ?? zoneEngines.values.first)?.lastTimings ?? RecognitionTimings()
    }

    /// With the detector layout: what the last read did (detected or re-read, lines, times).
    public var lastDetectorRead: DetectorRead? { lastReader?.lastDetectorRead ?? detectorLayout?.lastRead }

    /// DEVICES' zones for an upright image of this size, each with what does not fit.
    public func zoneInfos(width: Int, height: Int) -> [ZoneInfo] {
        options.zones.map { $0.info(defaultLanguage: options.baseLanguage, problem: $0.problem(width: width, height: height)) }
    }

    /// Whether the next call will halve the image.
    public var willHalve: Bool {
        if detectorLayout != nil { return false }  // the detector shrinks its own input; lines are cut at full size
        switch options.downscale {
        case .none: return false
        case .half: return true
        case .auto: return halveNext
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
    /// - Parameter scene: the still scene `image` shows (live text's stack): the detector
    ///   layout reads the lines it knows instead of detecting them again, deskew reuses
    ///   the angle it estimated. nil: no such knowledge (every frame is detected and
    ///   estimated).
    public func recognize(_ image: GrayImage, scene: SceneHint? = nil) throws(RecognitionError) -> RecognizedText {
        guard options.zones.isEmpty else { return try recognizeZones(image) }
        lastReader = nil
        if let autoLanguage {
            let read = try autoLanguage.recognize(image, scene: scene) { () throws(RecognitionError) in
                let text = try recognizeOwn(image, scene: scene)
                return (text, detectorLayout?.lastRead.lines)
            }
            if let reader = read.reader {
                (lastReader, lastProgress, lastSkewDegrees) = (reader, reader.lastProgress, reader.lastSkewDegrees)
            }
            return read.text
        }
        return try recognizeOwn(image, scene: scene)
    }

    /// Reads `image` in this recognizer's own language (Latin's with `lang auto`), as
    /// ``recognize(_:scene:)`` says.
    private func recognizeOwn(_ image: GrayImage, scene: SceneHint?) throws(RecognitionError) -> RecognizedText {
        // A region of interest is cut out here rather than with TessBaseAPISetRectangle,
        // which read garbage on camera-like frames when measured (Tesseract 5.3.0).
        var region: PixelBox?
        if let roi = options.regionOfInterest?.clipped(width: image.width, height: image.height), roi.area > 0 {
            region = roi
            croppedImage = image.cropped(to: roi)
        }
        let input = region == nil ? image : croppedImage
        lastProgress = ReadProgress()
        if let detectorLayout {
            // Each detected line is straightened on its own: no deskew here.
            let text = try detectorLayout.recognize(input, resolution: options.resolution, deadline: options.deadline,
                                                    symbols: options.symbols, scene: scene)
                .mapped(scale: 1, dx: region?.x ?? 0, dy: region?.y ?? 0)
            let read = detectorLayout.lastRead
            lastProgress = ReadProgress(unreadLines: read.unread, linesToReadAgain: read.awaitingSecondRead,
                                        directionsUndecided: read.directionsUndecided, outOfTime: read.outOfTime,
                                        carriedLines: Set(read.carried.map { $0.offset(dx: region?.x ?? 0, dy: region?.y ?? 0) }),
                                        repeatedLines: Set(read.repeated.map { $0.offset(dx: region?.x ?? 0, dy: region?.y ?? 0) }))
            return text
        }
        // Tesseract's layout; `engine` is set whenever there are no zones and no detector.
        guard let engine else { return try recognizeZones(image) }
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
                                          deadline: options.deadline, symbols: options.symbols)
        if let rotation { result = result.mapped { rotation.sourceBox(ofTurned: $0) } }
        result = result.mapped(scale: scale, dx: region?.x ?? 0, dy: region?.y ?? 0)
        if options.downscale == .auto { halveNext = Self.medianLineHeight(result).map { $0 >= Self.autoHalvingLineHeight } ?? false }
        return result
    }

    /// The lines' angle in `image`, reused from the last estimate while `scene` shows the
    /// same scene the same way up and its stack did not fill since.
    private func skewAngle(of image: GrayImage, scene: SceneHint?) -> Double? {
        if let scene, let last = skewEstimate, last.scene.generation == scene.generation,
           last.scene.orientation == scene.orientation, last.scene.full || !scene.full {
            return last.angle
        }
        let angle = Deskew.estimateAngle(image)
        skewEstimate = scene.map { ($0, angle) }
        return angle
    }

    /// Reads each zone that lies (at least partly) in `image` with its language's engine
    /// and its own psm and whitelist, one after the other, within the frame's deadline:
    /// zones it leaves unread are counted in ``lastProgress`` (and read first by the next
    /// frame). The blocks carry the zone's name, in the zones' order; boxes are in
    /// `image`'s pixels.
    private func recognizeZones(_ image: GrayImage) throws(RecognitionError) -> RecognizedText {
        let started = MonotonicInstant.now()
        let zones = options.zones
        var read: [Int: [TextBlock]] = [:]
        var unread: [Int] = []
        let first = nextZone < zones.count ? nextZone : 0
        for step in 0..<zones.count {
            let index = (first + step) % zones.count
            let left = options.deadline - Int(MonotonicInstant.now().milliseconds(since: started))
            guard unread.isEmpty, left >= Self.minimumZoneMilliseconds else {
                unread.append(index)
                continue
            }
            do {
                if let blocks = try recognize(zone: zones[index], in: image, deadline: left) { read[index] = blocks }
            } catch .deadlineExceeded, .busy {
                unread.append(index)
            }
        }
        nextZone = unread.first ?? 0
        lastProgress = ReadProgress(unreadLines: unread.count, outOfTime: !unread.isEmpty,
                                    unreadZones: unread.sorted().map { zones[$0].name })
        return RecognizedText(blocks: read.keys.sorted().flatMap { read[$0] ?? [] })
    }

    /// A zone's read gets at least this many milliseconds of the frame's deadline; with
    /// less left, it waits for the next frame.
    static let minimumZoneMilliseconds = 5

    /// Reads one zone within `deadline` ms: its blocks, named after it; nil when it lies
    /// outside `image`.
    private func recognize(zone: ZoneSpec, in image: GrayImage, deadline: Int) throws(RecognitionError) -> [TextBlock]? {
        let rect = zone.rect.clipped(width: image.width, height: image.height)
        guard rect.area > 0 else { return nil }
        var crop = image.cropped(to: rect)
        if zone.profile.invert { crop = crop.inverted() }
        let text: RecognizedText
        if let neural = zoneNeural[zone.name] {
            text = try Self.readLine(crop, with: neural.engine, mask: neural.mask, symbols: options.symbols)
                .mapped(scale: 1, dx: rect.x, dy: rect.y)
        } else {
            guard let engine = zoneEngines[zone.profile.engineLanguage(defaultLanguage: options.baseLanguage)] else { return nil }
            let scale = zone.profile.scale
            if scale > 1 { crop = crop.upscaled(by: scale) }
            let read = try engine.recognize(crop, resolution: options.resolution * scale, deadline: deadline, symbols: options.symbols,
                                            settings: zone.profile.readSettings)
            let mapped = read.mapped { box in
                let x = box.x / scale, y = box.y / scale
                return PixelBox(x: rect.x + x, y: rect.y + y,
                                width: max(1, (box.maxX + scale - 1) / scale - x), height: max(1, (box.maxY + scale - 1) / scale - y))
            }
            text = Self.dropping(mapped, shorterThan: zone.profile.minimumHeight)
        }
        return text.blocks.map { block in
            var block = block
            block.zone = zone.name
            return block
        }
    }

    /// `image` read whole as one line by the neural line recognizer (a zone), only the
    /// characters of `mask` decoded.
    private static func readLine(_ image: GrayImage, with engine: NeuralLineEngine, mask: NeuralLineEngine.ClassMask?,
                                 symbols: Bool) throws(RecognitionError) -> RecognizedText {
        let width = Double(image.width), height = Double(image.height)
        let quad = LineQuad(topLeft: ImagePoint(x: 0, y: 0), topRight: ImagePoint(x: width, y: 0),
                            bottomRight: ImagePoint(x: width, y: height), bottomLeft: ImagePoint(x: 0, y: height))
        let line: TextLine
        do { line = try engine.read(quad, of: image, mask: mask, symbols: symbols) } catch { throw .detectorFailed(error.description) }
        guard !line.words.isEmpty else { return RecognizedText() }
        return RecognizedText(blocks: [TextBlock(box: line.box, confidence: line.confidence, lines: [line])])
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
