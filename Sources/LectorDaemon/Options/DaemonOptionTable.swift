import Foundation
import LectorCapture
import LectorDetector
import LectorImaging
import LectorLive
import LectorOptions
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem

/// Every `lectord` option, once. Adding an option is one entry here (plus the field it
/// sets); the command line (``DaemonOptions/parse(_:)``), the configuration file
/// (``ConfigFile``), `--help` (``usage``), the man page,
/// docs/configuration.md (``markdown``) and SIGHUP (``ReloadPlan``) follow. The
/// mechanism is LectorOptions' (``table``), shared with lector-mqtt and lector-http.
public enum DaemonOptionTable {
    private typealias Camera = OptionAccess<CameraSettings>
    private typealias Daemon = OptionAccess<DaemonOptions>

    private static let fourccs = PixelFormat.allCases.map(\.fourcc)

    /// In `--help` order within each group.
    public static let options: [DaemonOption] = [
        // Sources
        DaemonOption("--demo", .sources, nil, "Replay the frames bundled with Lector (known text, no camera needed).", isSource: true,
                     .camera(source { (text: String) throws(OptionValueError) -> SourceSpec? in
                         guard try ValueParser.bool.parse(text) else { throw OptionValueError("demo = true is the only meaningful value") }
                         return .demo
                     })),
        DaemonOption("--replay", .sources, "PATH", "Replay an image, a directory of images, an MJPEG file or a raw frame file.",
                     example: "frames/", isSource: true,
                     .camera(source { (text: String) throws(OptionValueError) -> SourceSpec? in .replay(ReplayOptions(path: try ValueParser.text.parse(text))) })),
        DaemonOption("--device", .sources, "PATH", "Capture from a V4L2 camera, or from libcamera:ID (a libcamera camera; libcamera:0 the first) (repeatable).", example: "/dev/video7", isSource: true,
                     .camera(source { (text: String) throws(OptionValueError) -> SourceSpec? in .device(path: try ValueParser.text.parse(text)) })),
        DaemonOption("--url", .sources, "URL",
                     "Read a network camera: rtsp:// or rtsps:// (H.264, H.265), or http(s):// serving an MJPEG stream or JPEG snapshots (polled at --fps, default 1) (repeatable).",
                     example: "rtsp://192.168.1.20:554/stream1", isSource: true,
                     .camera(source { (text: String) throws(OptionValueError) -> SourceSpec? in
                         do throws(NetworkURLError) {
                             return .network(try NetworkCameraURL(parsing: text))
                         } catch {
                             throw OptionValueError(error.description)
                         }
                     })),
        DaemonOption("--name", .sources, "NAME",
                     "Name the camera given just before (--device, --url, --replay or --demo): its device in every message, request and log line.",
                     example: "kitchen", .camera(OptionAccess<CameraSettings>(
                         set: { (settings: inout CameraSettings, text: String) throws(OptionValueError) in
                             settings.name(try CameraName.parse(text))
                         },
                         copy: { $0.labels = $1.labels },
                         describe: { "\($0.labels)" }))),
        // Capture
        DaemonOption("--format", .capture, "FOURCC", "Pixel format to ask the camera for (default: the cheapest to read, see README).",
                     example: "MJPG", .camera(.optional(\.spec.capture.format, .choice(fourccs, PixelFormat.init(name:))))),
        DaemonOption("--io", .capture, CaptureSettings.IOChoice.allCases.map(\.rawValue).joined(separator: "|"),
                     "direct: libc calls (works under libcamerify); libv4l2: converted formats (default auto).", example: "libv4l2",
                     .camera(.value(\.spec.capture.io, .choice(CaptureSettings.IOChoice.allCases.map(\.rawValue)) {
                         CaptureSettings.IOChoice(rawValue: $0)?.rawValue
                     }))),
        DaemonOption("--buffers", .capture, "N", "Driver buffers to map, 2-32 (default 4).", example: "8",
                     .camera(.optional(\.spec.capture.buffers, .integer(2...32)))),
        DaemonOption("--stall-timeout-ms", .capture, "N",
                     "Treat a camera that delivers nothing for N ms as lost and reopen it (default 3000).", reload: .live, example: "5000",
                     .camera(.optional(\.spec.capture.stallTimeout, ValueParser.integer(100...600_000).map { Double($0) / 1000 }))),
        // Network cameras
        DaemonOption("--rtsp-transport", .network, RTSPTransport.allCases.map(\.rawValue).joined(separator: "|"),
                     "How RTSP carries the video: interleaved in the TCP connection, or as UDP packets (default tcp).", example: "udp",
                     .camera(.optional(\.spec.capture.rtspTransport, .choice(RTSPTransport.allCases.map(\.rawValue)) {
                         RTSPTransport(rawValue: $0)
                     }))),
        DaemonOption("--hwdecode", .network, "auto|off|NAME",
                     "Decode H.264/H.265 in hardware: auto tries the V4L2 decoder (a Raspberry Pi's) then VAAPI; NAME one decoder (h264_v4l2m2m) or device (vaapi); missing or failing: software, said once (default off).",
                     example: "auto",
                     .camera(.optional(\.spec.capture.hardwareDecoding, .choice(["auto", "off", "a decoder or device name (h264_v4l2m2m, vaapi)"]) { HardwareDecoding(parsing: $0) }))),
        DaemonOption("--url-password-file", .network, "PATH",
                     "Read the password of the --url's user from this file (its first line), so it is in no configuration file or command line.",
                     example: "/etc/lector/gate-camera.password", .camera(.optional(\.spec.capture.urlPasswordFile, .text))),
        // Replay
        DaemonOption("--replay-format", .replay, "FOURCC", "Pixel format of a raw frame file (YUYV, NV12, GREY, ...).", example: "YUYV",
                     .camera(.optional(\.replayFormat, .choice(fourccs, PixelFormat.init(name:))))),
        DaemonOption("--size", .replay, "WxH", "Frame size of a raw frame file (or the capture size to ask a camera for).", example: "640x480",
                     .camera(.optional(\.spec.capture.size, size))),
        DaemonOption("--fps", .replay, "N", "Frames per second (replay: default as fast as recognized, losing none).", example: "2",
                     .camera(.optional(\.spec.capture.fps, .number(0.01...1000)))),
        DaemonOption("--loop", .replay, nil, "Replay again from the start after the last frame.", .camera(.value(\.loop, .bool))),
        // Orientation
        DaemonOption("--device-orientation", .orientation, "O", DeviceOrientation.allCases.map(\.rawValue).joined(separator: "|") + ".",
                     reload: .live, example: "portrait",
                     .camera(.optional(\.spec.orientation.deviceOrientation,
                                       .choice(DeviceOrientation.allCases.map(\.rawValue), DeviceOrientation.init(rawValue:))))),
        DaemonOption("--camera-position", .orientation, "P",
                     CameraPosition.allCases.map(\.rawValue).joined(separator: "|") + " (default back).", reload: .live, example: "front",
                     .camera(.optional(\.spec.orientation.cameraPosition,
                                       .choice(CameraPosition.allCases.map(\.rawValue), CameraPosition.init(rawValue:))))),
        DaemonOption("--rotation", .orientation, "DEG|auto",
                     "0|90|180|270: clockwise degrees that make the captured image upright; auto: found from the text, checked again when the scene changes.",
                     reload: .live, example: "90", .camera(rotation)),
        DaemonOption("--mirror", .orientation, nil, "After the rotation, mirror left-right.", reload: .live,
                     .camera(.optional(\.spec.orientation.mirror, .bool))),
        // Recognition
        DaemonOption("--lang", .recognition, "LANGS", "Tesseract languages, e.g. eng or eng+deu (default eng); auto: per scene, the installed ones that read the script Tesseract's OSD finds.", reload: .live,
                     example: "eng+deu", .camera(.value(\.spec.recognizer.language, language))),
        DaemonOption("--psm", .recognition, "N", "Tesseract page segmentation mode, 0-13 (default 3, automatic).", reload: .live,
                     example: "6", .camera(.value(\.spec.recognizer.pageSegmentation, .integer(0...13)))),
        DaemonOption("--layout", .recognition, Layout.allCases.map(\.rawValue).joined(separator: "|"),
                     "Find lines with Tesseract's page layout, or with the text-line detector and read each alone (default auto: the detector when its model is installed and --psm is 3).",
                     reload: .live, example: "tesseract",
                     .camera(.value(\.spec.recognizer.layout, .choice(Layout.allCases.map(\.rawValue), Layout.init(rawValue:))))),
        DaemonOption("--detector-model", .recognition, "PATH",
                     "The text-line detector's model (default: \(DetectorModel.fileName) in LECTOR_DATA_DIR/models, then lector/models under the XDG data folders).",
                     reload: .live, example: "/usr/local/share/lector/models/\(DetectorModel.fileName)",
                     .camera(.optional(\.spec.recognizer.detectorModel, .text))),
        DaemonOption("--engine", .recognition, LineEngine.allCases.map(\.rawValue).joined(separator: "|"),
                     "Which engine reads the text-line detector's lines: Tesseract, the neural line recognizer, the seven-segment and LCD digit reader (segments: digits and the point), or each where it reads better (default auto: the neural recognizer when its model is installed and reads --lang).",
                     reload: .live, example: "tesseract",
                     .camera(.value(\.spec.recognizer.engine, .choice(LineEngine.allCases.map(\.rawValue), LineEngine.init(rawValue:))))),
        DaemonOption("--engine-model", .recognition, "PATH",
                     "The neural line recognizer's model (default: \(NeuralModel.Variant.latin.fileName), or \(NeuralModel.Variant.full.fileName) for chi_sim, chi_tra and jpn, where the detector's model is).",
                     reload: .live, example: "/usr/local/share/lector/models/\(NeuralModel.Variant.full.fileName)",
                     .camera(.optional(\.spec.recognizer.engineModel, .text))),
        DaemonOption("--downscale", .recognition, "auto|1|2",
                     "Halve frames before recognition; auto halves only while text is large (default auto).", reload: .live,
                     example: "2", .camera(.value(\.spec.recognizer.downscale, .choice(["auto", "1", "2"]) { Downscale($0) }))),
        DaemonOption("--roi", .recognition, "X,Y,W,H", "Read only this region of the upright image.", reload: .live,
                     example: "10,20,300,100", .camera(.optional(\.spec.recognizer.regionOfInterest, ValueParser { (text: String) throws(OptionValueError) -> PixelBox in
                         switch ValueSyntax.checkedBox(text) {
                         case let .success(box): return box
                         case let .failure(refusal): throw OptionValueError("\(refusal.reason), not \(UsageError.quoted(text))")
                         }
                     }))),
        DaemonOption("--zone", .recognition, "'NAME=X,Y,W,H [KEY=VALUE]...'",
                     "Read only named zones, each with its own profile: keys psm, whitelist (digits, alnum or the characters), lang, scale, invert, min_height, engine, codes (repeatable; or [zone CAMERA/ZONE] sections).",
                     reload: .live, example: "reading=120,200,400,80 psm=7 whitelist=digits",
                     .camera(OptionAccess<CameraSettings>(
                         set: { (settings: inout CameraSettings, text: String) throws(OptionValueError) in
                             let zone = try ZoneSection.parseFlag(text)
                             guard !settings.spec.recognizer.zones.contains(where: { $0.name == zone.name }) else {
                                 throw OptionValueError("zone \(zone.name) is given twice")
                             }
                             settings.spec.recognizer.zones.append(zone)
                         },
                         copy: { $0.spec.recognizer.zones = $1.spec.recognizer.zones },
                         describe: { "\($0.spec.recognizer.zones)" }))),
        DaemonOption("--codes", .recognition, "on|off|FORMAT,...",
                     "Also read QR codes and barcodes in each frame read, one CODE message per appearance: on (every format), off (default), or formats among \(CodeFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
                     reload: .live, example: "qr,ean13", .camera(.value(\.spec.recognizer.codes, CodeFormat.setParser))),
        DaemonOption("--codes-repeat-after", .recognition, "SECONDS",
                     "Announce a code again only after it was out of view this long (default 30).",
                     reload: .live, example: "10", .camera(.value(\.spec.recognizer.codesRepeatAfter, .number(0...86400)))),
        DaemonOption("--deadline-ms", .recognition, "N", "End a frame's read after N ms, publishing what it read (default 3000 for a camera; a replay without --fps reads each file whole).", reload: .live,
                     example: "500", .camera(.optional(\.spec.recognizer.deadlineMilliseconds, .integer(10...600_000)))),
        DaemonOption("--recognizers", .recognition, "N|auto",
                     "Recognizers per camera, each a thread with its own Tesseract engine (default auto: one per core beyond the first, shared among the cameras, at most 4).",
                     example: "2", .camera(.value(\.spec.recognizers, .choice(["auto", "1-\(RecognizerCount.maximum)"]) { RecognizerCount($0) }))),
        DaemonOption("--deskew", .recognition, "on|off",
                     "Estimate the text lines' residual angle (up to 15 degrees) and level them before reading (default off).",
                     reload: .live, example: "on", .camera(.value(\.spec.recognizer.deskew, .bool))),
        DaemonOption("--symbols", .recognition, nil, "Also report individual characters.", reload: .live,
                     .camera(.value(\.spec.recognizer.symbols, .bool))),
        DaemonOption("--tessdata", .recognition, "PATH", "Folder holding the .traineddata files.", reload: .live,
                     example: "/usr/share/tesseract-ocr/5/tessdata", .camera(.optional(\.spec.recognizer.dataPath, .text))),
        // Live text
        DaemonOption("--stack", .live, "N|off", "Average up to N motion-aligned frames of a still scene before reading (default 16).",
                     example: "8", .camera(.value(\.spec.live.stack, .choice(["1-\(LiveSettings.maximumStack)", "off"]) { (text: String) -> Int?? in
                         if text == "off" { return .some(nil) }
                         guard let frames = Int(text), (1...LiveSettings.maximumStack).contains(frames) else { return nil }
                         return .some(frames)
                     }))),
        DaemonOption("--gate", .live, "on|off", "Skip reading frames that show nothing new while every line has settled (default on).",
                     reload: .live, example: "off", .camera(.value(\.spec.live.gate, .bool))),
        DaemonOption("--track-timeout-ms", .live, "N", "Report a line track gone after N ms unseen (default 1500).", reload: .live, example: "3000",
                     .camera(.value(\.spec.live.tracks.timeoutMilliseconds, ValueParser.integer(100...600_000).map { Double($0) }))),
        DaemonOption("--refresh-s", .live, "N", "Read a still scene again at least every N seconds (default 10).", reload: .live, example: "30",
                     .camera(.value(\.spec.live.refreshSeconds, .number(0.1...86400)))),
        // Output
        DaemonOption("--stdout", inFile: false, .output, nil, "Print the stream (TEXT, FRAME and TRACK lines) on standard output.",
                     .daemon(.value(\.stdout, .bool))),
        DaemonOption("--max-frames", inFile: false, .output, "N", "Exit 0 after N recognized frames.", example: "3",
                     .daemon(.optional(\.maxFrames, .integer(1...Int(Int32.max))))),
        DaemonOption("--record", .output, "DIR",
                     "Also keep the captured frames as files in DIR that --replay DIR reads back (a folder per camera when there are several).",
                     example: "/var/lib/lector/frames", .daemon(.optional(\.recordDirectory, .text))),
        DaemonOption("--record-max-mb", .output, "N", "Delete the oldest recorded frames beyond N megabytes (default 500).",
                     example: "100", .daemon(.value(\.recordMaximumMegabytes, .integer(1...1_000_000)))),
        DaemonOption("--evidence", key: "evidence_dir", .output, "DIR",
                     "Keep each accepted MATCH's frame (upright, JPEG) and its line's crop in DIR; MATCH names them in evidence.",
                     example: "/var/lib/lector/evidence", .daemon(.optional(\.evidenceDirectory, .text))),
        DaemonOption("--evidence-max-mb", .output, "N", "Delete the oldest evidence files beyond N megabytes (default 500).",
                     example: "100", .daemon(.value(\.evidenceMaximumMegabytes, .number(0.1...1_000_000)))),
        DaemonOption("--evidence-keep-days", .output, "N", "Delete evidence files older than N days (default 30).",
                     example: "7", .daemon(.value(\.evidenceKeepDays, .number(0.001...36500)))),
        DaemonOption("--history", .output, "PATH",
                     "Keep every MATCH (accepted or rejected) in an SQLite database at PATH, which HISTORY and lector history read "
                        + "(under systemd: /var/lib/lector/history.sqlite).",
                     example: "/var/lib/lector/history.sqlite", .daemon(.optional(\.historyPath, .text))),
        DaemonOption("--history-keep-days", .output, "N", "Delete readings older than N days from the history (default 365).",
                     example: "30", .daemon(.value(\.historyKeepDays, .number(0.001...36500)))),
        // Server
        DaemonOption("--socket", .server, "PATH",
                     "Serve the protocol on this Unix socket (default $RUNTIME_DIRECTORY/lector.sock, "
                        + "/run/lector/lector.sock as root, else $XDG_RUNTIME_DIR/lector.sock or /tmp/lector-UID/lector.sock).",
                     example: "/tmp/lector-example.sock", .daemon(.optional(\.socketPath, .text))),
        DaemonOption("--socket-group", .server, "G", "Group that may connect (the socket is mode 0660).", example: "video",
                     .daemon(.optional(\.socketGroup, .text))),
        DaemonOption("--always-on", .server, nil, "Recognize even when no client watches (--stdout implies it).", reload: .live,
                     .daemon(.value(\.alwaysOn, .bool))),
        DaemonOption("--max-clients", .server, "N", "Clients served at once (default 32).", reload: .live, example: "8",
                     .daemon(.value(\.server.maximumClients, .integer(1...4096)))),
        DaemonOption("--client-timeout", .server, "SECONDS", "Disconnect a client that takes no data for this long (default 10).",
                     reload: .live, example: "2.5", .daemon(.value(\.server.clientTimeout, .number(0.1...86400)))),
        DaemonOption("--idle-timeout", .server, "SECONDS",
                     "Close a client that neither watches nor sends a request for this long, with an ERROR (default 60).",
                     reload: .live, example: "30", .daemon(.value(\.server.idleTimeout, .number(0.1...86400)))),
        DaemonOption("--client-buffer", .server, "BYTES",
                     "Stream bytes queued per client before the oldest are dropped (default 1048576).", reload: .live, example: "65536",
                     .daemon(.value(\.server.clientBufferBytes, .integer(4096...(1 << 30))))),
        DaemonOption("--config", inFile: false, .server, "FILE", "Configuration file (default /etc/lector/lectord.conf when present).",
                     example: "/etc/lector/other.conf", .daemon(.optional(\.configPath, .text))),
        DaemonOption("--log-level", .server, "L", Logger.Level.allCases.map(\.name).joined(separator: "|") + " (default info).",
                     reload: .live, example: "debug",
                     .daemon(.value(\.logLevel, .choice(Logger.Level.allCases.map(\.name), Logger.Level.init(name:))))),
        DaemonOption("--check-config", inFile: false, .server, nil,
                     "Check the configuration file and flags, print what would run, and exit (0 valid, 2 not).",
                     .daemon(.value(\.checkConfig, .bool))),
        DaemonOption("--help", aliases: ["-h"], inFile: false, .server, nil, "Show this help.", .daemon(.value(\.showHelp, .bool))),
        DaemonOption("--version", inFile: false, .server, nil, "Show the version.", .daemon(.value(\.showVersion, .bool))),
    ]

