import Foundation
@testable import LectorDaemon
@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorRecognition
@testable import LectorSystem
import LectorTestSupport
import Testing

/// Named cameras, zones and rules (issue 14): the configuration file and flags, zones read
/// by real Tesseract engines, hook processes, and the new protocol members.
@Suite("Zones and rules")
struct ZoneRuleTests {
    static let meter = """
    [camera meter]
    replay = /tmp/meter
    fps = 5
    [zone meter/reading]
    rect = 120,200,400,80
    psm = 7
    whitelist = digits
    [zone meter/label]
    rect = 0,0,640,100
    lang = eng
    scale = 2
    invert = true
    min_height = 12
    [rule meter/reading/any]
    match = ^([0-9]{3,4})([0-9]{4})$
    min_confidence = 0.5
    settled_only = false
    hook_timeout = 2.5
    [rule meter/anywhere]
    match = kWh
    """

    @Test("a [camera NAME] carries its name, zones and rules")
    func parsesZonesAndRules() throws {
        let cameras = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse(Self.meter, path: "m.conf")).cameras
        let camera = try #require(cameras.first)
        #expect(camera.name == "meter" && camera.sourceName == "/tmp/meter")
        let zones = camera.recognizer.zones
        #expect(zones.map(\.name) == ["reading", "label"])
        #expect(zones[0].rect == PixelBox(x: 120, y: 200, width: 400, height: 80))
        #expect(zones[0].profile.pageSegmentation == 7 && zones[0].profile.whitelist == "0123456789")
        #expect(zones[1].profile.scale == 2 && zones[1].profile.invert && zones[1].profile.minimumHeight == 12 && zones[1].profile.language == "eng")
        #expect(camera.rules.map(\.qualifiedName) == ["reading/any", "anywhere"])
        #expect(camera.rules[0].minimumConfidence == 0.5 && !camera.rules[0].settledOnly && camera.rules[0].hookTimeout == 2.5)
        #expect(camera.rules[1].zone == nil && camera.rules[1].settledOnly && camera.rules[1].hook == nil)
    }

    @Test("zone and rule mistakes name file and line", arguments: [
        ("[zone meter/reading]\nrect = 1,1,5,5", "m.conf:21: zone meter/reading is already defined at line 4"),
        ("[rule meter/reading/x]\nmatch = ([0-9]", "m.conf:22: match: not a valid ICU regular expression"),
        ("[rule meter/reading/x]\nmatch = .\ndecimals = 6\ndigits = 6", "m.conf:21: decimals: a display of 6 digits has fewer than 7"),
        ("[rule meter/reading/x]\nmatch = .\ndigits = 16", "m.conf:23: digits: "),
        ("[rule meter/reading/x]\nmatch = .\non_match = /dev/null", "m.conf:23: on_match: /dev/null is not an executable file"),
        ("[rule meter/reading/x]\nmatch = .\non_match = relative/hook", "m.conf:23: on_match: must be an absolute path"),
        ("[rule meter/reading/any]\nmatch = .", "m.conf:21: rule meter/reading/any is already defined at line 14"),
        ("[rule meter/dial/x]\nmatch = .", "m.conf:21: no [zone meter/dial]"),
        ("[zone kitchen/door]\nrect = 1,1,5,5", "m.conf:21: no [camera kitchen] in this file; cameras: meter"),
        ("[zone meter/x]\npsm = 7", "m.conf:21: rect: a zone needs rect"),
        ("[zone meter/x]\nrect = 1,1,0,5", "m.conf:22: rect: x and y must be 0 or more, width and height above 0"),
        ("[zone meter/x]\nrect = 9223372036854775807,0,1,1", "m.conf:22: rect: its far edge (x + width, y + height) must be at most 65536"),
        ("[zone meter/x]\nrect = 0,9223372036854775800,1,100", "m.conf:22: rect: its far edge"),
        ("[zone meter/x]\nrect = 1,1,5,5,5", "m.conf:22: rect: must be X,Y,W,H"),
        ("[camera cam2]\ndemo = true\nroi = 9223372036854775807,0,1,1", "m.conf:23: roi: its far edge"),
        ((0..<ZoneSpec.maximumCount).map { "[zone meter/z\($0)]\nrect = \($0),0,1,1\n" }.joined(), "camera meter: 258 zones, more than the 256"),
        ((0..<4).map { "[zone meter/l\($0)]\nrect = 0,0,1,1\nlang = l\($0)\n" }.joined(), "camera meter: zones in 5 languages"),
        ("[zone meter/x]\nrect = 1,1,5,5\npms = 7", "m.conf:23: pms: unknown zone key"),
        ("[rule meter/x]\nmin_confidence = 0.5", "m.conf:21: match: a rule needs match"),
        ("[zone meter]\nrect = 1,1,5,5", "m.conf:21: a zone is named [zone CAMERA/ZONE]"),
        ("[camera all]\ndemo = true", "m.conf:21: camera name must be letters"),
        ("[camera meter]\ndemo = true", "a camera is given twice"),
    ])
    func refuses(tail: String, expected: String) {
        do {
            _ = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse(Self.meter + "\n" + tail, path: "m.conf"))
            Issue.record("accepted \(tail)")
        } catch {
            #expect("\(error)".hasPrefix(expected), "\(error)")
        }
    }

    @Test("--name names the source given before it; --zone gives zones", arguments: [
        (["--device", "/dev/video0", "--name", "kitchen", "--device", "/dev/video2", "--name", "meter"], ["kitchen", "meter"]),
        (["--device", "/dev/video0", "--device", "/dev/video2", "--name", "meter"], ["/dev/video0", "meter"]),
        (["--name", "early", "--demo"], ["early"]),
    ])
    func names(arguments: [String], expected: [String]) throws {
        #expect(try DaemonOptions.parse(arguments).cameras.map(\.name) == expected)
    }

    @Test("--name without a source, or twice, is refused", arguments: [
        ["--name", "kitchen"], ["--demo", "--name", "a", "--name", "b"], ["--demo", "--name", "a/b"],
        ["--device", "/dev/video0", "--name", "x", "--device", "/dev/video2", "--name", "x"],
    ])
    func refusesName(arguments: [String]) {
        #expect(throws: UsageError.self) { try DaemonOptions.parse(arguments).merged(with: nil) }
    }

    @Test("--zone parses its keys")
    func zoneFlag() throws {
        let options = try DaemonOptions.parse(["--demo", "--zone", "reading=120,200,400,80 psm=8 whitelist=alnum scale=3", "--zone", "b=0,0,5,5"])
        let zones = try #require(options.cameras.first).recognizer.zones
        #expect(zones.map(\.name) == ["reading", "b"])
        #expect(zones[0].profile.pageSegmentation == 8 && zones[0].profile.scale == 3 && zones[0].profile.whitelist?.count == 62)
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--demo", "--zone", "x=0,0,5,5 colour=red"]) }
    }

    @Test("--engine and a zone's engine key", arguments: [
        (["--demo"], LineEngine.auto, LineEngine?.none),
        (["--demo", "--engine", "neural", "--zone", "r=0,0,5,5 engine=tesseract"], .neural, .tesseract),
        (["--demo", "--engine", "tesseract", "--zone", "r=0,0,5,5 engine=neural"], .tesseract, .neural),
    ])
    func engineOptions(arguments: [String], camera: LineEngine, zone: LineEngine?) throws {
        let recognizer = try #require(try DaemonOptions.parse(arguments).cameras.first).recognizer
        #expect(recognizer.engine == camera)
        #expect(recognizer.zones.first?.profile.engine == zone)
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--demo", "--engine", "paddle"]) }
        #expect(throws: UsageError.self) { try DaemonOptions.parse(["--demo", "--zone", "x=0,0,5,5 engine=paddle"]) }
    }

    // MARK: Zones through real Tesseract

    static func hello() throws -> GrayImage { try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png")) }

    @Test("each zone is read with its own profile; blocks carry the zone; a whitelist holds")
    func zonesReadIndependently() throws {
        var options = RecognizerOptions.untimed
        var title = ZoneSpec(name: "title", rect: PixelBox(x: 0, y: 60, width: 640, height: 60))
        title.profile.pageSegmentation = 7
        var digits = ZoneSpec(name: "digits", rect: PixelBox(x: 0, y: 120, width: 640, height: 360))
        digits.profile.pageSegmentation = 6
        digits.profile.whitelist = ZoneProfile.whitelist("digits")
        options.zones = [title, digits]
        let recognizer = try TextRecognizer(options: options)
        #expect(recognizer.engineCount == 1, "one language: one engine, psm and whitelist set per read")
        let text = try recognizer.recognize(try Self.hello())
        let titleBlocks = text.blocks.filter { $0.zone == "title" }
        #expect(titleBlocks.map(\.text).joined(separator: " ") == "HELLO LECTOR")
        #expect(titleBlocks.allSatisfy { $0.box.y >= 60 && $0.box.maxY <= 120 })
        let digitText = text.blocks.filter { $0.zone == "digits" }.map(\.text).joined()
        #expect(!digitText.isEmpty && digitText.allSatisfy { $0.isNumber || $0.isWhitespace }, "\(digitText)")
        #expect(text.blocks.allSatisfy { $0.zone != nil })
    }

    @Test("an upscaled, inverted zone maps its boxes back to the upright image")
    func scaledInvertedZone() throws {
        let inverted = try Self.hello().inverted()
        var options = RecognizerOptions.untimed
        var zone = ZoneSpec(name: "title", rect: PixelBox(x: 0, y: 60, width: 640, height: 60))
        zone.profile.invert = true
        zone.profile.scale = 2
        options.zones = [zone]
        let text = try TextRecognizer(options: options).recognize(inverted)
        #expect(text.text == "HELLO LECTOR")
        let box = try #require(text.words.first?.box)
        #expect(box.y >= 60 && box.maxY <= 120 && box.maxX <= 640, "\(box)")
    }

    @Test("a zone outside the upright image is not read and says why; zones sharing a profile share an engine")
    func zoneOutside() throws {
        var options = RecognizerOptions.untimed
        options.zones = [ZoneSpec(name: "far", rect: PixelBox(x: 700, y: 0, width: 100, height: 50)),
                         ZoneSpec(name: "edge", rect: PixelBox(x: 600, y: 0, width: 100, height: 50)),
                         ZoneSpec(name: "title", rect: PixelBox(x: 0, y: 60, width: 640, height: 60))]
        let recognizer = try TextRecognizer(options: options)
        #expect(recognizer.engineCount == 1)
        let infos = recognizer.zoneInfos(width: 640, height: 480)
        #expect(infos[0].warning == "zone far 700,0,100,50 lies outside the 640x480 upright image: it is not read")
        #expect(infos[1].warning?.contains("only 600,0,40,50 is read") == true && infos[2].warning == nil)
        let text = try recognizer.recognize(try Self.hello())
        #expect(!text.blocks.contains { $0.zone == "far" })
        #expect(text.blocks.filter { $0.zone == "title" }.map(\.text) == ["HELLO LECTOR"])
    }

    @Test("min_height drops words shorter than it")
    func minimumHeight() {
        let word = { (text: String, height: Int) in TextWord(text: text, box: PixelBox(x: 0, y: 0, width: 10, height: height), confidence: 0.9) }
        let text = RecognizedText(blocks: [TextBlock(box: PixelBox(x: 0, y: 0, width: 10, height: 30), confidence: 0.9, lines: [
            TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 30), confidence: 0.9, words: [word("big", 30), word("tiny", 8)]),
            TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 8), confidence: 0.9, words: [word("small", 8)]),
        ])])
        #expect(TextRecognizer.dropping(text, shorterThan: 12).text == "big")
        #expect(TextRecognizer.dropping(text, shorterThan: 0) == text)
    }

    @Test("upscaling keeps flat areas and edges where they were")
    func upscale() {
        let image = GrayImage(width: 2, height: 1, pixels: [0, 200])
        let big = image.upscaled(by: 2)
        #expect(big.width == 4 && big.height == 2)
        #expect(big.pixels[0] == 0 && big.pixels[3] == 200 && big.pixels[1] < big.pixels[2])
    }

    // MARK: Hook processes

    static func shell(_ script: String, timeout: Double = 10, input: String = "") throws -> (ending: ChildProcess.Ending, errors: String) {
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin", "LECTOR_TEXT": "0042"])
        child.sendInput(Array(input.utf8))
        let done = child.finish(timeout: timeout)
        return (done.ending, done.errorOutput)
    }

    @Test("a hook's exit status, standard error, environment and standard input")
    func hookProcess() throws {
        #expect(try Self.shell("exit 0").ending == .exited(0))
        let failed = try Self.shell("echo \"bad $LECTOR_TEXT\" >&2; exit 3")
        #expect(failed.ending == .exited(3) && failed.errors == "bad 0042")
        let echoed = try Self.shell("cat >&2", input: "{\"class\":\"MATCH\"}\n")
        #expect(echoed.errors == "{\"class\":\"MATCH\"}")
        #expect(try Self.shell("kill -USR1 $$").ending == .signalled(SIGUSR1))
    }

    @Test("a hook past its timeout is killed, with what it started")
    func hookTimeout() throws {
        let marker = try TestSupport.temporaryDirectory().appendingPathComponent("child").path
        let result = try Self.shell("sleep 60 & echo $! > \(marker); trap '' TERM; wait", timeout: 0.3)
        #expect(result.ending == .timedOut)
        let pid = try #require(Int32((try String(contentsOfFile: marker, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie nobody reaped yet (a container's init may not): not running.
        let gone = {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        #expect(eventually(timeout: 5, gone), "the hook's own child was killed with its group")
    }

    @Test("a program that does not exist is an error, not a crash")
    func missingProgram() {
        #expect(throws: SystemError.self) { try ChildProcess(path: "/nonexistent/hook", environment: [:]) }
    }

    @Test("the hook's environment holds the match")
    func hookEnvironment() {
        let match = MatchMessage(device: "meter", zone: "reading", rule: "any", text: "01234567", matched: "01234567",
                                 groups: ["0123", "4567"], box: PixelBox(x: 1, y: 2, width: 3, height: 4), corners: [],
                                 confidence: 0.9, track: "3", sequence: 9, time: "t")
        let environment = HookRunner.environment(for: match, base: ["PATH": "/bin", "LECTOR_GROUP_9": "stale"])
        #expect(environment["PATH"] == "/bin" && environment["LECTOR_GROUP_9"] == nil)
        #expect(environment["LECTOR_DEVICE"] == "meter" && environment["LECTOR_ZONE"] == "reading" && environment["LECTOR_RULE"] == "any")
        #expect(environment["LECTOR_GROUPS"] == "2" && environment["LECTOR_GROUP_1"] == "0123" && environment["LECTOR_GROUP_2"] == "4567")
        #expect(environment["LECTOR_BOX"] == "1,2,3,4" && environment["LECTOR_SEQ"] == "9")
    }

    // MARK: Protocol

    @Test("MATCH, WATCH matches, DEVICE zones and STATUS name round-trip")
    func protocolRoundTrips() throws {
        let match = MatchMessage(device: "meter", zone: nil, rule: "any", text: "a\"b", matched: "a", groups: ["", "x"],
                                 box: PixelBox(x: 1, y: 2, width: 3, height: 4), corners: [PixelPoint(x: 1, y: 2)],
                                 confidence: 0.5, track: nil, sequence: 3, time: "t")
        #expect(try ServerMessage(line: match.bytes) == .match(match))
        var info = DeviceInfo(path: "/dev/video0", state: .streaming, name: "kitchen")
        info.card = "HD Webcam"
        info.zones = [ZoneInfo(name: "r", rect: PixelBox(x: 0, y: 0, width: 5, height: 5), pageSegmentation: 7, whitelist: "01",
                               language: "eng", warning: "w")]
        info.rules = [RuleInfo(name: "kwh", zone: "reading", meter: true, unit: "kWh"), RuleInfo(name: "plate", known: true)]
        let device = DeviceMessage(info: info, orientation: .up, watched: true)
        #expect(try ServerMessage(line: DevicesMessage([device]).bytes) == .devices(DevicesMessage([device])))
        var watch = WatchSettings()
        watch.enable = true
        watch.matches = true
        #expect(try ServerMessage(line: WatchMessage(watch).bytes) == .watch(WatchMessage(watch)))
        guard case let .watch(request) = try Request.parse(Array(#"{"class":"WATCH","matches":true}"#.utf8)) else {
            Issue.record("not a WATCH")
            return
        }
        #expect(request.applied(to: WatchSettings()).matches && request.applied(to: WatchSettings()).streams("meter"))
        let status = DeviceStatus(path: "/dev/video0", state: .idle, running: false, watched: false, captured: 0, recognized: 0,
                                  dropped: 0, rejected: 0, captureFPS: 0, recognizeFPS: 0, name: "kitchen")
        let message = StatusMessage(release: "1", uptime: 1, clients: 0, watchers: 0, alwaysOn: false, devices: [status])
        #expect(try ServerMessage(line: message.bytes) == .status(message))
    }
}
