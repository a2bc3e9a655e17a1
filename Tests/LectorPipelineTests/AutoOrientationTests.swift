import Foundation
@testable import LectorCapture
@testable import LectorDaemon
@testable import LectorImaging
@testable import LectorPipeline
@testable import lector
@testable import LectorProtocol
@testable import LectorRecognition
@testable import LectorSystem
import LectorTestSupport
import Testing

/// `--rotation auto` (issue 17): the quarter turn found from the text with Tesseract's
/// OSD (real Tesseract, the repository's fixtures captured in each turn), when it is
/// checked again, how a client's ORIENTATION request turns it off, and how TEXT says it.
@Suite("Automatic orientation", .serialized)
struct AutoOrientationTests {
    /// `name` as a camera turned by `orientation` would capture it.
    static func captured(_ name: String, _ orientation: ImageOrientation) throws -> GrayImage {
        let upright = try ImageFile.readGray(path: TestSupport.fixture(name))
        var captured = GrayImage(width: 0, height: 0)
        OrientationTransform(orientation: orientation.inverse, sourceWidth: upright.width, sourceHeight: upright.height)
            .apply(upright, into: &captured)
        return captured
    }

    static let pages = ["page-640x480.png", "page-1280x720.png"]

    @Test("OSD finds the turn of a fixture captured in each of the four turns",
          arguments: pages, [0, 90, 180, 270])
    func findsTurn(name: String, rotation: Int) throws {
        let orientation = try #require(ImageOrientation(rotation: rotation, mirror: false))
        let detector = try OrientationDetector()
        let raw = try detector.estimate(try Self.captured(name, orientation), mirrored: false, deadline: 60_000)
        let estimate = try #require(raw, "\(name) at \(rotation)°: OSD said nothing")
        #expect(estimate.rotation == rotation, "\(name): found \(estimate.rotation)° (confidence \(estimate.confidence))")
        #expect(estimate.confidence >= OrientationDetector.minimumConfidence, "\(name) at \(rotation)°: confidence \(estimate.confidence)")
    }

    @Test("a mirrored camera's turn is found too", arguments: [ImageOrientation.upMirrored, .leftMirrored, .downMirrored, .rightMirrored])
    func findsMirroredTurn(orientation: ImageOrientation) throws {
        let estimate = try #require(try OrientationDetector().detect(try Self.captured(Self.pages[0], orientation), mirrored: true, deadline: 60_000))
        #expect(estimate.rotation == orientation.rotation, "\(orientation): found \(estimate.rotation)°")
    }

    @Test("no turn is claimed for a frame without text", arguments: ["blank", "noise"])
    func nothingWithoutText(kind: String) throws {
        let image = kind == "noise" ? FrameSynthesizer.noise(width: 640, height: 480, seed: 3)
            : GrayImage(width: 640, height: 480, pixels: [UInt8](repeating: 220, count: 640 * 480))
        #expect(try OrientationDetector().detect(image, mirrored: false, deadline: 60_000) == nil)
    }

    /// The recognition loop checks the captured frame, turns it, reads it, and says so.
    @Test("the loop reads a turned frame upright and reports auto", arguments: [90, 180, 270])
    func loopReadsTurnedFrame(rotation: Int) throws {
        let publications = Publications()
        let control = OrientationControl(OrientationSettings(automaticRotation: true))
        let loop = try RecognitionLoop(device: "test", options: RecognizerOptions.untimed, mailbox: LatestFrameMailbox(),
                                       counters: FrameCounters(), orientation: control,
                                       logger: Logger(label: "test", level: .error)) { publications.add($0) }
        let captured = try Self.captured(Self.pages[0], try #require(ImageOrientation(rotation: rotation, mirror: false)))
        loop.process(FrameSynthesizer.frame(captured.pixels, format: .grey, width: captured.width, height: captured.height))
        let published = try #require(publications.last)
        #expect(published.text.transform.orientation.rotation == rotation)
        #expect(published.text.automaticOrientation && published.frame.automaticOrientation)
        let words = try TestSupport.fixtureWords(Self.pages[0])
        let recall = TestSupport.recall(expected: words, actual: published.text.text.words.map(\.text))
        #expect(recall >= 0.9, "recall \(recall): \(published.text.text.text)")
        let line = String(decoding: published.textLine, as: UTF8.self)
        #expect(line.contains("\"orientation\":{\"exif\":\(published.text.transform.orientation.exif),\"name\":\"\(published.text.transform.orientation.name)\",\"auto\":true}"), "\(line.prefix(200))")
        #expect(loop.autoOrientation.checkStatistics.count == 1)
    }

    final class Publications: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [Publication] = []
        func add(_ publication: Publication) { lock.withLock { all.append(publication) } }
        var last: Publication? { lock.withLock { all.last } }
    }

