@testable import LectorProtocol
@testable import LectorServer
@testable import LectorSystem
import LectorTestSupport
import Testing

@Suite("Requests")
struct RequestTests {
    @Test("parses requests", arguments: [
        (#"{"class":"POLL"}"#, Request.poll),
        (#"{"class":"DEVICES","future_field":true}"#, .devices),
        (#"{"class":"STATUS"}"#, .status),
        (#"{"class":"SNAPSHOT","device":"/dev/video0","boxes":true,"max_width":320}"#,
         .snapshot(device: "/dev/video0", boxes: true, maximumWidth: 320)),
        (#"{"class":"SNAPSHOT"}"#, .snapshot(device: nil, boxes: false, maximumWidth: nil)),
        (#"{"class":"ORIENTATION","device":"demo","device_orientation":"portrait","camera_position":"front"}"#,
         .orientation(device: "demo", OrientationSettings(deviceOrientation: .portrait, cameraPosition: .front))),
        (#"{"class":"ORIENTATION","rotation":90,"mirror":false}"#,
         .orientation(device: nil, OrientationSettings(rotation: 90, mirror: false))),
    ])
    func parses(line: String, expected: Request) throws {
        #expect(try Request.parse(Array(line.utf8)) == expected)
    }

    @Test("WATCH keeps what it does not mention (gpsd's rule)")
    func watchMerges() throws {
        guard case let .watch(first) = try Request.parse(Array(#"{"class":"WATCH","level":"symbol","min_confidence":0.5,"devices":["a"]}"#.utf8)),
              case let .watch(second) = try Request.parse(Array(#"{"class":"WATCH","frame":false}"#.utf8)),
              case let .watch(off) = try Request.parse(Array(#"{"class":"WATCH","enable":false}"#.utf8)) else {
            Issue.record("not WATCH")
            return
        }
        var settings = first.applied(to: WatchSettings())
        #expect(settings.enable && settings.level == .symbol && settings.minimumConfidence == 0.5 && settings.devices == ["a"])
        settings = second.applied(to: settings)
        #expect(settings.enable && !settings.frame && settings.level == .symbol && settings.devices == ["a"])
        settings = off.applied(to: settings)
        #expect(!settings.enable && !settings.streams("a"))
        #expect(WatchSettings().streams("x") == false, "nothing streams before a WATCH")
        let all = try #require({ if case let .watch(w) = try Request.parse(Array(#"{"class":"WATCH"}"#.utf8)) { w } else { nil } }())
        #expect(all.applied(to: WatchSettings()).streams("anything"), "default WATCH: every device")
    }

    @Test("refuses bad requests with a message naming the field", arguments: [
        (#"{"class":"WATCH","text":"yes"}"#, "WATCH: text must be true or false"),
        (#"{"class":"WATCH","devices":[1]}"#, "WATCH: devices must be an array of strings"),
        (#"{"class":"WATCH","devices":[]}"#, "WATCH: \"devices\" is empty"),
        (#"{"class":"WATCH","enable":false,"enable":true}"#, "duplicate key \"enable\""),
        (#"{"class":"SNAPSHOT","max_width":1}"#, "SNAPSHOT: max_width must be a number from 16 to 16384"),
        (#"{"class":"ORIENTATION","device_orientation":"sideways"}"#, "ORIENTATION: device_orientation must be one of"),
        (#"{"class":"ORIENTATION","rotation":90,"device_orientation":"portrait"}"#, "not both"),
        (#"{"class":42}"#, "request has no \"class\" string"),
        ("\"WATCH\"", "request must be a JSON object"),
    ])
    func refuses(line: String, message: String) {
        do {
            _ = try Request.parse(Array(line.utf8))
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    /// A bounded fuzz run: random bytes, and valid requests with random bytes changed,
    /// inserted or cut. The parser must answer every input with a request or a
    /// RequestError: no crash, no hang. (tests/fuzz/run runs the same idea
    /// longer; CI runs this bounded one on every build.)
    @Test("fuzz: any bytes give a request or a RequestError")
    func fuzz() {
        var generator = SplitMix64(0x4C45_4354_4F52)
        let seeds = [#"{"class":"WATCH","enable":true,"devices":["demo"],"level":"word","min_confidence":0.5}"#,
                     #"{"class":"ORIENTATION","device":"demo","rotation":90,"mirror":true}"#,
                     #"{"class":"SNAPSHOT","device":"demo","boxes":true,"max_width":320}"#,
                     #"{"class":"POLL"}"#, #"[{"a":[1e308,-0.0,"\u00e9\ud83d\ude00"]}]"#].map { Array($0.utf8) }
        var parsed = 0, refused = 0
        for round in 0..<30_000 {
            var input: [UInt8]
            if round % 3 == 0 {
                input = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                input = seeds[Int(generator.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    let position = input.isEmpty ? 0 : Int(generator.next() % UInt64(input.count))
                    switch generator.next() % 4 {
                    case 0 where !input.isEmpty: input[position] = UInt8(truncatingIfNeeded: generator.next())
                    case 1:
                        let alphabet = Array("{}[]\",:\\0e-".utf8)
                        input.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                    case 2 where !input.isEmpty: input.remove(at: position)
                    default: input = Array(input.prefix(position))
                    }
                }
            }
            do {
                _ = try Request.parse(input)
                parsed += 1
            } catch {
                refused += 1
            }
        }
        #expect(parsed + refused == 30_000)
        #expect(parsed > 100 && refused > 10_000, "the mutations hit both outcomes (\(parsed) parsed)")
    }
}


@Suite("Outbound queue")
struct OutboundQueueTests {
    /// Drains the queue through a pretend socket that takes up to `limit` bytes.
    private func drain(_ queue: inout OutboundQueue, limit: Int = .max) -> [String] {
        var taken: [UInt8] = []
        _ = try? queue.flush { buffers throws(SystemError) in
            let before = taken.count
            for buffer in buffers {
                taken += UnsafeRawBufferPointer(start: buffer.iov_base, count: buffer.iov_len).prefix(limit - taken.count)
            }
            return taken.count > before ? .done(taken.count - before) : .wouldBlock
        }
        return String(decoding: taken, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("drops the oldest stream messages, keeps replies, and says how many it dropped")
    func dropsOldest() {
        var queue = OutboundQueue(capacity: 40)
        queue.enqueueStream(Array("s1-xxxxxxx".utf8))  // 11 bytes with newline
        queue.enqueueReply(Array("r1".utf8))
        queue.enqueueStream(Array("s2-xxxxxxx".utf8))
        queue.enqueueStream(Array("s3-xxxxxxx".utf8))  // 11 + 3 + 11 + 11 = 36
        queue.enqueueStream(Array("s4-xxxxxxx".utf8))  // drops s1
        #expect(queue.droppedTotal == 1)
        let lines = drain(&queue)
        #expect(lines == ["r1", "s2-xxxxxxx", "s3-xxxxxxx", #"{"class":"OVERFLOW","dropped":1,"dropped_total":1}"#, "s4-xxxxxxx"])
        #expect(queue.isEmpty && queue.pendingBytes == 0)
    }

    @Test("a client that takes nothing holds at most its capacity: OVERFLOW notices are dropped too, their counts carried")
    func stalledClientStaysBounded() {
        var queue = OutboundQueue(capacity: 4096)
        for index in 0..<10_000 { queue.enqueueStream(Array("stream line \(index) xxxxxxxxxxxxxxxxxxxx".utf8)) }
        #expect(queue.pendingBytes <= 4096 + 80, "\(queue.pendingBytes) bytes pending")
        let lines = drain(&queue)
        let notices = lines.filter { $0.hasPrefix(#"{"class":"OVERFLOW""#) }
        #expect(notices.count == 1, "\(notices.count) notices waiting")
        #expect(queue.droppedTotal + lines.count - notices.count == 10_000, "every message written or counted dropped")
        #expect(notices.last?.contains("\"dropped_total\":\(queue.droppedTotal)") == true, "\(notices.last ?? "")")
    }

    @Test("writes several lines in one call and resumes inside the line where the socket filled", arguments: [1, 4, 5, 8, 9, 11])
    func gatheredPartialWrites(limit: Int) {
        var queue = OutboundQueue(capacity: 1024)
        for line in ["aaa", "bbbb", "c"] { queue.enqueueStream(Array(line.utf8)) }  // 4 + 5 + 2 bytes
        let first = drain(&queue, limit: limit).joined(separator: "|")
        #expect(queue.pendingBytes == 11 - min(limit, 11))
        let rest = drain(&queue).joined(separator: "|")
        #expect((first + "\n" + rest).split(whereSeparator: { $0 == "|" || $0 == "\n" }).joined() == "aaabbbbc",
                "every byte once, in order (\(first) then \(rest))")
        #expect(queue.isEmpty && queue.pendingBytes == 0)
    }

    @Test("never drops a line that has started to be written, nor a reply")
    func keepsPartialHead() {
        var queue = OutboundQueue(capacity: 24)
        queue.enqueueStream(Array("s1-xxxxxxx".utf8))
        #expect(drain(&queue, limit: 4) == ["s1-x"])  // partly written
        queue.enqueueReply(Array("reply-that-is-long".utf8))
        let accepted = queue.enqueueStream(Array("s2".utf8))
        #expect(!accepted, "no room: the new message is dropped")
        #expect(queue.droppedTotal == 1)
        #expect(drain(&queue) == ["xxxxxx", "reply-that-is-long"])
        queue.enqueueStream(Array("s3".utf8))
        #expect(drain(&queue) == [#"{"class":"OVERFLOW","dropped":1,"dropped_total":1}"#, "s3"])
    }
}