    /// Rules over options given in one place (the command line, or one `[camera]`).
    public enum Rule: Sendable {
        /// None of the first may be given with any of the second. A flag of one side
        /// also clears the other side's values in the file's cameras.
        case exclusive([String], [String])
        /// The first only goes with the second.
        case requires(String, String)
    }

    public static let rules: [Rule] = [
        .exclusive(["--rotation", "--mirror"], ["--device-orientation"]),
        .requires("--replay-format", "--replay"),
        // A camera has one source ("Sources (one of)"); several --device or --replay are several cameras.
        .exclusive(["--demo"], ["--replay", "--device"]),
        .exclusive(["--replay"], ["--device"]),
    ]

    /// The options as every program's table holds them: lookups, `--help`, Markdown.
    public static let table = OptionTable(program: "lectord", options: options, layout: helpLayout,
                                          defaultConfigPath: "/etc/lector/lectord.conf")

    /// The option `--flag` (or an alias).
    public static func option(flag: String) -> DaemonOption? { table.option(flag: flag) }

    /// The option with configuration key `key`.
    public static func option(key: String) -> DaemonOption? { table.option(key: key) }

    /// The configuration keys of `scope`, in table order.
    public static func keys(_ scope: DaemonOption.Scope) -> [String] {
        options.filter { $0.scope == scope }.compactMap(\.key)
    }

