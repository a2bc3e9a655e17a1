@testable import LectorCapture
@testable import LectorDaemon
@testable import LectorProtocol
@testable import LectorSystem
import LectorTestSupport
import Testing

@Suite("Configuration file")
struct ConfigFileTests {
    static let sample = """
    # lectord.conf
    socket = /run/lector/lector.sock   # daemon keys first
    socket_group = video
    max_clients = 8
    client_timeout = 2.5
    log_level = debug

    [camera front]
    device = /dev/video0
    format = MJPG
    size = 1280x720
    fps = 15
    io = libv4l2
    device_orientation = portrait
    camera_position = front
    lang = eng+deu
    psm = 6
    roi = 10,20,300,100
    downscale = 2

    [camera]
    replay = /tmp/frames
    loop = yes
    fps = 2
    rotation = 90
    mirror = true
    """

    @Test("reads daemon keys and a section per camera")
    func parses() throws {
        let config = try ConfigFile.parse(Self.sample, path: "lectord.conf")
        #expect(config.socketPath == "/run/lector/lector.sock" && config.socketGroup == "video")
        #expect(config.maximumClients == 8 && config.clientTimeout == 2.5 && config.logLevel == .debug)
        #expect(config.cameras.count == 2)
        let front = config.cameras[0]
        #expect(front.source == .device(path: "/dev/video0"))
        #expect(front.capture.format == .mjpeg && front.capture.size?.width == 1280 && front.capture.fps == 15 && front.capture.io == "libv4l2")
        #expect(front.orientation.imageOrientation == .leftMirrored)
        #expect(front.recognizer.language == "eng+deu" && front.recognizer.pageSegmentation == 6 && front.recognizer.downscale == .half)
        #expect(front.recognizer.regionOfInterest == PixelBox(x: 10, y: 20, width: 300, height: 100))
        #expect(config.cameras[1].source == .replay(ReplayOptions(path: "/tmp/frames", fps: 2, loop: true)))
        #expect(config.cameras[1].orientation.imageOrientation == .leftMirrored)
    }

    @Test("names file, line and key of a mistake", arguments: [
        ("max_clients = many", "c.conf:1: max_clients: must be a whole number from 1 to 4096, not 'many'"),
        ("[camera]\ndevice = /dev/video0\nsize = big", "c.conf:3: size: must be WxH with each side from 1 to 16384 pixels"),
        ("[camera]\ndevice = /dev/video0\nrotation = 45", "c.conf:3: rotation: must be one of 0|90|180|270|auto, not '45'"),
        ("[camera]\ndevice = /dev/video0\ncolour = red", "c.conf:3: colour: unknown camera key"),
        ("fps = 5", "c.conf:1: fps: unknown daemon key (a camera key: put it under [camera])"),
        ("[camera]\nfps = 5", "c.conf:1: [camera] needs device = PATH"),
        ("[camera]\ndevice = a\nreplay = b", "c.conf:3: replay: a camera has one source"),
        ("[cameras]", "c.conf:1: unknown section [cameras]"),
        ("just words", "c.conf:1: expected 'key = value'"),
        ("[camera]\ndevice = a\nrotation = 90\ndevice_orientation = portrait", "c.conf:1: rotation: give either"),
    ])
    func refuses(text: String, expected: String) {
        do {
            _ = try ConfigFile.parse(text, path: "c.conf")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error)")
        }
    }

    @Test("flags override the file")
    func flagsOverride() throws {
        let config = try ConfigFile.parse(Self.sample, path: "lectord.conf")
        let flags = try DaemonOptions.parse(["--socket", "/tmp/x.sock", "--rotation", "180", "--psm", "3"])
        let merged = try flags.merged(with: config)
        #expect(merged.socketPath == "/tmp/x.sock", "--socket wins")
        #expect(merged.socketGroup == "video" && merged.server.maximumClients == 8, "the file fills the rest")
        #expect(merged.cameras.count == 2)
        #expect(merged.cameras.allSatisfy { $0.orientation.imageOrientation.rotation == 180 && $0.recognizer.pageSegmentation == 3 })
        #expect(merged.cameras[0].recognizer.language == "eng+deu", "what no flag names stays")
        let sources = try DaemonOptions.parse(["--demo"]).merged(with: config)
        #expect(sources.cameras.map(\.name) == ["demo"], "sources given by flags replace the file's cameras")
        #expect(throws: UsageError.self) { try DaemonOptions.parse([]).merged(with: nil) }
    }
}
