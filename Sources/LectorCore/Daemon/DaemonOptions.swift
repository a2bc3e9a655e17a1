import LectorProtocol
import LectorSystem

/// Where a camera's frames come from.
public enum SourceSpec: Equatable, Sendable {
    /// Frames bundled with Lector, rendered with known text.
    case demo
    case replay(ReplayOptions)
    /// A V4L2 device node (/dev/videoN, /dev/v4l/by-id/…).
    case device(path: String)
}

/// What the user asked a camera's capture to negotiate (V4L2 sources only).
public struct CaptureRequest: Equatable, Sendable {
    public var format: PixelFormat?
    public var size: (width: Int, height: Int)?
    public var fps: Double?
    public var io = "auto"
    /// mmap buffers to ask the driver for (`--buffers`, default 4).
    public var buffers: Int?
    /// Seconds without a frame before the device counts as lost (`--stall-timeout-ms`).
    public var stallTimeout: Double?

    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.format == rhs.format && lhs.fps == rhs.fps && lhs.io == rhs.io
            && lhs.buffers == rhs.buffers && lhs.stallTimeout == rhs.stallTimeout
            && lhs.size?.width == rhs.size?.width && lhs.size?.height == rhs.size?.height
    }
}

/// Everything about one camera.
public struct CameraSpec: Equatable, Sendable {
    public var source: SourceSpec
    public var capture = CaptureRequest()
    public var recognizer = RecognizerOptions()
    public var orientation = OrientationSettings()
    public var live = LiveSettings()

    public init(source: SourceSpec) { self.source = source }
}

/// `lectord`'s command line.
public struct DaemonOptions: Equatable, Sendable {
    public var cameras: [CameraSpec] = []
    /// Print the stream on stdout instead of (or as well as) serving the socket.
    public var stdout = false
    /// Exit 0 after this many recognized frames (over all cameras).
    public var maxFrames: Int?
    public var logLevel = Logger.Level.info
    public var socketPath: String?
    /// Group that may use the socket (name or number).
    public var socketGroup: String?
    /// Keep cameras running when nobody watches (`--stdout` implies it).
    public var alwaysOn = false
    /// Client limits and timeouts of the socket server.
    public var server = SocketServer.Configuration()
    /// `--config FILE`; nil: /etc/lector/lectord.conf when it exists.
    public var configPath: String?
    /// The options given on the command line (e.g. `--rotation`): they override the
    /// configuration file.
    public var givenFlags: Set<String> = []
    /// Camera settings given by flags, applied to every camera (also those of the file).
    public var cameraTemplate = CameraSpec(source: .demo)
    public var showHelp = false
    public var showVersion = false

    public init() {}