    /// The first rule that the options given in one place (their flags) break: the
    /// option to blame and the message, naming options with `name` (flag or key).
    static func violation(given: Set<String>, name: (DaemonOption) -> String) -> (option: DaemonOption, message: String)? {
        func named(_ flags: [String]) -> String { flags.compactMap(option(flag:)).map(name).joined(separator: "/") }
        for rule in rules {
            switch rule {
            case let .exclusive(first, second):
                if let blamed = first.first(where: given.contains), second.contains(where: given.contains), let option = option(flag: blamed) {
                    return (option, "give either \(named(first)) or \(named(second)), not both")
                }
            case let .requires(dependent, required):
                if given.contains(dependent), !given.contains(required), let option = option(flag: dependent) {
                    return (option, "\(named([dependent])) goes with \(named([required]))")
                }
            }
        }
        return nil
    }

    /// The options a flag `flag` clears in a camera of the file (the other side of an
    /// exclusive rule).
    static func cleared(by flag: String) -> [DaemonOption] {
        rules.flatMap { rule -> [String] in
            guard case let .exclusive(first, second) = rule else { return [] }
            if first.contains(flag) { return second }
            if second.contains(flag) { return first }
            return []
        }.compactMap(option(flag:))
    }

    /// `lectord --help`.
    public static var usage: String { table.usage }

