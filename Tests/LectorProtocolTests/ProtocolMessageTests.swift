import Foundation
@testable import LectorProtocol
import LectorTestSupport
import Testing

/// Non-trivial values of every message, for the round trips.
enum SampleMessages {
    static func element(_ text: String, _ x: Int, language: String? = nil, engine: String? = nil,
                        children: [TextElement]? = nil) -> TextElement {
        TextElement(text: text, box: PixelBox(x: x, y: 12, width: 30, height: 9),
                    corners: [PixelPoint(x: 470, y: x), PixelPoint(x: 470, y: x + 30), PixelPoint(x: 461, y: x + 30),
                              PixelPoint(x: 461, y: x)],
                    confidence: 0.917, language: language, children: children, engine: engine)
    }

    static let symbolText = TextMessage(
        device: "/dev/video0", sequence: 4_000_000_000, time: "2026-11-30T21:00:00.125Z", orientation: .right,
        width: 480, height: 640, text: "Hi \"you\"\nü",
        blocks: [element("Hi \"you\"\nü", 1, language: "eng", children: [
            element("Hi \"you\"", 2, engine: "neural", children: [
                element("Hi", 3, children: [element("H", 3, children: nil), element("i", 9, children: nil)]),
                element("\"you\"", 20, children: []),
            ]),
            element("ü", 40, engine: "tesseract", children: [element("ü", 40, children: [])]),
        ])],
        recognizeMilliseconds: 123.456)

    static let blockText = TextMessage(
        device: "demo", sequence: 0, time: "1970-01-01T00:00:00.000Z", orientation: .upMirrored, width: 16, height: 16,
        text: "", blocks: [element("a\nb", 0, language: "deu"), element("c", 5)], recognizeMilliseconds: 0, unreadLines: 4)

    static let emptyText = TextMessage(
        device: "demo", sequence: 7, time: "2026-11-30T21:00:00.999Z", orientation: .left, width: 640, height: 480,
        text: "", blocks: [], recognizeMilliseconds: 2.5)

    static let frame = FrameMessage(
        device: "/dev/video2", sequence: 99, time: "2026-11-30T21:00:01.000Z", format: "YUYV", width: 1280, height: 720,
        orientation: .downMirrored, captured: 1000, recognized: 400, dropped: 590, rejected: 10,
        latencyMilliseconds: 180.25, recognizeMilliseconds: 150.5, overheadMilliseconds: 3.125)

    static var device: DeviceMessage {
        var info = DeviceInfo(path: "/dev/video0", state: .lost, name: "USB Camera")
        info.driver = "uvcvideo"
        info.card = "USB Camera: HD"
        info.bus = "usb-0000:00:14.0-1"
        info.format = "MJPG"
        info.width = 1920
        info.height = 1080
        info.fps = 29.97
        info.error = "device gone (ENODEV)"
        info.layout = "detector"
        return DeviceMessage(info: info, orientation: .rightMirrored, deviceOrientation: .landscapeRight,
                             cameraPosition: .front, watched: true)
    }

    static var watchSettings: WatchSettings {
        var settings = WatchSettings()
        settings.enable = true
        settings.devices = ["/dev/video0", "demo"]
        settings.text = false
        settings.frame = true
        settings.level = .symbol
        settings.minimumConfidence = 0.625
        settings.changesOnly = true
        return settings
    }

    static let status = StatusMessage(
        release: "1.2.3", uptime: 3600.125, clients: 3, watchers: 2, alwaysOn: true,
        publishMilliseconds: Percentiles(p50: 0.125, p99: 2.5), inboxDropped: 17,
        devices: [
            DeviceStatus(path: "/dev/video0", state: .streaming, running: true, watched: true, captured: 90000,
                         recognized: 7000, dropped: 82000, rejected: 1000, captureFPS: 29.97, recognizeFPS: 2.33,
                         recognizeMilliseconds: Percentiles(p50: 300.5, p99: 410), latencyMilliseconds: Percentiles(p50: 350, p99: 500.25),
                         runningReason: "rules"),
            DeviceStatus(path: "demo", state: .idle, running: false, watched: false, captured: 0, recognized: 0,
                         dropped: 0, rejected: 0, captureFPS: 0, recognizeFPS: 0),
        ])