    public static let usage = """
    Usage: lectord [options]

    Reads text from live camera frames and publishes it as line-delimited JSON.

    Sources (one of):
      --demo                       Replay the frames bundled with Lector (known text, no camera needed).
      --replay PATH                Replay an image, a directory of images, an MJPEG file or a raw frame file.
      --device PATH                Capture from a V4L2 camera (repeatable).

    Capture (V4L2):
      --format FOURCC              Pixel format to ask the camera for (default: the cheapest to read, see README).
      --io auto|direct|libv4l2     direct: libc calls (works under libcamerify); libv4l2: converted formats (default auto).
      --buffers N                  Driver buffers to map, 2-32 (default 4).
      --stall-timeout-ms N         Treat a camera that delivers nothing for N ms as lost and reopen it (default 3000).

    Replay:
      --replay-format FOURCC       Pixel format of a raw frame file (YUYV, NV12, GREY, ...).
      --size WxH                   Frame size of a raw frame file (or the capture size to ask a camera for).
      --fps N                      Frames per second (replay: default as fast as recognized, losing none).
      --loop                       Replay again from the start after the last frame.

    Orientation (how the captured image is turned upright):
      --device-orientation O       portrait|portrait-upside-down|landscape-left|landscape-right|face-up|face-down|unknown.
      --camera-position P          front|back|external (default back).
      --rotation DEG               0|90|180|270: clockwise degrees that make the captured image upright.
      --mirror                     After the rotation, mirror left-right.

    Recognition:
      --lang LANGS                 Tesseract languages, e.g. eng or eng+deu (default eng).
      --psm N                      Tesseract page segmentation mode, 0-13 (default 3, automatic).
      --downscale auto|1|2         Halve frames before recognition; auto halves only while text is large (default auto).
      --roi X,Y,W,H                Read only this region of the upright image.
      --deadline-ms N              Abandon a frame's recognition after N ms (default 3000).
      --symbols                    Also report individual characters.
      --tessdata PATH              Folder holding the .traineddata files.

    Live text:
      --stack N|off                Average up to N motion-aligned frames of a still scene before reading (default 16).
      --gate off                   Recognize every frame, even when nothing changed since the last one read.
      --track-timeout-ms N         Report a line track gone after N ms unseen (default 1500).
      --refresh-s N                Read a still scene again at least every N seconds (default 10).

    Output:
      --stdout                     Print the stream (TEXT and FRAME lines) on standard output.
      --max-frames N               Exit 0 after N recognized frames.

    Server:
      --socket PATH                Serve the protocol on this Unix socket (default $RUNTIME_DIRECTORY/lector.sock,
                                   /run/lector/lector.sock as root, else $XDG_RUNTIME_DIR/lector.sock).
      --socket-group G             Group that may connect (the socket is mode 0660).
      --always-on                  Recognize even when no client watches (--stdout implies it).
      --max-clients N              Clients served at once (default 32).
      --client-timeout SECONDS     Disconnect a client that takes no data for this long (default 10).
      --client-buffer BYTES        Stream bytes queued per client before the oldest are dropped (default 1048576).
      --config FILE                Configuration file (default /etc/lector/lectord.conf when present).
      --log-level L                debug|info|notice|warning|error (default info).
      --help                       Show this help.
      --version                    Show the version.
    """

    /// Parses `lectord`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var scanner = ArgumentScanner(arguments)
        var sources: [SourceSpec] = []
        var replay: ReplayOptions?
        var template = CameraSpec(source: .demo)
        var replayFormat: PixelFormat?
        var loop = false

