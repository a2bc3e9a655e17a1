import Foundation
@testable import LectorDetector
@testable import LectorEngine
@testable import LectorImaging
@testable import LectorProtocol
@testable import LectorRecognition
import LectorTestSupport
import Synchronization
import Testing

/// The detector layout: the crop transform, DB's post-processing on synthetic maps, the
/// block building, and the real detector (PP-OCRv4 on ONNX Runtime) with real Tesseract
/// on the fixtures, when the model is installed (scripts/setup installs it).
@Suite("Text-line detector", .serialized)
struct DetectorTests {
    /// The installed model, or nil (the tests that need it are then skipped).
    static let model: String? = TextLineDetector.isBuilt ? try? DetectorModel.locate(explicit: nil) : nil

    static func close(_ a: ImagePoint, _ b: ImagePoint, within tolerance: Double = 1e-6) -> Bool {
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    @Test("a crop's transform goes there and back", arguments: [0.0, 12.5, 45, 89, 90, 135, -30, 180])
    func cropRoundTrip(angle: Double) {
        let line = DetectedLine(centerX: 200, centerY: 150, width: 180, height: 30, angle: angle, score: 0.9)
        for flipped in [false, true] {
            let quad = line.quad(flipped: flipped)
            #expect(abs(quad.length - 180) < 1e-9 && abs(quad.thickness - 30) < 1e-9, "the reading axis is the long side")
            for scale in [0.5, 1, 2.7] {
                let crop = LineCrop(quad: quad, scale: scale)
                #expect(crop.width == Int((180 * scale).rounded()) && crop.height == Int((30 * scale).rounded()))
                for point in [ImagePoint(x: 0, y: 0), ImagePoint(x: 13.25, y: 4.5), ImagePoint(x: Double(crop.width), y: Double(crop.height))] {
                    let back = crop.cropPoint(ofImage: crop.imagePoint(ofCrop: point))
                    #expect(Self.close(back, point), "angle \(angle) scale \(scale): \(point) came back as \(back)")
                }
                #expect(Self.close(crop.imagePoint(ofCrop: ImagePoint(x: 0, y: 0)), quad.topLeft))
                #expect(Self.close(crop.imagePoint(ofCrop: ImagePoint(x: Double(crop.width), y: 0)), quad.topRight, within: 0.5 / scale + 1e-6))
                // The whole crop's box in the image holds the quad's four corners.
                let box = crop.imageBox(ofCrop: PixelBox(x: 0, y: 0, width: crop.width, height: crop.height), imageWidth: 1000, imageHeight: 1000)
                for corner in [quad.topLeft, quad.topRight, quad.bottomRight, quad.bottomLeft] {
                    #expect(Double(box.x) <= corner.x + 0.5 && corner.x - 0.5 <= Double(box.maxX)
                            && Double(box.y) <= corner.y + 0.5 && corner.y - 0.5 <= Double(box.maxY), "\(corner) outside \(box)")
                }
            }
        }
    }

    @Test("an upright crop at scale 1 on whole pixels is the image's own pixels")
    func uprightCropIsExact() {
        var image = GrayImage(width: 64, height: 40)
        for y in 0..<40 { for x in 0..<64 { image[x, y] = UInt8((x * 7 + y * 13) % 251) } }
        let line = DetectedLine(centerX: 30, centerY: 20, width: 40, height: 10, angle: 0, score: 1)
        let crop = LineCrop(quad: line.quad(), scale: 1)
        #expect(crop.image(from: image) == image.cropped(to: PixelBox(x: 10, y: 15, width: 40, height: 10)))
        // Half a turn: the same pixels, last first.
        let turned = LineCrop(quad: line.quad(flipped: true), scale: 1).image(from: image)
        #expect(turned.pixels == crop.image(from: image).pixels.reversed())
    }