    /// How `--help` frames the groups: the usage line, and after the options what the
    /// configuration file and SIGHUP do with them.
    private static var helpLayout: HelpLayout {
        let commandLineOnly = options.filter { $0.scope == .commandLine }.map(\.flag)
        var footer = ["", "Configuration file:"]
        footer += HelpLayout.wrapped("  ", "Every other option is also a key of the configuration file: the flag without -- and with _ for -, "
                                        + "before the first [camera] for the Server options, under [camera NAME] for the others "
                                        + "(e.g. device = /dev/video0, rotation = 90, switches as true or false). "
                                        + "Zones and rules are sections of their own: [zone CAMERA/ZONE] (\(ZoneSection.keys.joined(separator: ", "))) "
                                        + "and [rule CAMERA/ZONE/NAME] (\(RuleSection.keys.joined(separator: ", "))). "
                                        + "Command-line flags override the file. Command line only: "
                                        + commandLineOnly.joined(separator: ", ") + ".", indent: 2)
        footer += [""]
        footer += HelpLayout.wrapped("  ", "SIGHUP reads the file again and applies at once: "
                                        + options.filter { $0.reload == .live }.compactMap(\.key).joined(separator: ", ")
                                        + "; other changes need a restart.", indent: 2)
        return HelpLayout(header: ["Usage: lectord [options]", "", "Reads text from live camera frames and publishes it as line-delimited JSON."],
                          footer: footer, helpColumn: 29, width: 120, groupOrder: DaemonOption.Group.allCases.map(\.rawValue))
    }

