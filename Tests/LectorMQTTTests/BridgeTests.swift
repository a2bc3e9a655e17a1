import Foundation
import LectorProtocol
import LectorSystem
import Testing
@testable import LectorMQTT

@Suite("Topic levels")
struct TopicLevelTests {
    @Test(arguments: [
        ("/dev/video0", "dev_video0"),
        ("demo", "demo"),
        ("/dev/v4l/by-id/usb-HD_Webcam-video-index0", "dev_v4l_by-id_usb-HD_Webcam-video-index0"),
        ("front door", "front_door"),
        ("a+b#c/d", "a_b_c_d"),
        ("Küche", "K_che"),
        ("///", "_"),
        ("", "_"),
    ])
    func safe(name: String, level: String) {
        #expect(TopicLevel.safe(name) == level, "\(name) as a topic level")
        #expect(!level.contains("+") && !level.contains("#") && !level.contains("/"))
    }

    @Test("cameras whose names make the same level: the same levels whatever their order", arguments: [
        ["a.b", "a_b"],
        ["a.b", "a b", "a_b"],
        ["a.b", "a b"],
        ["/dev/video0", "dev_video0", "demo"],
    ])
    func collisions(cameras: [String]) {
        let levels = TopicLevel.levels(of: cameras)
        for order in [cameras.reversed(), cameras.sorted(), cameras.shuffled()] as [[String]] {
            #expect(TopicLevel.levels(of: order) == levels, "the same levels for \(order)")
        }
        #expect(Set(levels.values).count == cameras.count, "each camera a level of its own: \(levels)")
        for name in cameras where TopicLevel.safe(name) == name {
            #expect(levels[name] == name, "\(name) keeps its own name as its level")
        }
        for name in cameras where TopicLevel.safe(name) != name {
            #expect(levels[name] == TopicLevel.safe(name) + "_" + TopicLevel.fingerprint(name), "\(name): its level and its hash")
        }
    }

    @Test("a camera alone keeps its safe level; the hash is stable")
    func alone() {
        #expect(TopicLevel.levels(of: ["/dev/video0", "demo"]) == ["/dev/video0": "dev_video0", "demo": "demo"])
        #expect(TopicLevel.fingerprint("a.b") == "108bf5", "FNV-1a of a.b, its first 6 hex digits")
    }
}

@Suite("Broker URLs")
struct BrokerAddressTests {
    @Test(arguments: [
        ("mqtt://localhost", "localhost", 1883, false),
        ("mqtt://broker.lan:1884", "broker.lan", 1884, false),
        ("mqtts://broker.lan", "broker.lan", 8883, true),
        ("mqtts://10.0.0.2:9883/", "10.0.0.2", 9883, true),
        ("mqtt://[::1]:1885", "::1", 1885, false),
    ])
    func parses(url: String, host: String, port: Int, tls: Bool) {
        #expect(BrokerAddress(url: url) == BrokerAddress(host: host, port: port, tls: tls), "\(url)")
    }

    @Test(arguments: ["http://x", "mqtt://", "mqtt://host:0", "mqtt://host:99999", "mqtt://user@host", "mqtt://h/x", "localhost"])
    func refuses(url: String) {
        #expect(BrokerAddress(url: url) == nil, "\(url) should be refused")
    }
}

@Suite("mqtt.conf and flags")
struct BridgeSettingsTests {
    @Test func parsesAFile() throws {
        let settings = try BridgeConfigFile.parse("""
        # broker
        broker = mqtts://broker.lan   # a comment
        username = lector
        password-file = /etc/lector/mqtt.password
        qos = 1
        discovery = off
        status_interval = 2.5
        """, path: "mqtt.conf")
        #expect(settings.broker == BrokerAddress(host: "broker.lan", port: 8883, tls: true))
        #expect(settings.username == "lector" && settings.passwordFile == "/etc/lector/mqtt.password")
        #expect(settings.qos == 1 && settings.discovery == false && settings.statusInterval == 2.5)
    }