        while let argument = scanner.next() {
            options.givenFlags.insert(argument)
            switch argument {
            case "--help", "-h": options.showHelp = try scanner.flag(argument)
            case "--version": options.showVersion = try scanner.flag(argument)
            case "--demo": _ = try scanner.flag(argument); sources.append(.demo)
            case "--replay":
                let path = try scanner.value(for: argument)
                replay = ReplayOptions(path: path)
                sources.append(.replay(ReplayOptions(path: path)))
            case "--device": sources.append(.device(path: try scanner.value(for: argument)))
            case "--replay-format":
                replayFormat = try scanner.choice(for: argument, PixelFormat.init(name:), choices: PixelFormat.allCases.map(\.fourcc))
            case "--format":
                template.capture.format = try scanner.choice(for: argument, PixelFormat.init(name:), choices: PixelFormat.allCases.map(\.fourcc))
            case "--size":
                template.capture.size = try scanner.choice(for: argument, { ValueSyntax.size($0, maximumSide: LumaExtractor.maximumSide) }, choices: ["WxH"])
            case "--fps": template.capture.fps = try scanner.number(for: argument, in: 0.01...1000)
            case "--io": template.capture.io = try scanner.choice(for: argument, { ["auto", "direct", "libv4l2"].contains($0) ? $0 : nil }, choices: ["auto", "direct", "libv4l2"])
            case "--buffers": template.capture.buffers = try scanner.integer(for: argument, in: 2...32)
            case "--stall-timeout-ms": template.capture.stallTimeout = Double(try scanner.integer(for: argument, in: 100...600_000)) / 1000
            case "--loop": loop = try scanner.flag(argument)
            case "--device-orientation":
                template.orientation.deviceOrientation = try scanner.choice(for: argument, DeviceOrientation.init(rawValue:),
                                                                           choices: DeviceOrientation.allCases.map(\.rawValue))
            case "--camera-position":
                template.orientation.cameraPosition = try scanner.choice(for: argument, CameraPosition.init(rawValue:),
                                                                        choices: CameraPosition.allCases.map(\.rawValue))
            case "--rotation": template.orientation.rotation = try scanner.choice(for: argument, ValueSyntax.rotation, choices: ["0", "90", "180", "270"])
            case "--mirror": template.orientation.mirror = try scanner.flag(argument)
            case "--lang":
                let language = try scanner.value(for: argument)
                guard !language.isEmpty, language.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "_" }) else {
                    throw UsageError("--lang must look like eng or eng+deu, not '\(language)'")
                }
                template.recognizer.language = language
            case "--psm": template.recognizer.pageSegmentation = try scanner.integer(for: argument, in: 0...13)
            case "--downscale": template.recognizer.downscale = try scanner.choice(for: argument, Downscale.init, choices: ["auto", "1", "2"])
            case "--roi": template.recognizer.regionOfInterest = try scanner.choice(for: argument, ValueSyntax.box, choices: ["X,Y,W,H"])
            case "--deadline-ms": template.recognizer.deadlineMilliseconds = try scanner.integer(for: argument, in: 10...600_000)
            case "--symbols": template.recognizer.symbols = try scanner.flag(argument)
            case "--tessdata": template.recognizer.dataPath = try scanner.value(for: argument)
            case "--stack":
                template.live.stack = try scanner.choice(for: argument, { $0 == "off" ? .some(nil) : Int($0).flatMap { (1...LiveSettings.maximumStack).contains($0) ? .some($0) : nil } },
                                                         choices: ["off", "1-\(LiveSettings.maximumStack)"])
            case "--gate": template.live.gate = try scanner.choice(for: argument, { ["on": true, "off": false][$0] }, choices: ["on", "off"])
            case "--track-timeout-ms": template.live.tracks.timeoutMilliseconds = Double(try scanner.integer(for: argument, in: 100...600_000))
            case "--refresh-s": template.live.refreshSeconds = try scanner.number(for: argument, in: 0.1...86400)
            case "--stdout": options.stdout = try scanner.flag(argument)
            case "--max-frames": options.maxFrames = try scanner.integer(for: argument, in: 1...Int(Int32.max))
            case "--log-level":
                options.logLevel = try scanner.choice(for: argument, Logger.Level.init(name:), choices: Logger.Level.allCases.map(\.name))
            case "--socket": options.socketPath = try scanner.value(for: argument)
            case "--socket-group": options.socketGroup = try scanner.value(for: argument)
            case "--always-on": options.alwaysOn = try scanner.flag(argument)
            case "--max-clients": options.server.maximumClients = try scanner.integer(for: argument, in: 1...4096)
            case "--client-timeout": options.server.clientTimeout = try scanner.number(for: argument, in: 0.1...86400)
            case "--client-buffer": options.server.clientBufferBytes = try scanner.integer(for: argument, in: 4096...(1 << 30))
            case "--config": options.configPath = try scanner.value(for: argument)
            default:
                throw UsageError(argument.hasPrefix("-") ? "unknown option \(argument)" : "unexpected argument '\(argument)'")
            }
        }
        if options.showHelp || options.showVersion { return options }
        if replay == nil && replayFormat != nil { throw UsageError("--replay-format goes with --replay") }
        if (template.orientation.rotation != nil || template.orientation.mirror != nil),
           template.orientation.deviceOrientation != nil {
            throw UsageError("give either --rotation/--mirror or --device-orientation, not both")
        }
        options.cameraTemplate = template
        // No source: the configuration file must name the cameras (see merged(with:)).
        options.cameras = sources.map { template.with(source: $0, loop: loop, rawFormat: replayFormat) }
        let names = options.cameras.map(\.name)
        if Set(names).count != names.count { throw UsageError("a source is given twice") }
        return options
    }

    /// Camera settings a flag sets, copied from the flags' template onto a camera of
    /// the configuration file.
    private static let cameraFlags: [String: @Sendable (inout CameraSpec, CameraSpec) -> Void] = [
        "--format": { $0.capture.format = $1.capture.format },
        "--size": { $0.capture.size = $1.capture.size },
        "--fps": { $0.capture.fps = $1.capture.fps },
        "--io": { $0.capture.io = $1.capture.io },
        "--device-orientation": { $0.orientation.deviceOrientation = $1.orientation.deviceOrientation
            $0.orientation.rotation = nil
            $0.orientation.mirror = nil },
        "--camera-position": { $0.orientation.cameraPosition = $1.orientation.cameraPosition },
        "--rotation": { $0.orientation.rotation = $1.orientation.rotation
            $0.orientation.deviceOrientation = nil },
        "--mirror": { $0.orientation.mirror = $1.orientation.mirror
            $0.orientation.deviceOrientation = nil },
        "--lang": { $0.recognizer.language = $1.recognizer.language },
        "--psm": { $0.recognizer.pageSegmentation = $1.recognizer.pageSegmentation },
        "--downscale": { $0.recognizer.downscale = $1.recognizer.downscale },
        "--roi": { $0.recognizer.regionOfInterest = $1.recognizer.regionOfInterest },
        "--deadline-ms": { $0.recognizer.deadlineMilliseconds = $1.recognizer.deadlineMilliseconds },
        "--symbols": { $0.recognizer.symbols = $1.recognizer.symbols },
        "--tessdata": { $0.recognizer.dataPath = $1.recognizer.dataPath },
        "--stack": { $0.live.stack = $1.live.stack },
        "--gate": { $0.live.gate = $1.live.gate },
        "--track-timeout-ms": { $0.live.tracks.timeoutMilliseconds = $1.live.tracks.timeoutMilliseconds },
        "--refresh-s": { $0.live.refreshSeconds = $1.live.refreshSeconds },
    ]

    /// These options with the configuration file's settings filled in where no flag
    /// was given. Sources given by flags replace the file's cameras; camera flags apply
    /// to the file's cameras too.
    /// - Throws: when neither flags nor the file name a source.
    public func merged(with config: ConfigFile?) throws(UsageError) -> DaemonOptions {
        var options = self
        if let config {
            func given(_ flag: String) -> Bool { givenFlags.contains(flag) }
            if !given("--socket"), let value = config.socketPath { options.socketPath = value }
            if !given("--socket-group"), let value = config.socketGroup { options.socketGroup = value }
            if !given("--always-on"), let value = config.alwaysOn { options.alwaysOn = value }
            if !given("--max-clients"), let value = config.maximumClients { options.server.maximumClients = value }
            if !given("--client-timeout"), let value = config.clientTimeout { options.server.clientTimeout = value }
            if !given("--client-buffer"), let value = config.clientBufferBytes { options.server.clientBufferBytes = value }
            if !given("--log-level"), let value = config.logLevel { options.logLevel = value }
            if options.cameras.isEmpty {
                options.cameras = config.cameras.map { camera in
                    var camera = camera
                    for flag in givenFlags.sorted() { Self.cameraFlags[flag]?(&camera, cameraTemplate) }
                    if case var .replay(replay) = camera.source, given("--fps") || given("--loop") {
                        replay.fps = camera.capture.fps
                        if given("--loop") { replay.loop = true }
                        camera.source = .replay(replay)
                    }
                    return camera
                }
            }
        }
        guard !options.cameras.isEmpty else {
            throw UsageError("no source: give --demo, --replay PATH or --device PATH, or cameras in a configuration file")
        }
        let names = options.cameras.map(\.name)
        if Set(names).count != names.count { throw UsageError("a camera is given twice") }
        return options
    }
}

extension CameraSpec {
    /// These settings for `source`. A replay takes its pacing (`fps`), raw frame size and
    /// `loop` from them, and `rawFormat` when one is given.
    public func with(source: SourceSpec, loop: Bool, rawFormat: PixelFormat? = nil) -> CameraSpec {
        var camera = self
        camera.source = source
        if case var .replay(replay) = source {
            replay.fps = capture.fps
            replay.loop = loop
            replay.rawSize = capture.size
            if let rawFormat { replay.rawFormat = rawFormat }
            camera.source = .replay(replay)
        }
        return camera
    }

    /// The device name used in messages.
    public var name: String {
        switch source {
        case .demo: "demo"
        case let .replay(options): options.path
        case let .device(path): path
        }
    }
}
