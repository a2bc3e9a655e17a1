import LectorCapture
import LectorImaging
import LectorLive
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorServer
import LectorSystem

/// Where a camera's frames come from.
public enum SourceSpec: Equatable, Sendable {
    /// Frames bundled with Lector, rendered with known text.
    case demo
    case replay(ReplayOptions)
    /// A V4L2 device node (/dev/videoN, /dev/v4l/by-id/…).
    case device(path: String)
    /// A network camera (RTSP, HTTP MJPEG, HTTP snapshots).
    case network(NetworkCameraURL)
}

/// Everything about one camera.
public struct CameraSpec: Equatable, Sendable {
    public var source: SourceSpec
    public var capture = CaptureRequest()
    public var recognizer = RecognizerOptions()
    /// `--recognizers`: recognizer threads (Tesseract engines) for this camera.
    public var recognizers = RecognizerCount.auto
    public var orientation = OrientationSettings()
    /// Stacking, change gate, line tracks.
    public var live = LiveSettings()
    /// The camera's own name (`[camera NAME]`, `--name`): its `device` in messages and
    /// requests; nil: the source's path names it.
    public var label: String?
    /// Rules on its text (`[rule CAMERA/…]`); its zones are ``RecognizerOptions/zones``.
    public var rules: [RuleSpec] = []

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
    /// The options given on the command line, by flag (e.g. `--rotation`): they
    /// override the configuration file.
    public var givenFlags: Set<String> = []
    /// Camera settings given by flags, applied to every camera (also those of the file).
    public var cameraSettings = CameraSettings()
    public var showHelp = false
    public var showVersion = false
    /// `--check-config`: validate, print what would run, exit.
    public var checkConfig = false
    /// `--record DIR`: keep the captured frames there.
    public var recordDirectory: String?
    /// `--record-max-mb`: the bound of the recorded frames, in megabytes.
    public var recordMaximumMegabytes = 500
    /// `--evidence DIR` (`evidence_dir`): keep each accepted MATCH's frame and crop there.
    public var evidenceDirectory: String?
    /// `--evidence-max-mb`: the bound of the evidence files, in megabytes.
    public var evidenceMaximumMegabytes = 500.0
    /// `--evidence-keep-days`: evidence older than this is deleted.
    public var evidenceKeepDays = 30.0
    /// `--history PATH`: the SQLite database every MATCH is kept in.
    public var historyPath: String?
    /// `--history-keep-days`: readings older than this leave the history.
    public var historyKeepDays = 365.0

    public init() {}

    /// `lectord --help`, generated from ``DaemonOptionTable``.
    public static var usage: String { DaemonOptionTable.usage }

    /// Parses `lectord`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var settings = CameraSettings()
        var scanner = ArgumentScanner(arguments)
        while let argument = scanner.next() {
            guard let option = DaemonOptionTable.option(flag: argument) else {
                throw UsageError(argument.hasPrefix("-") ? "unknown option \(argument)" : "unexpected argument '\(argument)'")
            }
            options.givenFlags.insert(option.flag)
            let text = option.isSwitch ? String(try scanner.flag(argument)) : try scanner.value(for: argument)
            do {
                try option.set(text, daemon: &options, camera: &settings)
            } catch {
                throw UsageError("\(argument) \(error.message)")
            }
        }
        if options.showHelp || options.showVersion { return options }
        if let (_, message) = DaemonOptionTable.violation(given: options.givenFlags, name: \.flag) { throw UsageError(message) }
        if settings.pendingLabel != nil { throw UsageError("--name names the camera given just before it: put it after --device, --replay or --demo") }
        options.cameraSettings = settings
        // No source: the configuration file must name the cameras (see merged(with:)).
        options.cameras = settings.cameras()
        let names = options.cameras.map(\.name)
        if Set(names).count != names.count { throw UsageError("a source is given twice") }
        return options
    }

    /// These options with the configuration file's settings filled in where no flag
    /// was given. Sources given by flags replace the file's cameras; camera flags apply
    /// to the file's cameras too (and clear what they exclude there, e.g. `--rotation`
    /// a camera's `device_orientation`).
    /// - Throws: when neither flags nor the file name a source.
    public func merged(with config: ConfigFile?) throws(UsageError) -> DaemonOptions {
        var options = self
        if let config {
            for option in DaemonOptionTable.options where !givenFlags.contains(option.flag) {
                guard case let .daemon(access) = option.target, let key = option.key, config.givenKeys.contains(key) else { continue }
                access.copy(&options, config.daemon)
            }
            if options.cameras.isEmpty {
                options.cameras = config.sections.flatMap { section in
                    var camera = section.settings
                    for option in DaemonOptionTable.options where givenFlags.contains(option.flag) {
                        guard case let .camera(access) = option.target else { continue }
                        for cleared in DaemonOptionTable.cleared(by: option.flag) {
                            if case let .camera(other) = cleared.target { other.copy(&camera, CameraSettings()) }
                        }
                        access.copy(&camera, cameraSettings)
                    }
                    return camera.cameras()
                }
            }
        }
        guard !options.cameras.isEmpty else {
            throw UsageError("no source: give --demo, --replay PATH or --device PATH, or cameras in a configuration file")
        }
        let names = options.cameras.map(\.name)
        if Set(names).count != names.count { throw UsageError("a camera is given twice") }
        for camera in options.cameras {
            if let problem = ZoneSpec.limitProblem(camera.recognizer.zones, defaultLanguage: camera.recognizer.language) {
                throw UsageError("camera \(camera.name): \(problem)")
            }
        }
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

    /// The device name used in messages: the camera's own name when it has one, else
    /// its source's path.
    public var name: String { label ?? sourceName }

    /// The source's path (`/dev/video0`, a replay's folder, `demo`, a URL without its
    /// credentials): DEVICES' `path`.
    public var sourceName: String {
        switch source {
        case .demo: "demo"
        case let .replay(options): options.path
        case let .device(path): path
        case let .network(url): url.redacted
        }
    }
}