    /// README's list of options, a Markdown table (README holds a copy; a test keeps
    /// them equal).
    public static var markdown: String { table.markdown(extraColumns: markdownColumns) }

    /// lectord's section of docs/configuration.md when `arguments` are
    /// `--options-markdown` alone (``OptionReference``), else nil.
    public static func reference(askedBy arguments: [String]) -> String? {
        OptionReference.isAsked(by: arguments) ? table.reference(extraColumns: markdownColumns) : nil
    }

    /// Where each option goes in the file, and what SIGHUP does with it.
    private static var markdownColumns: [OptionTable<DaemonOption>.Column] {
        [
            ("where in the file", { option in
                switch option.scope {
                case .daemon: "daemon"
                case .camera: "[camera]"
                case .commandLine: "command line only"
                }
            }),
            ("SIGHUP", { option in option.key == nil ? "" : option.reload == .live ? "applied" : "restart" }),
        ]
    }

    /// A source option: appends the parsed source (a camera each).
    private static func source(_ parse: @escaping @Sendable (String) throws(OptionValueError) -> SourceSpec?) -> Camera {
        Camera(set: { (settings: inout CameraSettings, text: String) throws(OptionValueError) in
                   if let source = try parse(text) { settings.add(source) }
               },
               copy: {
                   $0.sources = $1.sources
                   $0.labels = $1.labels
               },
               describe: { "\($0.sources)" })
    }