    // MARK: When to check

    @Test("checks: on a new stack, once more when it fills after an unsure check, and after a settings change")
    func scheduleWithStack() {
        var schedule = AutoOrientation.Schedule()
        let t0 = MonotonicInstant.now()
        #expect(schedule.isDue(generation: 1, full: false, revision: 0, at: t0), "the first frame")
        schedule.checked(generation: 1, full: false, revision: 0, at: t0, found: false)
        #expect(!schedule.isDue(generation: 1, full: false, revision: 0, at: t0), "the same filling stack")
        #expect(schedule.isDue(generation: 1, full: true, revision: 0, at: t0), "the stack filled: its clearest image")
        schedule.checked(generation: 1, full: true, revision: 0, at: t0, found: true)
        #expect(!schedule.isDue(generation: 1, full: true, revision: 0, at: t0), "a still scene is checked once")
        #expect(schedule.isDue(generation: 2, full: false, revision: 0, at: t0), "a new scene")
        #expect(schedule.isDue(generation: 1, full: true, revision: 1, at: t0), "the settings changed")
        schedule.checked(generation: 2, full: false, revision: 0, at: t0, found: true)
        #expect(!schedule.isDue(generation: 2, full: true, revision: 0, at: t0), "a sure check is not repeated when the stack fills")
        schedule.checked(generation: 3, full: true, revision: 0, at: t0, found: false)
        #expect(!schedule.isDue(generation: 3, full: true, revision: 0, at: t0), "a stack full at once (stack 1) is checked once")
    }

    @Test("checks without a stack: every few seconds, more often while nothing was found")
    func scheduleWithoutStack() {
        var schedule = AutoOrientation.Schedule()
        let t0 = MonotonicInstant.now()
        func at(_ seconds: Double) -> MonotonicInstant { t0.adding(milliseconds: seconds * 1000) }
        #expect(schedule.isDue(generation: nil, full: false, revision: 0, at: t0))
        schedule.checked(generation: nil, full: false, revision: 0, at: t0, found: false)
        #expect(!schedule.isDue(generation: nil, full: false, revision: 0, at: at(AutoOrientation.retrySeconds / 2)))
        #expect(schedule.isDue(generation: nil, full: false, revision: 0, at: at(AutoOrientation.retrySeconds)))
        schedule.checked(generation: nil, full: false, revision: 0, at: t0, found: true)
        #expect(!schedule.isDue(generation: nil, full: false, revision: 0, at: at(AutoOrientation.retrySeconds)))
        #expect(schedule.isDue(generation: nil, full: false, revision: 0, at: at(AutoOrientation.recheckSeconds)))
    }

    // MARK: Settings