    @Test("reading direction: left to right when shallow, bottom to top when steep, about-square boxes upright")
    func readingDirection() {
        let shallow = DetectedLine(centerX: 100, centerY: 100, width: 20, height: 120, angle: 90, score: 1).quad()
        #expect(shallow.topRight.x > shallow.topLeft.x && abs(shallow.topRight.y - shallow.topLeft.y) < 1e-9, "a 90° box 20×120 is a horizontal line")
        let steep = DetectedLine(centerX: 100, centerY: 100, width: 120, height: 20, angle: 80, score: 1)
        #expect(steep.isSteep)
        #expect(steep.quad().topRight.y < steep.quad().topLeft.y, "steep lines read bottom to top")
        #expect(steep.quad(flipped: true).topRight.y > steep.quad(flipped: true).topLeft.y)
        let square = DetectedLine(centerX: 50, centerY: 50, width: 20, height: 24, angle: 90, score: 1).quad()
        #expect(abs(square.topRight.y - square.topLeft.y) < 1e-9 && square.topRight.x > square.topLeft.x, "a character-sized box stays upright")
    }

    /// A probability map with text regions (0.9) on a background of 0.05.
    static func map(width: Int, height: Int, regions: [PixelBox]) -> [Float] {
        var map = [Float](repeating: 0.05, count: width * height)
        for region in regions {
            for y in region.y..<region.maxY { for x in region.x..<region.maxX { map[y * width + x] = 0.9 } }
        }
        return map
    }