    /// `--rotation`: 0|90|180|270, or auto (``OrientationSettings/automaticRotation``).
    private static let rotation = Camera(
        set: { (settings: inout CameraSettings, text: String) throws(OptionValueError) in
            if text == "auto" {
                settings.spec.orientation.rotation = nil
                settings.spec.orientation.automaticRotation = true
                return
            }
            settings.spec.orientation.rotation = try ValueParser<Int>.choice(["0", "90", "180", "270", "auto"], ValueSyntax.rotation).parse(text)
            settings.spec.orientation.automaticRotation = nil
        },
        copy: {
            $0.spec.orientation.rotation = $1.spec.orientation.rotation
            $0.spec.orientation.automaticRotation = $1.spec.orientation.automaticRotation
        },
        describe: { "\($0.spec.orientation.rotation.map(String.init) ?? "-") \($0.spec.orientation.automaticRotation == true ? "auto" : "fixed")" })

    /// `640x480`: each side from 1 to ``LumaExtractor/maximumSide``.
    private static let size = ValueParser<(width: Int, height: Int)> { (text: String) throws(OptionValueError) -> (width: Int, height: Int) in
        guard let size = ValueSyntax.size(text, maximumSide: LumaExtractor.maximumSide) else {
            throw OptionValueError("must be WxH with each side from 1 to \(LumaExtractor.maximumSide) pixels "
                                   + "(and at most \(FrameLimits.standard.maximumPixels) pixels in all), not \(UsageError.quoted(text))")
        }
        return size
    }

    /// `eng`, `eng+deu`, `chi_sim`.
    private static let language = ValueParser<String> { (text: String) throws(OptionValueError) -> String in
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "_" }) else {
            throw OptionValueError("must look like eng or eng+deu, not \(UsageError.quoted(text))")
        }
        return text
    }
}