    /// One value of every server message type, several of some.
    static var all: [ServerMessage] {
        [
            .version(VersionMessage(release: "1.2.3", protocolMajor: 1, protocolMinor: 1)),
            .error(ErrorMessage("WATCH: level must be one of block|line|word|symbol", request: "WATCH")),
            .error(ErrorMessage("too many clients (at most 32)")),
            .overflow(OverflowMessage(dropped: 12, droppedTotal: 345)),
            .track(TrackMessage(device: "/dev/video0", id: "3", event: .new, text: "Batch 7731 expires",
                                box: PixelBox(x: 138, y: 126, width: 412, height: 38),
                                corners: [PixelPoint(x: 138, y: 126), PixelPoint(x: 550, y: 126), PixelPoint(x: 550, y: 164), PixelPoint(x: 138, y: 164)],
                                confidence: 0.958, observations: 3,
                                firstSeen: "2026-11-30T22:05:29.188Z", lastSeen: "2026-11-30T22:05:30.468Z")),
            .watch(WatchMessage(watchSettings)),
            .watch(WatchMessage(WatchSettings())),
            .devices(DevicesMessage([device, DeviceMessage(info: DeviceInfo(path: "demo", state: .idle), orientation: .up, watched: false)])),
            .devices(DevicesMessage([])),
            .orientation(OrientationMessage(device: "demo", orientation: .leftMirrored, deviceOrientation: .portraitUpsideDown,
                                            cameraPosition: .front)),
            .orientation(OrientationMessage(device: "/dev/video0", orientation: .down)),
            .snapshot(SnapshotMessage(device: "demo", sequence: 42, width: 320, height: 240, data: [0xFF, 0xD8, 0, 1, 2, 0xFF, 0xD9])),
            .text(symbolText),
            .text(blockText),
            .text(emptyText),
            .frame(frame),
            .poll(PollMessage(time: "2026-11-30T21:00:02.000Z", active: 2, texts: [symbolText, blockText], frames: [frame])),
            .poll(PollMessage(time: "2026-11-30T21:00:02.000Z", active: 0, texts: [], frames: [])),
            .status(status),
            .status(StatusMessage(release: "0.1", uptime: 0, clients: 0, watchers: 0, alwaysOn: false, devices: [])),
            .match(MatchMessage(device: "meter", zone: "reading", rule: "any", text: "04217935", matched: "04217935",
                                groups: ["04217", "935"], box: PixelBox(x: 131, y: 214, width: 211, height: 40),
                                corners: [PixelPoint(x: 131, y: 214), PixelPoint(x: 342, y: 214), PixelPoint(x: 342, y: 254),
                                          PixelPoint(x: 131, y: 254)],
                                confidence: 0.953, track: "4", sequence: 75, time: "2026-12-01T03:40:12.310Z")),
            .match(MatchMessage(device: "door", zone: nil, rule: "delivery", text: "DELIVERY", matched: "DELIVERY", groups: [],
                                box: PixelBox(x: 0, y: 0, width: 1, height: 1), corners: [], confidence: 0, track: nil,
                                sequence: 0, time: "t")),
            .match(MatchMessage(device: "gate", zone: "plate", rule: "plate", text: "B0ABC123", matched: "B0ABC123", groups: [],
                                box: PixelBox(x: 10, y: 20, width: 120, height: 30), corners: [], confidence: 0.91, track: "7",
                                sequence: 9, time: "t", read: "BO ABC 123", corrections: 1,
                                known: .entry(KnownEntry(text: "B0ABC123", name: "Alice's car", distance: 0)),
                                evidence: MatchEvidence(frame: "/var/lib/lector/evidence/a.jpg", crop: "/var/lib/lector/evidence/a-crop.jpg"))),
            .match(MatchMessage(device: "gate", zone: nil, rule: "plate", text: "XY12", matched: "XY12", groups: [],
                                box: PixelBox(x: 0, y: 0, width: 1, height: 1), corners: [], confidence: 0.5, track: nil,
                                sequence: 1, time: "t", read: "XY12", corrections: 0, known: .unknown)),
            .match(MatchMessage(device: "meter", zone: "reading", rule: "kwh", text: "0421", matched: "0421", groups: [],
                                box: PixelBox(x: 0, y: 0, width: 1, height: 1), corners: [], confidence: 0.8, track: nil,
                                sequence: 2, time: "t", rejected: "decreasing")),
            .history(HistoryMessage(matches: [
                MatchMessage(device: "gate", zone: "plate", rule: "plate", text: "B0ABC123", matched: "B0ABC123", groups: [],
                             box: PixelBox(x: 10, y: 20, width: 120, height: 30), corners: [], confidence: 0.91, track: "7",
                             sequence: 9, time: "2026-12-04T21:00:00.000Z",
                             known: .entry(KnownEntry(text: "B0ABC123", name: nil, distance: 0)),
                             evidence: MatchEvidence(frame: "/e/f.jpg", crop: "/e/c.jpg")),
                MatchMessage(device: "meter", zone: nil, rule: "kwh", text: "0421", matched: "0421", groups: [],
                             box: PixelBox(x: 0, y: 0, width: 1, height: 1), corners: [], confidence: 0.8, track: nil,
                             sequence: 2, time: "2026-12-04T20:59:59.000Z", rejected: "decreasing"),
            ])),
            .history(HistoryMessage(matches: [])),
            .code(CodeMessage(device: "door", zone: nil, format: .qr, text: "https://example.org/p/7", binary: nil,
                              box: PixelBox(x: 700, y: 300, width: 127, height: 127),
                              corners: [PixelPoint(x: 20, y: 700), PixelPoint(x: 20, y: 826), PixelPoint(x: 146, y: 826),
                                        PixelPoint(x: 146, y: 700)],
                              uprightCorners: [PixelPoint(x: 700, y: 300), PixelPoint(x: 826, y: 300), PixelPoint(x: 826, y: 426),
                                               PixelPoint(x: 700, y: 426)],
                              sequence: 41, time: "2026-12-07T05:27:16.327Z")),
            .code(CodeMessage(device: "shelf", zone: "label", format: .dataMatrix, text: "LOT\u{FFFD}", binary: [76, 79, 84, 255],
                              box: PixelBox(x: 1, y: 2, width: 3, height: 4), corners: [], uprightCorners: [], sequence: 0, time: "t")),
            .match(MatchMessage(device: "shelf", zone: nil, rule: "scanned", text: "5901234123457", matched: "5901234123457",
                                groups: [], box: PixelBox(x: 0, y: 0, width: 1, height: 1), corners: [], confidence: 1, track: nil,
                                sequence: 4, time: "t").withCode(.ean13)),
        ]
    }

