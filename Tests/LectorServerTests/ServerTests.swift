import Foundation
import Glibc
@testable import LectorClient
@testable import LectorImaging
@testable import LectorProtocol
@testable import LectorServer
@testable import LectorSystem
import LectorTestSupport
import Testing

/// One server shared by the request tests (loading Tesseract once).
private let shared = Result { try ServerHarness(fps: 5) }

@Suite("Socket server", .serialized)
struct ServerTests {
    /// How long a test waits for a message it expects: a wait, not a measure of speed
    /// (CI runs beside other work on two cores, where 5 s has not always been enough).
    static let patience = 30.0

    @Test("answers each bad request with its ERROR and keeps the connection", arguments: [
        ("not json", "not valid JSON"),
        ("[1,2]", "must be a JSON object"),
        (#"{"nothing":1}"#, "no \"class\""),
        (#"{"class":"NOPE"}"#, "unknown request class \"NOPE\""),
        (#"{"class":"WATCH","level":"paragraph"}"#, "WATCH: level must be one of block|line|word|symbol"),
        (#"{"class":"WATCH","min_confidence":2}"#, "WATCH: min_confidence must be a number from 0 to 1"),
        (#"{"class":"WATCH","enable":null}"#, "WATCH: enable must be true or false"),
        (#"{"class":"WATCH","devices":["/dev/nope"]}"#, "WATCH: unknown device \"/dev/nope\""),
        (#"{"class":"ORIENTATION","rotation":45}"#, "ORIENTATION: rotation must be 0, 90, 180 or 270"),
        (#"{"class":"ORIENTATION"}"#, "ORIENTATION: give device_orientation"),
        (#"{"class":"SNAPSHOT","device":"nope"}"#, "SNAPSHOT: unknown device \"nope\""),
    ])
    func refuses(request: String, expected: String) throws {
        let harness = try shared.get()
        let connection = try harness.connect()
        try connection.sendRaw(Array((request + "\n").utf8))
        let reply = try connection.reply()
        #expect(reply["class"]?.stringValue == "ERROR", "an ERROR for \(request)")
        #expect(reply["message"]?.stringValue?.contains(expected) == true, "message \(reply["message"]?.stringValue ?? "-")")
        try connection.send(json: #"{"class":"STATUS","unknown_member":[1,{"a":null}]}"#)
        #expect(try connection.reply()["class"]?.stringValue == "STATUS", "the connection stays and unknown members are ignored")
    }

    @Test("refuses non-UTF-8 with an ERROR and keeps the connection")
    func refusesNonUTF8() throws {
        let connection = try shared.get().connect()
        try connection.sendRaw([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D, 0x0A])
        let reply = try connection.reply()
        #expect(reply["class"]?.stringValue == "ERROR")
        #expect(reply["message"]?.stringValue == "request is not valid UTF-8")
        try connection.send(.request("DEVICES"))
        #expect(try connection.reply()["class"]?.stringValue == "DEVICES")
    }

    @Test("takes a request line of exactly the limit; one byte more is an ERROR and the end", arguments: [
        (ProtocolVersion.maximumRequestLine, true),
        (ProtocolVersion.maximumRequestLine + 1, false),
        (100_000, false),
    ])
    func requestLineLimit(lineBytes: Int, accepted: Bool) throws {
        let connection = try shared.get().connect()
        let request = #"{"class":"STATUS"}"#
        let line = request + String(repeating: " ", count: lineBytes - request.utf8.count - 1) + "\n"
        try connection.sendRaw(Array(line.utf8))
        let reply = try connection.reply()
        if accepted {
            #expect(reply["class"]?.stringValue == "STATUS")
        } else {
            #expect(reply["class"]?.stringValue == "ERROR")
            #expect(reply["message"]?.stringValue?.contains("longer than 10240 bytes") == true)
            #expect(throws: ConnectionError.closed(reason: "request line longer than 10240 bytes; closing")) {
                try connection.readLine(timeout: Self.patience)
            }
        }
    }

    @Test("closes an idle client, and one whose WATCH asks for nothing, with an ERROR saying why; a watcher stays")
    func idleTimeout() throws {
        // Long enough that a loaded machine answers the watcher's WATCH within it.
        let harness = try ServerHarness(fps: 5) { $0.idleTimeout = 1.5 }
        defer { harness.stop() }
        let watcher = try harness.connect()
        try watcher.send(json: #"{"class":"WATCH","text":false,"frame":true}"#)
        _ = try watcher.read(class: "WATCH")
        let idle = try harness.connect()
        // Watching without a stream receives nothing: idle like a client that sends nothing
        // (issue 39: such watchers held every client slot).
        let askingNothing = try harness.connect()
        try askingNothing.send(json: #"{"class":"WATCH","text":false,"frame":false}"#)
        _ = try askingNothing.read(class: "WATCH")
        for client in [idle, askingNothing] {
            var parting = try client.readMessage(timeout: Self.patience).message
            while parting["class"]?.stringValue == "DEVICES" { parting = try client.readMessage(timeout: Self.patience).message }
            #expect(parting["class"]?.stringValue == "ERROR")
            #expect(parting["message"]?.stringValue?.contains("idle timeout") == true, "\(parting)")
            #expect(throws: ConnectionError.self) { try client.readLine(timeout: Self.patience) }
        }
        Thread.sleep(forTimeInterval: 2.0)
        try watcher.send(json: #"{"class":"STATUS"}"#)
        #expect(try watcher.read(class: "STATUS")["class"]?.stringValue == "STATUS", "the watcher is still served")
    }

    @Test("answers SNAPSHOTs off the server thread, in order with the client's other requests")
    func snapshotInOrder() throws {
        let harness = try ServerHarness(fps: 5)
        defer { harness.stop() }
        let connection = try harness.connect()
        try connection.send(json: #"{"class":"WATCH","frame":false}"#)
        _ = try connection.read(class: "TEXT")
        // One recognized frame is enough: the camera stops (the suite runs in parallel).
        try connection.send(json: #"{"class":"WATCH","enable":false}"#)
        _ = try connection.read(class: "WATCH")
        try connection.sendRaw(Array((#"{"class":"SNAPSHOT","boxes":true}"# + "\n" + #"{"class":"STATUS"}"# + "\n"
                                      + #"{"class":"SNAPSHOT","max_width":64}"# + "\n").utf8))
        var replies: [String] = []
        while replies.count < 3 {
            let message = try connection.readMessage(timeout: Self.patience).message
            if let name = message["class"]?.stringValue, name != "TEXT", name != "FRAME", name != "DEVICES" {
                replies.append(name + (message["width"]?.intValue.map { " \($0)" } ?? ""))
            }
        }
        #expect(replies == ["SNAPSHOT 640", "STATUS", "SNAPSHOT 64"])
    }

    @Test("holds the client cap: one too many gets an ERROR and is closed")
    func clientCap() throws {
        let harness = try ServerHarness(fps: 5) { $0.maximumClients = 2 }
        defer { harness.stop() }
        var first: LectorConnection? = try harness.connect()
        let second = try harness.connect()
        let third = try LectorConnection(path: harness.path)
        let refusal = try third.readMessage(timeout: Self.patience).message
        #expect(refusal["class"]?.stringValue == "ERROR")
        #expect(refusal["message"]?.stringValue == "too many clients (at most 2)")
        #expect(throws: ConnectionError.closed(reason: "too many clients (at most 2)")) { try third.readLine(timeout: Self.patience) }
        _ = first
        first = nil  // closes it: room for one more, once the server has seen it go
        let roomMade = eventually(timeout: 30) {
            guard (try? second.send(.request("STATUS"))) != nil, let status = try? second.reply() else { return false }
            return status["clients"]?.intValue == 1
        }
        #expect(roomMade, "the server saw the first client go")
        _ = try harness.connect()
        try second.send(.request("STATUS"))
        #expect(try second.reply()["class"]?.stringValue == "STATUS")
    }

    @Test("recognizes nothing while nobody watches; a WATCH starts the camera, its end stops it")
    func onlyWhenWatched() throws {
        let harness = try ServerHarness(fps: 10)
        defer { harness.stop() }
        let connection = try harness.connect()
        Thread.sleep(forTimeInterval: 1.0)
        try connection.send(.request("STATUS"))
        let idleStatus = try connection.read(class: "STATUS")
        #expect(idleStatus["publish_ms"] == nil, "no publication yet")
        #expect(idleStatus["inbox_dropped"]?.intValue == 0, "nothing dropped in the server's hand-off")
        #expect(try StatusMessage(json: idleStatus).inboxDropped == 0)
        let idle = idleStatus["devices"]?.arrayValue?.first
        #expect(idle?["captured"]?.intValue == 0, "no frame captured without a watcher")
        #expect(idle?["recognized"]?.intValue == 0, "no frame recognized without a watcher")
        #expect(idle?["running"]?.boolValue == false)

        try connection.send(json: #"{"class":"WATCH","frame":false}"#)
        let text = try connection.read(class: "TEXT")
        #expect(text["device"]?.stringValue == "demo")
        try connection.send(.request("STATUS"))
        let publish = try connection.read(class: "STATUS")["publish_ms"]
        let p50 = publish?["p50"]?.doubleValue ?? -1, p99 = publish?["p99"]?.doubleValue ?? -1
        #expect(p50 >= 0 && p99 >= p50, "STATUS tells the server's publish time once a TEXT went out (\(String(describing: publish)))")
        try connection.send(json: #"{"class":"WATCH","enable":false}"#)
        _ = try connection.read(class: "WATCH")
        #expect(eventually { !harness.cameras[0].isRunning }, "the camera stopped when its last watcher left")
        let stopped = harness.cameras[0].counters.snapshot.recognized
        #expect(stopped > 0, "recognition ran while watched")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(harness.cameras[0].counters.snapshot.recognized == stopped, "and recognizes nothing more")
    }

    @Test("only the watched camera runs")
    func onlyTheWatchedCamera() throws {
        let harness = try ServerHarness(fps: 5, cameraNames: ["one", "two"])
        defer { harness.stop() }
        let connection = try harness.connect()
        try connection.send(json: #"{"class":"WATCH","devices":["two"],"frame":false}"#)
        #expect(try connection.read(class: "TEXT")["device"]?.stringValue == "two")
        #expect(harness.cameras[0].counters.snapshot.captured == 0 && !harness.cameras[0].isRunning, "one never opened")
        #expect(harness.cameras[1].isRunning)
        try connection.send(json: #"{"class":"WATCH","devices":["one"]}"#)
        _ = try connection.read(class: "WATCH")
        #expect(eventually { harness.cameras[0].isRunning && !harness.cameras[1].isRunning }, "the watch moved to one")
    }

    @Test("requests sent ahead are all answered, though no frame is published to wake the server")
    func pipelinedRequests() throws {
        let harness = try ServerHarness(fps: 8) { $0.clientBufferBytes = 8192 }
        defer { harness.stop() }
        let client = try harness.connect()
        // Far more replies than the client's buffer and the kernel's hold: the server
        // answers the lines it has read as the client takes the replies.
        let count = 3000
        try client.sendRaw(Array(String(repeating: #"{"class":"DEVICES"}"# + "\n", count: count).utf8))
        var answered = 0
        while answered < count, let message = try? client.readMessage(timeout: 20).message {
            if message["class"]?.stringValue == "DEVICES" { answered += 1 }
        }
        #expect(answered == count)
        #expect(harness.cameras[0].counters.snapshot.captured == 0, "no camera ran")
    }

    @Test("a client that never reads loses stream messages, is told how many, and is disconnected; others lose nothing")
    func backPressure() throws {
        let harness = try ServerHarness(fps: 8, alwaysOn: true) {
            $0.clientBufferBytes = 8192
            $0.clientTimeout = 6
        }
        defer { harness.stop() }
        let reader = try harness.connect()
        try reader.send(json: #"{"class":"WATCH","frame":false}"#)
        _ = try reader.read(class: "WATCH")
        do {
            // A slow client: sends many small requests (their replies, over a megabyte,
            // fill the kernel's socket buffer) and reads nothing for a while.
            let slow = try harness.connect()
            try slow.send(json: #"{"class":"WATCH"}"#)
            _ = try slow.read(class: "TEXT")
            try slow.sendRaw(Array(String(repeating: #"{"class":"DEVICES"}"# + "\n", count: 6000).utf8))
            // The server has filled the kernel's buffer when the bytes waiting for the
            // slow client stop growing (a loaded machine takes seconds to get there).
            var waiting = -1, steady = 0
            let fillDeadline = Date().addingTimeInterval(30)
            while steady < 3 && Date() < fillDeadline {
                Thread.sleep(forTimeInterval: 0.1)
                let now = try Syscalls.bytesReadable(slow.descriptor)
                steady = now == waiting ? steady + 1 : 0
                waiting = now
            }
            #expect(steady == 3 && waiting > 65536, "the server filled the slow client's socket (\(waiting) bytes waiting)")
            let silentSince = Date()
            // What the reader was sent while the socket filled is not counted.
            while (try? reader.readMessage(timeout: 0.05)) != nil {}
            let before = harness.cameras[0].counters.snapshot.recognized
            var received = 0
            // Counts the reader's TEXT while `more` holds, waiting until `end` at most.
            func readTexts(until end: Date, while more: () -> Bool) {
                while Date() < end && more() {
                    let message = try? reader.readMessage(timeout: end.timeIntervalSinceNow).message
                    if message?["class"]?.stringValue == "TEXT" { received += 1 }
                }
            }
            // At least 1.2 s and 3 frames published while the slow client's socket is
            // full; however slowly a loaded machine recognizes, the slow client reads
            // again 4.5 s after that at the latest (3 s, then 1.5 s for TEXT on its
            // way), within the 6 s client timeout.
            let enough = silentSince.addingTimeInterval(1.2)
            let latest = silentSince.addingTimeInterval(3)
            readTexts(until: latest) { Date() < enough || received < 3 }
            // Frames recognized by now whose TEXT is still on its way are read too.
            let after = harness.cameras[0].counters.snapshot.recognized
            readTexts(until: Date().addingTimeInterval(1.5)) { received < after - before }
            #expect(abs(received - (after - before)) <= 2, "the reader got every frame recognized (\(received) of \(after - before))")

            // The slow client now reads: it finds an OVERFLOW before the stream goes on
            // (bounded in time: a missing OVERFLOW fails, it does not spin on the stream).
            var overflow: JSONValue?
            let overflowDeadline = Date().addingTimeInterval(60)
            while overflow == nil && Date() < overflowDeadline {
                let message = try slow.readMessage(timeout: Self.patience).message
                if message["class"]?.stringValue == "OVERFLOW" { overflow = message }
            }
            #expect((overflow?["dropped"]?.intValue ?? 0) > 0, "OVERFLOW counts the dropped messages")
        }
        Thread.sleep(forTimeInterval: 0.2)  // the slow client has gone

        // A client that never reads is disconnected after the timeout.
        let stalled = try harness.connect()
        try stalled.send(json: #"{"class":"WATCH"}"#)
        try stalled.sendRaw(Array(String(repeating: #"{"class":"DEVICES"}"# + "\n", count: 6000).utf8))
        Thread.sleep(forTimeInterval: 8.0)
        // What the kernel still holds for it, then the end (a stream that goes on, or
        // a silence, fails the test).
        var closed = false
        let closedBy = Date().addingTimeInterval(30)
        while !closed && Date() < closedBy {
            do { _ = try stalled.readLine(timeout: 2) } catch { if case .closed = error { closed = true } }
        }
        #expect(closed, "the stalled client was disconnected")
        try reader.send(.request("STATUS"))
        #expect(try reader.read(class: "STATUS")["clients"]?.intValue == 1, "the stalled client was disconnected")
    }

    @Test("SNAPSHOT is a JPEG of the upright frame, with red boxes where the words are")
    func snapshotBoxes() throws {
        let harness = try ServerHarness(fps: 5, alwaysOn: true)
        defer { harness.stop() }
        let connection = try harness.connect()
        try connection.send(json: #"{"class":"WATCH","frame":false}"#)
        _ = try connection.read(class: "TEXT")
        harness.hub.stopAll()  // freeze the latest frame
        try connection.send(.request("POLL"))
        let text = try #require(try connection.read(class: "POLL")["texts"]?.arrayValue?.first)
        try connection.send(json: #"{"class":"SNAPSHOT","device":"demo"}"#)
        let plain = try connection.read(class: "SNAPSHOT")
        try connection.send(json: #"{"class":"SNAPSHOT","device":"demo","boxes":true}"#)
        let boxed = try connection.read(class: "SNAPSHOT")
        #expect(plain["seq"] == text["seq"] && boxed["seq"] == text["seq"], "the frame of the latest TEXT")
        #expect(boxed["format"]?.stringValue == "jpeg")
        let plainImage = try decode(plain)
        let boxedImage = try decode(boxed)
        #expect(boxedImage.width == text["width"]?.intValue && boxedImage.height == text["height"]?.intValue)

        var boxes: [PixelBox] = []
        for block in text["blocks"]?.arrayValue ?? [] {
            for line in block["lines"]?.arrayValue ?? [] {
                for word in line["words"]?.arrayValue ?? [] {
                    let box = word["box"]
                    boxes.append(PixelBox(x: box?["x"]?.intValue ?? 0, y: box?["y"]?.intValue ?? 0,
                                          width: box?["width"]?.intValue ?? 0, height: box?["height"]?.intValue ?? 0))
                }
            }
        }
        #expect(boxes.count >= 3)
        func pixel(_ image: GrayImage, _ x: Int, _ y: Int) -> Int { Int(image.pixels[y * image.width + x]) }
        // Along each box's top edge the boxed image is red (gray ≈ 76) where the plain one is paper.
        for box in boxes {
            var difference = 0
            for x in box.x..<box.maxX { difference += abs(pixel(boxedImage, x, box.y) - pixel(plainImage, x, box.y)) }
            #expect(difference / box.width > 40, "box \(box) is drawn")
        }
        // Far from every box the images agree.
        var far = 0, farDifference = 0
        for y in stride(from: 0, to: plainImage.height, by: 4) {
            for x in stride(from: 0, to: plainImage.width, by: 4)
            where boxes.allSatisfy({ x < $0.x - 12 || x > $0.maxX + 12 || y < $0.y - 12 || y > $0.maxY + 12 }) {
                far += 1
                farDifference += abs(pixel(boxedImage, x, y) - pixel(plainImage, x, y))
            }
        }
        #expect(far > 1000 && farDifference / far < 3, "nothing drawn away from the words")
    }

    private func decode(_ snapshot: JSONValue) throws -> GrayImage {
        let jpeg = try #require(Base64.decode(snapshot["data"]?.stringValue ?? ""))
        #expect(jpeg.prefix(2) == [0xFF, 0xD8] && jpeg.suffix(2) == [0xFF, 0xD9], "a whole JPEG")
        #expect(Data(jpeg).base64EncodedString() == snapshot["data"]?.stringValue, "standard base64")
        var image = GrayImage(width: 0, height: 0)
        try jpeg.withUnsafeBytes { try JPEGDecoder().decodeGray($0, into: &image) }
        return image
    }

    @Test("ORIENTATION changes the camera live and replies with the EXIF orientation", arguments: [
        (#"{"class":"ORIENTATION","device_orientation":"portrait","camera_position":"back"}"#, 6),
        (#"{"class":"ORIENTATION","device_orientation":"landscape-left","camera_position":"front"}"#, 4),
        (#"{"class":"ORIENTATION","rotation":270,"mirror":true}"#, 7),
        (#"{"class":"ORIENTATION","rotation":0,"mirror":false}"#, 1),
    ])
    func orientation(request: String, exif: Int) throws {
        let harness = try shared.get()
        let connection = try harness.connect()
        try connection.send(json: request)
        let reply = try connection.reply()
        #expect(reply["class"]?.stringValue == "ORIENTATION")
        #expect(reply["orientation"]?["exif"]?.intValue == exif)
        #expect(harness.cameras[0].orientation.imageOrientation.exif == exif)
        try connection.send(.request("DEVICES"))
        #expect(try connection.reply()["devices"]?.arrayValue?.first?["orientation"]?["exif"]?.intValue == exif)
    }

    @Test("filters per client: devices, level, changes_only")
    func filters() throws {
        // 2 frames a second: the demo replay shows another page in every frame, and since
        // the stack starts again only on two frames in a row that do not fit (issue 49)
        // every other page is left out; at 6 a second the recognizer's pace could lock onto
        // one page on a quiet machine, and changes_only then sent nothing for 30 s.
        let harness = try ServerHarness(fps: 2, cameraNames: ["one", "two"], alwaysOn: true)
        defer { harness.stop() }
        let connection = try harness.connect()
        try connection.send(json: #"{"class":"WATCH","devices":["two"],"frame":false,"level":"line","changes_only":true}"#)
        var texts: [JSONValue] = []
        while texts.count < 4 {
            let message = try connection.readMessage(timeout: Self.patience).message
            if message["class"]?.stringValue == "TEXT" { texts.append(message) }
            #expect(message["class"]?.stringValue != "FRAME", "frame:false sends no FRAME")
        }
        #expect(texts.allSatisfy { $0["device"]?.stringValue == "two" }, "only the watched device")
        #expect(texts.allSatisfy { $0["blocks"]?.arrayValue?.first?["lines"]?.arrayValue?.first?["words"] == nil }, "level line has no words")
        for (earlier, later) in zip(texts, texts.dropFirst()) {
            #expect(earlier["text"] != later["text"], "changes_only never repeats a text")
        }
    }

    /// The socket descriptors this process has open.
    private static func openSockets() -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(entries.compactMap { name -> Int32? in
            guard let descriptor = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"),
                  target.hasPrefix("socket:") else { return nil }
            return descriptor
        })
    }

    /// The path a Unix socket is bound to (an accepted one: its server's), or nil.
    private static func localPath(_ descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    @Test("a write that fails (EIO) closes that client only; the other watcher goes on")
    func writeFault() throws {
        let harness = try ServerHarness(fps: 5, alwaysOn: true)
        defer { harness.stop() }
        let other = try harness.connect()
        try other.send(json: #"{"class":"WATCH","frame":false}"#)
        _ = try other.read(class: "TEXT")
        // The server's end of the next connection: the one new socket that is not the
        // client's own (tests running beside this one may open sockets too: try again).
        var victim: LectorConnection?, serverEnd: Int32?
        for _ in 0..<5 where serverEnd == nil {
            let before = Self.openSockets()
            let connection = try harness.connect()  // VERSION read: the server has accepted it
            // Only this server's accepted sockets are bound to its path: a socket another
            // test opened meanwhile is not taken for it (the fault would hit that test).
            let added = Self.openSockets().subtracting(before).subtracting([connection.descriptor])
                .filter { Self.localPath($0) == harness.path }
            if added.count == 1 { (victim, serverEnd) = (connection, added.first) }
        }
        guard let victim, let serverEnd else {
            Issue.record("could not tell the server's end of the connection")
            return
        }
        try victim.send(json: #"{"class":"WATCH","frame":false}"#)
        _ = try victim.read(class: "WATCH")
        Syscalls.injectFault(EIO, call: "sendmsg", descriptor: serverEnd)  // once: the next write to it
        #expect(throws: ConnectionError.closed(reason: nil)) { while true { _ = try victim.readMessage(timeout: Self.patience) } }
        var texts = 0
        while texts < 2 {
            if try other.readMessage(timeout: Self.patience).message["class"]?.stringValue == "TEXT" { texts += 1 }
        }
        try other.send(.request("STATUS"))
        #expect(try other.read(class: "STATUS")["clients"]?.intValue == 1, "the failed client is gone, the other served")
    }
}

@Suite("Syscall faults")
struct SyscallFaultTests {
    @Test("a failing accept (EMFILE) is logged and retried; the client is served", arguments: [EMFILE, ENOBUFS, ECONNABORTED])
    func acceptFails(errno: Int32) throws {
        let harness = try shared.get()
        Syscalls.injectFault(errno, call: "accept", descriptor: harness.server.listeningDescriptor, count: 2)
        let connection = try harness.connect()
        try connection.send(.request("STATUS"))
        #expect(try connection.reply()["class"]?.stringValue == "STATUS")
    }
}

@Suite("Listening socket")
struct ListeningSocketTests {
    private func temporaryPath() throws -> String {
        let directory = NSTemporaryDirectory() + "lector-listen-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/s.sock"
    }

    @Test("creates the socket 0660, refuses a live one, replaces a stale one, never removes a file")
    func lifecycle() throws {
        let path = try temporaryPath()
        let first = try ListeningSocket.bind(path: path, group: nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        #expect(throws: ListenError.inUse(path: path)) { try ListeningSocket.bind(path: path, group: nil) }
        Syscalls.close(first.descriptor)  // dies without removing its path: stale
        #expect(FileManager.default.fileExists(atPath: path))
        let second = try ListeningSocket.bind(path: path, group: nil)
        second.close()
        #expect(!FileManager.default.fileExists(atPath: path), "close removes the path")
        _ = FileManager.default.createFile(atPath: path, contents: Data("keep".utf8))
        #expect(throws: ListenError.notASocket(path: path)) { try ListeningSocket.bind(path: path, group: nil) }
        #expect(throws: ListenError.noSuchGroup("no-such-group-xyz")) { try ListeningSocket.bind(path: path + "2", group: "no-such-group-xyz") }
    }

    @Test("default path", arguments: [
        (["RUNTIME_DIRECTORY": "/run/lector"], false, "/run/lector/lector.sock"),
        (["RUNTIME_DIRECTORY": "/run/a:/run/b"], true, "/run/a/lector.sock"),
        ([:], true, "/run/lector/lector.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], false, "/run/user/1000/lector.sock"),
        ([:], false, "/tmp/lector-1000/lector.sock"),
    ])
    func defaultPath(environment: [String: String], root: Bool, expected: String) {
        #expect(SocketPath.standard(environment: environment, isRoot: root, userID: 1000) == expected)
    }

    @Test("a client's default socket", arguments: [
        (["LECTOR_SOCKET": "/tmp/x.sock", "RUNTIME_DIRECTORY": "/run/lector-http"], true, "/tmp/x.sock"),
        (["RUNTIME_DIRECTORY": "/run/lector-http"], true, "/run/lector/lector.sock"),
        (["RUNTIME_DIRECTORY": "/run/lector-mqtt", "XDG_RUNTIME_DIR": "/run/user/1000"], false, "/run/user/1000/lector.sock"),
        (["RUNTIME_DIRECTORY": "/run/lector-http"], false, "/tmp/lector-1000/lector.sock"),
    ])
    func clientDefaultPath(environment: [String: String], root: Bool, expected: String) {
        // Without the system service's socket: its own runtime directory is never the answer.
        #expect(LectordSocket.defaultPath(environment: environment, isRoot: root, userID: 1000, systemSocketExists: false) == expected)
        #expect(LectordSocket.defaultPath(environment: ["RUNTIME_DIRECTORY": "/run/lector-http"], isRoot: false, userID: 1000,
                                          systemSocketExists: true) == "/run/lector/lector.sock")
    }

    @Test("the fallback directory: created 0700, made private again, a link refused")
    func fallbackDirectory() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("lector-fallback-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let fresh = base + "/fresh"
        try SocketPath.prepareFallback(fresh)
        #expect(Syscalls.fileStatus(fresh)?.permissions == 0o700, "created private")
        try Syscalls.chmod(fresh, mode: 0o755)
        try SocketPath.prepareFallback(fresh)
        #expect(Syscalls.fileStatus(fresh)?.permissions == 0o700, "made private again")
        let link = base + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fresh)
        #expect(throws: SocketPath.FallbackError(directory: link, problem: "it is a symbolic link")) {
            try SocketPath.prepareFallback(link)
        }
        #expect(throws: SocketPath.FallbackError.self) { try SocketPath.prepareFallback(fresh, userID: Syscalls.userID + 1) }
    }
}