    @Test("DB post-processing finds each region, grown back and scaled to the image", .enabled(if: TextLineDetector.isBuilt))
    func postProcessing() throws {
        let regions = [PixelBox(x: 20, y: 10, width: 100, height: 12), PixelBox(x: 30, y: 60, width: 60, height: 8),
                       PixelBox(x: 150, y: 100, width: 2, height: 2)]  // too small: dropped
        let lines = try TextLineDetector.lines(fromMap: Self.map(width: 200, height: 160, regions: regions), width: 200, height: 160,
                                               imageWidth: 400, imageHeight: 320)
        #expect(lines.count == 2, "\(lines)")
        guard lines.count == 2 else { return }
        for (line, region) in zip(lines, regions) {
            let quad = line.quad()
            // The region, scaled 2×, grown by area × 1.6 / perimeter on each side.
            let w = Double(region.width - 1), h = Double(region.height - 1)
            let grow = w * h * 1.6 / (2 * (w + h))
            #expect(abs(line.centerX - 2 * (Double(region.x) + w / 2)) < 2 && abs(line.centerY - 2 * (Double(region.y) + h / 2)) < 2, "\(line)")
            #expect(abs(quad.length - 2 * (w + 2 * grow)) < 4 && abs(quad.thickness - 2 * (h + 2 * grow)) < 4, "\(quad.length)×\(quad.thickness)")
            #expect(line.score > 0.85 && line.score <= 0.9 + 1e-6)
        }
        #expect(lines[0].centerY < lines[1].centerY, "top to bottom")
        // Below the box threshold: no line.
        var faint = DetectorParameters()
        faint.boxThreshold = 0.95
        #expect(try TextLineDetector.lines(fromMap: Self.map(width: 200, height: 160, regions: regions), width: 200, height: 160,
                                           imageWidth: 200, imageHeight: 160, parameters: faint).isEmpty)
    }

    static func readLine(_ texts: [String], x: Int, y: Int, height: Int = 20) -> LineBlocks.ReadLine {
        var words: [TextWord] = []
        var left = x
        for text in texts {
            words.append(TextWord(text: text, box: PixelBox(x: left, y: y, width: 12 * text.count, height: height), confidence: 0.9))
            left += 12 * text.count + 10
        }
        let right = Double(left - 10)
        let quad = LineQuad(topLeft: ImagePoint(x: Double(x) - 4, y: Double(y) - 4), topRight: ImagePoint(x: right + 4, y: Double(y) - 4),
                            bottomRight: ImagePoint(x: right + 4, y: Double(y + height) + 4),
                            bottomLeft: ImagePoint(x: Double(x) - 4, y: Double(y + height) + 4))
        return LineBlocks.ReadLine(line: TextLine(box: PixelBox(x: x, y: y, width: left - 10 - x, height: height), confidence: 0.9, words: words),
                                   quad: quad)
    }

    @Test("lines close together form a block; segments of one line are joined; a far line is a block of its own")
    func blocks() {
        let lines = [Self.readLine(["far", "away"], x: 40, y: 300),
                     Self.readLine(["first", "line"], x: 40, y: 40),
                     Self.readLine(["second"], x: 40, y: 70), Self.readLine(["line", "end"], x: 160, y: 71)]
        let blocks = LineBlocks.blocks(of: lines)
        #expect(blocks.map(\.text) == ["first line\nsecond line end", "far away"], "\(blocks.map(\.text))")
        #expect(blocks.first?.box == PixelBox(x: 40, y: 40, width: 214, height: 51))
        #expect(blocks.allSatisfy { block in block.lines.allSatisfy { line in line.words.allSatisfy { line.box.union($0.box) == line.box } } })
    }

    @Test("a line's words keep their engine's order: a word boxed across the whole line stays first")
    func wordOrder() {
        var line = Self.readLine(["营业", "时", "间", "上", "午"], x: 40, y: 40)
        // Tesseract boxed 营业 of 营业时间上午九点 over the whole line.
        line.line.words[0].box = PixelBox(x: 40, y: 40, width: line.line.box.width, height: 20)
        #expect(LineBlocks.blocks(of: [line]).map(\.text) == ["营业 时 间 上 午"])
    }

    @Test("layout detector without a model is an error; auto without one reads with Tesseract's layout and says why")
    func resolveWithoutModel() throws {
        var options = RecognizerOptions.untimed
        options.detectorModel = "/nonexistent/model.onnx"
        options.layout = .detector
        #expect(throws: RecognitionError.self) { try TextRecognizer(options: options) }
        options.layout = .auto
        let recognizer = try TextRecognizer(options: options)
        #expect(recognizer.layout == .tesseract)
        #expect(recognizer.layoutNote?.contains("/nonexistent/model.onnx") == true || !TextLineDetector.isBuilt, "\(recognizer.layoutNote ?? "")")
        options.layout = .tesseract
        #expect(try TextRecognizer(options: options).layoutNote == nil)
    }

    @Test("the model is searched in LECTOR_DATA_DIR, then the XDG data folders")
    func searchOrder() {
        let folders = DetectorModel.searchFolders(environment: ["LECTOR_DATA_DIR": "/opt/l", "HOME": "/home/u"])
        #expect(folders == ["/opt/l/models", "/home/u/.local/share/lector/models", "/usr/local/share/lector/models", "/usr/share/lector/models"])
        let xdg = DetectorModel.searchFolders(environment: ["XDG_DATA_HOME": "/x", "XDG_DATA_DIRS": "/a:/b"])
        #expect(xdg == ["/x/lector/models", "/a/lector/models", "/b/lector/models"])
    }

    @Test("the detector layout reads the fixtures as well as Tesseract's layout", .enabled(if: model != nil),
          arguments: ["hello-640x480.png", "noisy-1280x720.png", "small-1280x720.png"])
    func readsFixtures(name: String) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture(name))
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let recognizer = try TextRecognizer(options: options)
        #expect(recognizer.layout != .tesseract)
        let result = try recognizer.recognize(image)
        let expected = try TestSupport.fixtureWords(name)
        let recall = TestSupport.recall(expected: expected, actual: result.words.map(\.text))
        #expect(recall >= 0.9, "recall \(recall): \(result.text)")
        // Precision: the words read are the fixture's.
        let extra = result.words.map(\.text).filter { !expected.contains($0) }
        #expect(Double(extra.count) <= 0.1 * Double(max(result.words.count, 1)), "extra words \(extra)")
        for block in result.blocks {
            for line in block.lines {
                #expect(block.box.union(line.box) == block.box)
                for word in line.words {
                    #expect(line.box.union(word.box) == line.box)
                    #expect(word.box.maxX <= image.width && word.box.maxY <= image.height && word.box.area > 0)
                    // The box holds ink: some pixel far darker than the page.
                    let crop = image.cropped(to: word.box)
                    #expect((crop.pixels.min() ?? 255) < 128, "word \(word.text) at \(word.box) holds no ink")
                }
            }
        }
    }

    /// Text upside down (a camera turned half a turn) reads under the detector without
    /// `--rotation auto`: poor plain reads of shallow lines are read turned as well, and
    /// the better direction wins; upright text is not turned.
    @Test("the detector reads upside-down text the right way up", .enabled(if: model != nil),
          arguments: [ImageOrientation.up, .down])
    func upsideDown(turn: ImageOrientation) throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        var turned = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: turn, sourceWidth: image.width, sourceHeight: image.height).apply(image, into: &turned)
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let result = try TextRecognizer(options: options).recognize(turned)
        let recall = TestSupport.recall(expected: expected, actual: result.words.map(\.text))
        #expect(recall >= 0.9, "recall \(recall): \(result.text)")
        #expect(result.words.allSatisfy { $0.box.maxX <= turned.width && $0.box.maxY <= turned.height && $0.box.area > 0 })
    }

    /// One detector, frames of another size: OpenCV 4.6 kept the first input's shapes in
    /// the network, and a portrait frame after a landscape one found no line at all
    /// (lectord turned a quarter while running); ONNX Runtime takes each input's size.
    @Test("one detector reads a landscape frame, then the same frame turned a quarter", .enabled(if: model != nil))
    func newInputSize() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let recognizer = try TextRecognizer(options: options)
        var turned = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: .right, sourceWidth: image.width, sourceHeight: image.height).apply(image, into: &turned)
        #expect(turned.width == image.height && turned.height == image.width)
        for frame in [image, turned, image] {
            let result = try recognizer.recognize(frame)
            let recall = TestSupport.recall(expected: expected, actual: result.words.map(\.text))
            #expect(recall >= 0.9, "\(frame.width)x\(frame.height): recall \(recall): \(result.text)")
        }
    }

    /// A camera's recognizers share their detectors: live text's reads (with a scene
    /// hint) take one network by turns, waiting for it (a network's buffers are most of
    /// their memory); reads that detect every frame load another when it is busy. Each
    /// read still reads the whole frame.
    @Test("a pool's recognizers share one network; reads without a scene may load more", .enabled(if: model != nil))
    func sharedDetectors() throws {
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let pool = try RecognizerPool(count: 2, options: options)
        let recognizers = [pool.begin(slot: 0), pool.begin(slot: 1)]
        let shared = try #require(recognizers[0].detectors)
        #expect(recognizers[1].detectors === shared)
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        let expected = try TestSupport.fixtureWords("hello-640x480.png")
        /// Both recognizers read `image` three times at once, each read a new scene
        /// (so each detects): the recall of every read.
        func readAtOnce(withScene: Bool) -> [Double] {
            let recalls = Mutex<[Double]>([])
            let done = DispatchGroup()
            for recognizer in recognizers {
                nonisolated(unsafe) let recognizer = recognizer
                done.enter()
                Thread.detachNewThread {
                    for generation in 1...3 {
                        let scene = withScene ? SceneHint(generation: generation, dx: 0, dy: 0) : nil
                        let words = (try? recognizer.recognize(image, scene: scene).words.map(\.text)) ?? []
                        recalls.withLock { $0.append(TestSupport.recall(expected: expected, actual: words)) }
                    }
                    done.leave()
                }
            }
            done.wait()
            return recalls.withLock { $0 }
        }
        let live = readAtOnce(withScene: true)
        #expect(live.count == 6 && live.allSatisfy { $0 >= 0.9 }, "\(live)")
        #expect(shared.count == 1, "live text's detections wait for the one network")
        let perFrame = readAtOnce(withScene: false)
        #expect(perFrame.count == 6 && perFrame.allSatisfy { $0 >= 0.9 }, "\(perFrame)")
        #expect((1...2).contains(shared.count), "at most one network per detection at once: \(shared.count)")
        try pool.replace(options: options)
        let replaced = [pool.begin(slot: 0), pool.begin(slot: 1)]
        #expect(replaced[0].detectors === replaced[1].detectors && replaced[0].detectors !== shared)
    }

    @Test("a still scene re-reads its known lines; a new scene, a missing hint or a far move detects again",
          .enabled(if: model != nil))
    func reuse() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let recognizer = try TextRecognizer(options: options)
        let first = try recognizer.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0))
        #expect(recognizer.lastDetectorRead?.detected == true)
        let again = try recognizer.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0))
        #expect(recognizer.lastDetectorRead?.detected == false)
        #expect(again.text == first.text, "a re-read of the same lines reads the same")
        // The scene moved 3 px right (the stack followed it): the lines move with it.
        var moved = GrayImage(width: image.width, height: image.height, pixels: [UInt8](repeating: image.pixels[0], count: image.pixels.count))
        for y in 0..<image.height { for x in 3..<image.width { moved[x, y] = image[x - 3, y] } }
        let shifted = try recognizer.recognize(moved, scene: SceneHint(generation: 1, dx: 3, dy: 0))
        #expect(recognizer.lastDetectorRead?.detected == false)
        #expect(shifted.text == first.text, "\(shifted.text)")
        #expect(zip(shifted.words, first.words).allSatisfy { abs($0.box.x - $1.box.x - 3) <= 1 })
        _ = try recognizer.recognize(image, scene: SceneHint(generation: 2, dx: 0, dy: 0))
        #expect(recognizer.lastDetectorRead?.detected == true, "a new stack generation detects")
        _ = try recognizer.recognize(image)
        #expect(recognizer.lastDetectorRead?.detected == true, "no scene hint: every frame is detected")
        // A blank frame in the same generation: every line is lost, the next read detects.
        _ = try recognizer.recognize(image, scene: SceneHint(generation: 3, dx: 0, dy: 0))
        let blank = GrayImage(width: image.width, height: image.height, pixels: [UInt8](repeating: 255, count: image.pixels.count))
        let nothing = try recognizer.recognize(blank, scene: SceneHint(generation: 3, dx: 0, dy: 0))
        #expect(nothing.words.allSatisfy { $0.confidence < 0.2 }, "\(nothing.words.map { "\($0.text) \($0.confidence)" })")
        #expect(recognizer.lastDetectorRead?.detected == false)
        _ = try recognizer.recognize(blank, scene: SceneHint(generation: 3, dx: 0, dy: 0))
        #expect(recognizer.lastDetectorRead?.detected == true, "lost lines are detected again")
    }

    /// Reading the same pixels again reads the same: a still scene's refresh (and a
    /// detection due once the stack is full) costs no engine read where nothing changed.
    @Test("a still scene's unchanged lines keep their readings, a changed one is read again; an unchanged image is not detected again",
          .enabled(if: model != nil))
    func unchangedPixels() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("page-640x480.png"))
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let recognizer = try TextRecognizer(options: options)
        let first = try recognizer.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: false))
        let lines = first.blocks.flatMap(\.lines)
        #expect(lines.count >= 5 && recognizer.lastDetectorRead?.unchangedLines == 0, "\(first.text)")
        // The full stack shows the same image: the detection due for it keeps the lines,
        // and no line is read again.
        let full = try recognizer.recognize(image, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: true))
        let kept = try #require(recognizer.lastDetectorRead)
        #expect(!kept.detected && kept.detectionKept, "\(kept)")
        #expect(kept.linesRead == 0 && kept.unchangedLines == lines.count, "\(kept)")
        #expect(full.text == first.text)
        #expect(recognizer.lastProgress.carriedLines.isEmpty, "unchanged lines count as seen now, not carried")
        #expect(recognizer.lastProgress.repeatedLines.count == lines.count, "their readings stand, repeated: no new vote")
        // One word painted over: its line is read again, the others stand.
        var changed = image
        let word = lines[1].words[0].box
        for y in word.y..<word.maxY { for x in word.x..<word.maxX { changed[x, y] = image.pixels[0] } }
        let again = try recognizer.recognize(changed, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: true))
        let read = try #require(recognizer.lastDetectorRead)
        #expect(read.linesRead >= 1 && read.unchangedLines >= lines.count - 2 && read.linesRead + read.unchangedLines == lines.count, "\(read)")
        #expect(again.text != first.text && again.words.count >= first.words.count - 2, "\(again.text)")
    }

    @Test("a read that runs out of time keeps what it read; the next frames read the rest, without detecting again",
          .enabled(if: model != nil))
    func partialReads() throws {
        let image = try ImageFile.readGray(path: TestSupport.fixture("page-640x480.png"))
        let scene = SceneHint(generation: 1, dx: 0, dy: 0)
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let whole = try TextRecognizer(options: options).recognize(image, scene: scene)
        // Far too short for a line: every frame reads only the line it always reads first.
        options.deadlineMilliseconds = 10
        let recognizer = try TextRecognizer(options: options)
        var reads: [(text: RecognizedText, progress: ReadProgress, detected: Bool, budget: Int)] = []
        while reads.count < 60, reads.last?.progress.isComplete != true {
            let text = try recognizer.recognize(image, scene: scene)
            reads.append((text, recognizer.lastProgress, recognizer.lastDetectorRead?.detected == true,
                          recognizer.lastDetectorRead?.budgetMilliseconds ?? 0))
        }
        let lines = whole.blocks.flatMap(\.lines).count
        #expect(lines >= 5, "the page has lines to read over several frames")
        #expect(reads.first?.progress.outOfTime == true && (reads.first?.progress.unreadLines ?? 0) > 0, "the first read ran out of time")
        #expect(reads.last?.progress.isComplete == true, "the scene was read whole in \(reads.count) frames")
        #expect(reads.first?.progress.directionsUndecided == true, "the first frame read one of the direction vote's samples")
        #expect(reads.last?.progress.directionsUndecided == false)
        // Each frame reads a line: the direction vote's samples (3) first, then one a frame.
        #expect(reads.count <= lines + 3, "\(reads.count) frames for \(lines) lines")
        #expect(reads.dropFirst().allSatisfy { !$0.detected }, "the lines were detected once")
        // The first frame reads for the deadline, the frames going on with the scene for a step of it.
        #expect(reads.first?.budget == 10 && reads.dropFirst().allSatisfy { $0.budget == 3 }, "\(reads.map(\.budget))")
        #expect(zip(reads, reads.dropFirst()).allSatisfy { $1.progress.unreadLines <= $0.progress.unreadLines
                && $1.text.words.count >= $0.text.words.count }, "what was read stays in the text")
        #expect(reads.dropFirst(4).allSatisfy { !$0.progress.carriedLines.isEmpty }, "earlier frames' lines are carried, not read again")
        #expect(reads.last?.text.words.map(\.text) == whole.words.map(\.text), "the scene read over frames reads as one whole read")
    }

    /// A vote taken while the stack fills is taken again once it is full: a dim first
    /// frame can read as garbage both ways and vote the scene upside down, and the scene
    /// then read upside down for as long as it stayed (tests/live's dim still-11). Here
    /// the first frame shows the line upside down (voted turned, rightly for it) and the
    /// full stack upright: the full stack's read detects and votes again, and reads it
    /// upright.
    @Test("a direction voted while the stack filled is voted again on the full stack", .enabled(if: model != nil))
    func voteAgainOnFullStack() throws {
        let page = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        // "HELLO LECTOR" alone, centred: turned half a turn, the line stays where it was.
        let strip = page.cropped(to: PixelBox(x: 40, y: 68, width: 280, height: 48))
        var upright = GrayImage(width: 640, height: 480, pixels: [UInt8](repeating: page.pixels[0], count: 640 * 480))
        for y in 0..<strip.height { for x in 0..<strip.width { upright[180 + x, 216 + y] = strip[x, y] } }
        var turned = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: .down, sourceWidth: 640, sourceHeight: 480).apply(upright, into: &turned)
        var options = RecognizerOptions.untimed
        options.layout = .detector
        let recognizer = try TextRecognizer(options: options)
        let expected = ["HELLO", "LECTOR"]
        let first = try recognizer.recognize(turned, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: false))
        #expect(TestSupport.recall(expected: expected, actual: first.words.map(\.text)) >= 0.9, "turned: \(first.text)")
        let full = try recognizer.recognize(upright, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: true))
        // Detected on a filling stack, the scene is detected again on the full one (once):
        // the line found again where it was keeps its reading and the first vote's
        // direction, which the full stack's read votes again.
        #expect(recognizer.lastDetectorRead?.detected == true, "detected again on the full stack")
        // Read upright; read on in the first vote's direction, it read "HEOOR".
        #expect(TestSupport.recall(expected: expected, actual: full.words.map(\.text)) >= 0.5, "full stack: \(full.text)")
        // A vote taken on the full stack stands, and the scene is not detected again.
        let again = try recognizer.recognize(upright, scene: SceneHint(generation: 1, dx: 0, dy: 0, full: true))
        #expect(recognizer.lastDetectorRead?.detected == false, "detected once on the full stack")
        #expect(again.text == full.text)
    }
}