    @Test(arguments: [
        ("qos = 3", "mqtt.conf:1: qos: must be a whole number from 0 to 2, not '3'"),
        ("\nbroker = http://x", "mqtt.conf:2: broker: must be mqtt://HOST[:PORT] or mqtts://HOST[:PORT], not 'http://x'"),
        ("password = x", "mqtt.conf:1: password: write the password into a file of its own and name it with password_file"),
        ("colour = blue", "mqtt.conf:1: colour: unknown key; known: socket, broker, port, client_id, username, password_file, ca_file, ca_path, cert_file, key_file, prefix, hostname, discovery, discovery_prefix, codes, qos, status_interval, keepalive, queue_size, log_level"),
        ("prefix = a/#", "mqtt.conf:1: prefix: must be topic levels without +, # or a leading/trailing /, not 'a/#'"),
        ("qos = 1\nqos = 2", "mqtt.conf:2: qos: given twice (first on line 1)"),
        ("[mqtt]", "mqtt.conf:1: mqtt.conf has no sections; write key = value lines"),
        ("broker", "mqtt.conf:1: expected 'key = value'"),
    ])
    func refusesMistakes(text: String, message: String) {
        #expect(throws: ConfigError.self) { try BridgeConfigFile.parse(text, path: "mqtt.conf") }
        do {
            _ = try BridgeConfigFile.parse(text, path: "mqtt.conf")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func flagsOverrideTheFile() throws {
        let file = try BridgeConfigFile.parse("prefix = home\nhostname = attic\nqos = 1", path: "f")
        let flags = try BridgeOptions.parse(["--hostname", "cellar", "--broker=mqtt://b:1999", "--discovery", "off"])
        let merged = file.overriding(flags.settings)
        #expect(merged.prefix == "home" && merged.hostname == "cellar" && merged.qos == 1 && merged.discovery == false)
        let configuration = try BridgeConfiguration(merged, environment: [:], machineName: "ignored")
        #expect(configuration.root == "home/cellar" && configuration.availabilityTopic == "home/cellar/availability")
        #expect(configuration.broker == BrokerAddress(host: "b", port: 1999, tls: false))
        #expect(configuration.clientID == "lector-mqtt-cellar")
    }

    @Test func defaults() throws {
        let configuration = try BridgeConfiguration(BridgeSettings(), environment: ["LECTOR_SOCKET": "/tmp/l.sock"],
                                                    machineName: "pi.local")
        #expect(configuration.socketPath == "/tmp/l.sock" && configuration.root == "lector/pi_local")
        #expect(configuration.broker == BrokerAddress(host: "localhost", port: 1883, tls: false))
        #expect(configuration.qos == 0 && configuration.statusInterval == 10 && configuration.discovery && configuration.codes)
    }

    @Test(arguments: [
        (["--password", "x"], "--password would show the password to every user (ps); use --password-file FILE"),
        (["--qos", "5"], "--qos must be a whole number from 0 to 2, not '5'"),
        (["--frobnicate"], "unknown option --frobnicate"),
        (["--status-interval", "0"], "--status-interval must be a number of seconds from 0.1 to 86400, not '0'"),
    ])
    func refusesFlags(arguments: [String], message: String) {
        do {
            _ = try BridgeOptions.parse(arguments)
            Issue.record("\(arguments) accepted")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func passwordFromASystemdCredential() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-mqtt-credentials-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "s3cret pass\n".write(to: directory.appendingPathComponent("mqtt-password"), atomically: true, encoding: .utf8)
        var settings = BridgeSettings()
        settings.username = "lector"
        let configuration = try BridgeConfiguration(settings, environment: ["CREDENTIALS_DIRECTORY": directory.path],
                                                    machineName: "x")
        #expect(configuration.password == "s3cret pass", "the credential's first line, without its newline")
        settings.username = nil
        #expect(throws: BridgeSetupError.self, "a password without a user name") {
            try BridgeConfiguration(settings, environment: ["CREDENTIALS_DIRECTORY": directory.path], machineName: "x")
        }
    }

    @Test func tlsFilesNeedMqtts() throws {
        var settings = BridgeSettings()
        settings.caFile = "/etc/hostname"
        #expect(throws: BridgeSetupError.self) { try BridgeConfiguration(settings, environment: [:], machineName: "x") }
        settings.broker = BrokerAddress(url: "mqtts://b")
        let configuration = try BridgeConfiguration(settings, environment: [:], machineName: "x")
        #expect(configuration.broker.port == 8883 && configuration.caFile == "/etc/hostname")
    }
}

@Suite("Publish queue")
struct PublishQueueTests {
    func message(_ topic: String, _ payload: String, _ kind: OutboundMessage.Kind, retain: Bool = true) -> OutboundMessage {
        OutboundMessage(topic: topic, payload: Array(payload.utf8), qos: 0, retain: retain, kind: kind)
    }

    @Test func newerRetainedValueReplacesTheQueuedOne() {
        var queue = PublishQueue(capacity: 10)
        queue.enqueue(message("a/text", "1", .state))
        queue.enqueue(message("a/status", "s", .state))
        queue.enqueue(message("a/text", "2", .state))
        #expect(queue.topics == ["a/status", "a/text"])
        #expect(queue.count == 2 && queue.dropped == 0)
        queue.removeFirst()
        #expect(queue.first?.payload == Array("2".utf8), "only the newest text is published")
    }

    @Test func dropsOldestStateFirstThenEventsNeverControl() {
        var queue = PublishQueue(capacity: 3)
        queue.enqueue(message("availability", "online", .control))
        queue.enqueue(message("a/track", "t1", .event, retain: false))
        queue.enqueue(message("a/text", "x", .state))
        queue.enqueue(message("b/text", "y", .state))
        #expect(queue.topics == ["availability", "a/track", "b/text"], "the oldest state message went first")
        queue.enqueue(message("a/track", "t2", .event, retain: false))
        #expect(queue.topics == ["availability", "a/track", "a/track"])
        queue.enqueue(message("a/track", "t3", .event, retain: false))
        #expect(queue.topics == ["availability", "a/track", "a/track"])
        #expect(queue.dropped == 3)
        for index in 0..<5 { queue.enqueue(message("config\(index)", "{}", .control)) }
        #expect(queue.count == 6 && queue.topics.filter { $0.hasPrefix("config") }.count == 5, "control messages are kept")
    }

    /// Discovery fills a small queue while the broker is away: the camera's text, dropped
    /// then, is still published once there is room, unless a newer text replaced it.
    @Test func droppedRetainedValuesComeBackWhenThereIsRoom() {
        var queue = PublishQueue(capacity: 2)
        queue.enqueue(message("config0", "{}", .control))
        queue.enqueue(message("config1", "{}", .control))
        queue.enqueue(message("a/text", "still", .state))
        queue.enqueue(message("a/status", "s1", .state))
        queue.enqueue(message("a/track", "t", .event, retain: false))
        #expect(queue.topics == ["config0", "config1"] && queue.dropped == 3)
        queue.enqueue(message("a/status", "s2", .state))
        #expect(queue.topics == ["config0", "config1"] && queue.dropped == 4)
        #expect(queue.removeFirst()?.topic == "config0")
        #expect(queue.topics == ["config1", "a/text"])
        #expect(queue.removeFirst()?.topic == "config1")
        #expect(queue.topics == ["a/text", "a/status"], "the values set aside come back; the event does not")
        #expect(queue.removeFirst()?.payload == Array("still".utf8))
        #expect(queue.removeFirst()?.payload == Array("s2".utf8), "the newest status, never s1")
        #expect(queue.isEmpty)
    }
}

@Suite("Camera text")
struct CameraTextTests {
    func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func lastTextWithoutTracks() throws {
        var text = CameraText()
        text.apply(text: try parse(#"{"class":"TEXT","device":"d","text":"HELLO\nWORLD"}"#))
        #expect(text.current == "HELLO\nWORLD")
    }

    @Test func settledTracksInReadingOrder() throws {
        var text = CameraText()
        text.apply(text: try parse(#"{"class":"TEXT","text":"H3LLO"}"#))
        text.apply(track: try parse(#"{"class":"TRACK","id":7,"event":"new","text":"WORLD","box":{"x":5,"y":40}}"#))
        text.apply(track: try parse(#"{"class":"TRACK","id":"a","event":"new","text":"HELLO","box":{"x":5,"y":10}}"#))
        #expect(text.current == "HELLO\nWORLD")
        text.apply(track: try parse(#"{"class":"TRACK","id":7,"event":"changed","text":"WORLD!"}"#))
        #expect(text.current == "HELLO\nWORLD!", "a change keeps the track's place")
        text.apply(track: try parse(#"{"class":"TRACK","id":"a","event":"gone"}"#))
        text.apply(track: try parse(#"{"class":"TRACK","id":7,"event":"gone"}"#))
        #expect(text.trackCount == 0 && text.current == "H3LLO", "without tracks: the last TEXT again")
    }
}

@Suite("Live text mode")
struct LiveTextModeTests {
    @Test("a command names a mode", arguments: [("settled", LiveTextMode.settled), ("every frame", .everyFrame),
                                                ("every_frame", .everyFrame), (" Settled\n", .settled)])
    func commandNamesMode(payload: String, mode: LiveTextMode) {
        #expect(LiveTextMode(command: payload) == mode)
    }

    @Test("an unknown command names none", arguments: ["", "raw", "{\"mode\":\"settled\"}"])
    func unknownCommand(payload: String) {
        #expect(LiveTextMode(command: payload) == nil)
    }

    @Test func everyFrameIgnoresTracks() throws {
        var text = CameraText()
        text.apply(text: try JSONParser.parse(#"{"class":"TEXT","text":"H3LLO"}"#))
        text.apply(track: try JSONParser.parse(#"{"class":"TRACK","id":1,"event":"new","text":"HELLO"}"#))
        #expect(text.current == "HELLO")
        text.mode = .everyFrame
        #expect(text.current == "H3LLO", "every frame: the last TEXT even with settled tracks")
    }
}

@Suite("Home Assistant discovery")
struct DiscoveryTests {
    @Test func sevenEntitiesOfOneDevice() {
        let discovery = Discovery(discoveryPrefix: "homeassistant", root: "lector/pi", hostname: "pi")
        let configs = discovery.configs(camera: "dev_video0", device: "/dev/video0", release: "0.1.0")
        #expect(configs.map(\.topic) == [
            "homeassistant/sensor/lector_pi_dev_video0/text/config",
            "homeassistant/sensor/lector_pi_dev_video0/recognize_fps/config",
            "homeassistant/binary_sensor/lector_pi_dev_video0/streaming/config",
            "homeassistant/image/lector_pi_dev_video0/snapshot/config",
            "homeassistant/select/lector_pi_dev_video0/rotation/config",
            "homeassistant/button/lector_pi_dev_video0/take_snapshot/config",
            "homeassistant/select/lector_pi_dev_video0/live_text/config",
        ])
        for (_, payload) in configs {
            #expect(payload["device"]?["identifiers"] == .array([.string("lector_pi_dev_video0")]))
            #expect(payload["device"]?["sw_version"]?.stringValue == "0.1.0")
            #expect(payload["availability_topic"]?.stringValue == "lector/pi/availability")
        }
        #expect(configs[0].payload["state_topic"]?.stringValue == "lector/pi/dev_video0/text")
        #expect(configs[0].payload["value_template"]?.stringValue?.contains("value[:254] }}…") == true)
        #expect(configs[3].payload["image_topic"]?.stringValue == "lector/pi/dev_video0/snapshot")
        #expect(configs[4].payload["command_topic"]?.stringValue == "lector/pi/dev_video0/orientation/set")
        #expect(configs[4].payload["options"] == .array(["0", "90", "180", "270", "auto"].map { .string($0) }))
        #expect(configs[5].payload["command_topic"]?.stringValue == "lector/pi/dev_video0/snapshot/get")
        #expect(configs[6].payload["state_topic"]?.stringValue == "lector/pi/dev_video0/live_text")
        #expect(discovery.configTopics(camera: "dev_video0") == configs.map(\.topic))
    }

    @Test("a camera's codes: a sensor of the last code and an event per appearance, a type per format")
    func codeEntities() {
        let discovery = Discovery(discoveryPrefix: "homeassistant", root: "lector/pi", hostname: "pi")
        let configs = discovery.codeConfigs(camera: "door", device: "door", release: "0.1.0")
        #expect(configs.map(\.topic) == ["homeassistant/sensor/lector_pi_door/code/config",
                                          "homeassistant/event/lector_pi_door/code_seen/config"])
        let sensor = configs[0].payload, event = configs[1].payload
        #expect(sensor["state_topic"]?.stringValue == "lector/pi/door/code")
        #expect(sensor["json_attributes_topic"]?.stringValue == "lector/pi/door/code")
        #expect(sensor["value_template"]?.stringValue?.contains("t[:254] }}…") == true)
        #expect(sensor["unique_id"]?.stringValue == "lector_pi_door_code")
        #expect(event["state_topic"]?.stringValue == "lector/pi/door/code/event")
        #expect(event["event_types"]?.arrayValue?.count == CodeFormat.allCases.count)
        #expect(event["event_types"]?.arrayValue?.first?.stringValue == "qr")
        #expect(event["value_template"]?.stringValue?.contains("'event_type': s.get('format')") == true)
        #expect(event["device"] == sensor["device"])
        #expect(discovery.codeConfigTopics(camera: "door") == configs.map(\.topic))
        // Not among the camera's other entities: announced only while codes are published.
        #expect(Set(discovery.configTopics(camera: "door")).isDisjoint(with: configs.map(\.topic)))
    }
}

@Suite("Stream messages the bridge follows")
struct StreamMessageTests {
    @Test("CODE is followed by its device; without one it is not", arguments: [
        (#"{"class":"CODE","device":"door","format":"qr","text":"x"}"#, "door"),
        (#"{"class":"CODE","format":"qr","text":"x"}"#, nil),
    ] as [(String, String?)])
    func code(line: String, device: String?) throws {
        let message = StreamMessage(json: try JSONParser.parse(line), protocolMinor: 14)
        if case let .code(followed) = message {
            #expect(followed == device)
        } else {
            #expect(device == nil && message == nil)
        }
    }

    @Test("DEVICES says which cameras read codes (proto_minor 15); before 15 every camera is taken to", arguments: [
        (#","codes":["qr","ean13"]"#, 15, true),
        (#","codes":[]"#, 15, false),
        ("", 15, false),
        ("", 14, true),
    ] as [(String, Int, Bool)])
    func readsCodes(member: String, protocolMinor: Int, reads: Bool) throws {
        let line = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/video0","name":"door","state":"streaming""#
            + member + "}]}"
        guard case let .devices(listings) = StreamMessage(json: try JSONParser.parse(line), protocolMinor: protocolMinor) else {
            Issue.record("DEVICES not followed")
            return
        }
        #expect(listings.map(\.device) == [protocolMinor >= 5 ? "door" : "/dev/video0"])
        #expect(listings.map(\.readsCodes) == [reads])
    }
}

/// lector-mqtt's one option table: each option with a file key means the same as a flag
/// and in mqtt.conf, and `--help` lists every option.
@Suite("lector-mqtt's option table")
struct BridgeOptionTableTests {
    static let keyed = BridgeOptionTable.options.filter { $0.key != nil }.map(\.flag)

    @Test("a flag and its mqtt.conf key set the same", arguments: keyed)
    func flagAndKeyAgree(flag: String) throws {
        let option = try #require(BridgeOptionTable.table.option(flag: flag))
        let key = try #require(option.key)
        let fromFlag = try BridgeOptions.parse([flag, option.spec.example]).settings
        let fromFile = try BridgeConfigFile.parse("\(key) = \(option.spec.example)", path: "mqtt.conf")
        #expect(fromFlag == fromFile, "\(flag)")
        #expect(fromFlag != BridgeSettings(), "\(flag) \(option.spec.example) changes nothing")
        #expect(BridgeSettings().overriding(fromFlag) == fromFlag, "\(flag) overrides the file")
    }

    @Test("--help lists each option with its value and help", arguments: BridgeOptionTable.options.map(\.flag))
    func helpListsOption(flag: String) throws {
        let option = try #require(BridgeOptionTable.table.option(flag: flag))
        let line = try #require(BridgeOptions.usage.split(separator: "\n").first { $0.hasPrefix("  \(option.spec.synopsis) ") })
        #expect(line.hasSuffix(option.spec.help))
    }
}