    /// One value of every request, with every member given in some.
    static var requests: [Request] {
        var watch = WatchRequest()
        watch.enable = true
        watch.devices = ["/dev/video0", "demo"]
        watch.text = true
        watch.frame = false
        watch.level = .line
        watch.minimumConfidence = 0.375
        watch.changesOnly = true
        var partial = WatchRequest()
        partial.level = .symbol
        var codes = WatchRequest()
        codes.codes = true
        codes.matches = false
        return [
            .watch(watch), .watch(partial), .watch(codes), .watch(WatchRequest()), .poll, .devices, .status,
            .orientation(device: "demo", OrientationSettings(deviceOrientation: .landscapeLeft, cameraPosition: .front)),
            .orientation(device: nil, OrientationSettings(rotation: 270, mirror: true)),
            .orientation(device: nil, OrientationSettings(cameraPosition: .back)),
            .snapshot(device: "/dev/video1", boxes: true, maximumWidth: 320),
            .snapshot(device: nil, boxes: false, maximumWidth: nil),
            .history(HistoryQuery()),
            .history(HistoryQuery(device: "gate", rule: "plate", since: "2026-12-04T21:00:00Z", limit: 10_000)),
        ]
    }
}

@Suite("Typed protocol")
struct ProtocolMessageTests {
    @Test("every server message round-trips through its line", arguments: SampleMessages.all)
    func serverMessageRoundTrip(message: ServerMessage) throws {
        let line = JSONWriter.bytes(message.json)
        let decoded = try ServerMessage(line: line)
        #expect(decoded == message)
        #expect(JSONWriter.bytes(decoded.json) == line)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix(#"{"class":"\#(message.messageClass)""#))
        // No nulls, but for a MATCH whose rule's known list has no entry for the reading.
        let unknownReading: Bool = if case let .match(match) = message { match.known == .unknown } else { false }
        #expect(text.contains("null") == unknownReading, "null only as MATCH known")
        if unknownReading { #expect(text.contains(#""known":null"#)) }
    }

    @Test("each message type decodes its own line", arguments: SampleMessages.all)
    func typedDecoder(message: ServerMessage) throws {
        let typed = try #require(message.message)
        func check<M: ProtocolMessage>(_ value: M) throws {
            #expect(try M(line: value.bytes) == value)
        }
        try check(typed)
    }

    @Test("every server message type has a sample")
    func everyTypeCovered() {
        let covered = Set(SampleMessages.all.map(\.messageClass))
        #expect(covered == Set(ServerMessage.types.map { $0.messageClass }))
    }

    @Test("every request round-trips through its line", arguments: SampleMessages.requests)
    func requestRoundTrip(request: Request) throws {
        #expect(try Request.parse(request.bytes) == request)
        #expect(request.json["class"]?.stringValue == request.requestClass)
    }

    @Test("the client's requests are written as before", arguments: [
        (Request.status, #"{"class":"STATUS"}"#),
        (.snapshot(device: "demo", boxes: true, maximumWidth: 64), #"{"class":"SNAPSHOT","device":"demo","boxes":true,"max_width":64}"#),
        (.history(HistoryQuery(rule: "plate", limit: 5)), #"{"class":"HISTORY","rule":"plate","limit":5}"#),
        (.orientation(device: "demo", OrientationSettings(rotation: 90, mirror: false)),
         #"{"class":"ORIENTATION","device":"demo","rotation":90,"mirror":false}"#),
    ])
    func requestBytes(request: Request, line: String) {
        #expect(String(decoding: request.bytes, as: UTF8.self) == line)
    }

    @Test("a TEXT's level decides which children are written", arguments: [
        (DetailLevel.block, [false, false, false]), (.line, [true, false, false]), (.word, [true, true, false]),
        (.symbol, [true, true, true]),
    ])
    func textLevels(level: DetailLevel, written: [Bool]) throws {
        let tree = RecognizedText(blocks: [TextBlock(
            box: PixelBox(x: 0, y: 0, width: 10, height: 10), confidence: 0.91234, language: "eng",
            lines: [TextLine(box: PixelBox(x: 0, y: 0, width: 10, height: 5), confidence: 0.5, words: [
                TextWord(text: "ab", box: PixelBox(x: 0, y: 0, width: 10, height: 5), confidence: 0.5, symbols: [
                    TextSymbol(text: "a", box: PixelBox(x: 0, y: 0, width: 5, height: 5), confidence: 0.5),
                ]),
            ])])])
        let message = TextMessage(device: "demo", sequence: 1, time: "2026-11-30T21:00:00.000Z", orientation: .up,
                                  width: 10, height: 10, tree: tree, level: level, recognizeMilliseconds: 1) { box in
            [PixelPoint(x: box.x, y: box.y), PixelPoint(x: box.maxX, y: box.y), PixelPoint(x: box.maxX, y: box.maxY),
             PixelPoint(x: box.x, y: box.maxY)]
        }
        #expect(message.level == level)
        #expect(message.blocks[0].confidence == 0.912)
        let json = message.json
        let block = try #require(json["blocks"]?.arrayValue?.first)
        #expect((block["lines"] != nil) == written[0])
        #expect((block["lines"]?.arrayValue?.first?["words"] != nil) == written[1])
        #expect((block["lines"]?.arrayValue?.first?["words"]?.arrayValue?.first?["symbols"] != nil) == written[2])
        #expect(try TextMessage(json: json) == message)
    }

    @Test("decoding errors name the member", arguments: [
        (#"{"class":"TEXT","device":"d","seq":1,"time":"t","orientation":{"exif":1,"name":"up"},"width":1,"height":1,"text":"","blocks":[{"text":"a","box":{"x":0,"y":0,"width":1},"corners":[],"confidence":1}],"recognize_ms":1}"#,
         ProtocolError("missing (must be present)", messageClass: "TEXT", member: "blocks[0].box.height")),
        (#"{"class":"FRAME","device":"d","seq":-1}"#, ProtocolError("must be an integer from 0 to 4294967295", messageClass: "FRAME", member: "seq")),
        (#"{"class":"STATUS","release":"r","uptime":"long"}"#, ProtocolError("must be a number", messageClass: "STATUS", member: "uptime")),
        (#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"p","state":"gone"}]}"#,
         ProtocolError("must be one of opening|streaming|lost|idle", messageClass: "DEVICE", member: "state")),
        (#"{"class":"ORIENTATION","device":"d","orientation":{"exif":9}}"#,
         ProtocolError("must be an EXIF orientation 1…8", messageClass: "ORIENTATION", member: "orientation.exif")),
        (#"{"class":"SNAPSHOT","device":"d","seq":1,"format":"jpeg","width":1,"height":1,"data":"!!"}"#,
         ProtocolError("must be Base64", messageClass: "SNAPSHOT", member: "data")),
        (#"{"class":"WATCH","enable":1}"#, ProtocolError("must be true or false", messageClass: "WATCH", member: "enable")),
        (#"{"class":"OVERFLOW","dropped":1.5}"#, ProtocolError("must be an integer", messageClass: "OVERFLOW", member: "dropped")),
        (#"{"class":"POLL","time":"t","active":1,"texts":{}}"#, ProtocolError("must be an array", messageClass: "POLL", member: "texts")),
        (#"{"device":"d"}"#, ProtocolError("line has no \"class\" string", member: "class")),
        (#"[1]"#, ProtocolError("line is not a JSON object")),
    ])
    func decodingErrors(line: String, expected: ProtocolError) {
        #expect(throws: expected) { try ServerMessage(line: Array(line.utf8)) }
    }

    @Test("unknown classes are kept and unknown members ignored")
    func unknownClassesAndMembers() throws {
        let unknown = try ServerMessage(line: Array(#"{"class":"FUTURE","x":[1,2]}"#.utf8))
        #expect(unknown == .other(.object([("class", .string("FUTURE")), ("x", .array([.int(1), .int(2)]))])))
        let extended = try ServerMessage(line: Array(#"{"class":"OVERFLOW","dropped":1,"future":{"a":1},"dropped_total":2}"#.utf8))
        #expect(extended == .overflow(OverflowMessage(dropped: 1, droppedTotal: 2)))
    }

    /// Lines captured from the lectord of commit c959108 (before the typed protocol) on
    /// `--demo`: each decodes, and re-encodes to the same bytes.
    @Test("real lines from lectord decode and re-encode byte for byte")
    func realLines() throws {
        let text = try String(contentsOfFile: TestSupport.fixture("server-lines-c959108.jsonl"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { Array($0.utf8) }
        #expect(lines.count == 11)
        var classes: Set<String> = []
        for line in lines {
            let message = try ServerMessage(line: line)
            classes.insert(message.messageClass)
            #expect(message.message != nil)
            #expect(String(decoding: JSONWriter.bytes(message.json), as: UTF8.self) == String(decoding: line, as: UTF8.self))
        }
        // TRACK came after c959108 (proto_minor 3), MATCH with proto_minor 5, HISTORY with 11, CODE with 14.
        #expect(classes == Set(ServerMessage.types.map { $0.messageClass }).subtracting(["OVERFLOW", "TRACK", "MATCH", "HISTORY", "CODE"]))
    }
}

@Suite("TEXT of a partial read")
struct PartialTextTests {
    @Test("a read that ran out of time says so and how many lines it left; a whole read says nothing", arguments: [0, 1, 17])
    func partialMembers(unread: Int) throws {
        var message = SampleMessages.emptyText
        message.unreadLines = unread
        let line = String(decoding: message.bytes, as: UTF8.self)
        #expect(line.contains(#""partial":true"#) == (unread > 0), "\(line)")
        #expect(line.contains(#""unread":\#(unread)"#) == (unread > 0), "\(line)")
        #expect(try TextMessage(json: JSONParser.parse(line)).unreadLines == unread)
    }
}