    @Test("an explicit rotation turns auto off; a mirror keeps it; the device form clears it")
    func controlSemantics() {
        let control = OrientationControl(OrientationSettings(automaticRotation: true))
        #expect(control.isAutomatic && control.imageOrientation == .up)
        #expect(control.setDetectedRotation(90))
        #expect(control.inForce.orientation == .right && control.inForce.automatic)
        control.update(OrientationSettings(mirror: true))
        #expect(control.isAutomatic && control.imageOrientation == .leftMirrored, "mirror after the turn found")
        let revision = control.revision
        control.update(OrientationSettings(rotation: 180))
        #expect(!control.isAutomatic && control.imageOrientation == .downMirrored)
        #expect(control.revision == revision + 1)
        #expect(!control.setDetectedRotation(90), "a fixed rotation ignores checks")
        #expect(control.imageOrientation == .downMirrored)
        control.update(OrientationSettings(automaticRotation: true))
        #expect(control.isAutomatic && control.imageOrientation == .downMirrored, "auto again: goes on from the turn in force")
        control.update(OrientationSettings(deviceOrientation: .portrait))
        #expect(!control.isAutomatic && control.imageOrientation == .right)
        control.replace(with: OrientationSettings(automaticRotation: true))
        #expect(control.isAutomatic && control.imageOrientation == .up, "a reload searches again")
    }

    @Test("--rotation auto and rotation = auto", arguments: [
        (["--demo", "--rotation", "auto"], true, false), (["--demo", "--rotation", "auto", "--mirror"], true, true),
        (["--demo", "--rotation", "90"], false, false),
    ])
    func option(arguments: [String], automatic: Bool, mirrored: Bool) throws {
        let orientation = try #require(try DaemonOptions.parse(arguments).cameras.first?.orientation)
        #expect(orientation.isAutomatic == automatic && (orientation.mirror ?? false) == mirrored)
        let file = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse("[camera]\ndemo = true\nrotation = auto", path: "c.conf"))
        #expect(file.cameras.first?.orientation.isAutomatic == true)
        // A flag over the file: the flag's rotation decides.
        let over = try DaemonOptions.parse(["--rotation", "270"]).merged(with: try ConfigFile.parse("[camera]\ndemo = true\nrotation = auto", path: "c.conf"))
        #expect(over.cameras.first?.orientation.isAutomatic == false && over.cameras.first?.orientation.rotation == 270)
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--demo", "--rotation", "auto", "--device-orientation", "portrait"]) }
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--demo", "--rotation", "automatic"]) }
    }

    // MARK: Protocol 1.6

    @Test("orientation says auto:true only when the turn is automatic, and reads back", arguments: [true, false])
    func protocolMember(automatic: Bool) throws {
        let message = TextMessage(device: "d", sequence: 1, time: "2026-12-01T00:00:00.000Z", orientation: .right, width: 480, height: 640,
                                  text: "", blocks: [], recognizeMilliseconds: 1, automaticOrientation: automatic)
        let line = JSONWriter.string(message.json)
        #expect(line.contains("\"orientation\":{\"exif\":6,\"name\":\"right\"\(automatic ? ",\"auto\":true" : "")}"), "\(line)")
        #expect(try TextMessage(json: try JSONParser.parse(line)).automaticOrientation == automatic)
        let reply = OrientationMessage(device: "d", orientation: .right, automaticOrientation: automatic)
        #expect(try OrientationMessage(json: try JSONParser.parse(JSONWriter.string(reply.json))).automaticOrientation == automatic)
        #expect(ProtocolVersion.minor >= 6, "auto came with 1.6")
    }

    @Test("ORIENTATION takes rotation \"auto\"")
    func request() throws {
        let parsed = try Request.parse(Array(#"{"class":"ORIENTATION","device":"d","rotation":"auto"}"#.utf8))
        #expect(parsed == .orientation(device: "d", OrientationSettings(automaticRotation: true)))
        #expect(try Request.parse(Array(JSONWriter.string(parsed.json).utf8)) == parsed, "round trip")
        #expect(throws: RequestError.self) { try Request.parse(Array(#"{"class":"ORIENTATION","rotation":"sideways"}"#.utf8)) }
        let command = try ClientCommand.parse(["orientation", "--rotation", "auto"])
        #expect(command.orientation.isAutomatic && command.orientation.rotation == nil)
    }
}
