import Foundation
@testable import LectorCapture
@testable import LectorDaemon
@testable import LectorEngine
@testable import LectorImaging
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorRecognition
@testable import LectorSystem
import LectorTestSupport
import Testing

/// The one option table: every option means the same on the command line and in the
/// configuration file, `--help` and README list them all, SIGHUP sorts them.
@Suite("Option table")
struct OptionTableTests {
    static let table = DaemonOptionTable.options
    static let inFile = table.filter { $0.key != nil }.map(\.flag)
    static let commandLineOnly = table.filter { $0.key == nil }.map(\.flag)

    static func option(_ flag: String) throws -> DaemonOption { try #require(DaemonOptionTable.option(flag: flag)) }

    /// The options `option` is given with: what a rule says it goes with, and a source
    /// unless it is one (a replay: its camera carries every camera option, `--loop` too).
    static func companions(of option: DaemonOption) throws -> [DaemonOption] {
        var companions: [DaemonOption] = []
        for rule in DaemonOptionTable.rules {
            if case let .requires(dependent, required) = rule, dependent == option.flag { companions.append(try self.option(required)) }
        }
        if !([option] + companions).contains(where: \.isSource) { companions.append(try self.option("--replay")) }
        return companions
    }

    static func arguments(_ options: [DaemonOption]) -> [String] {
        options.flatMap { $0.isSwitch ? [$0.flag] : [$0.flag, $0.example] }
    }

    /// A configuration file giving `options` with their examples.
    static func file(_ options: [DaemonOption]) -> String {
        let lines = { (scope: DaemonOption.Scope) in options.filter { $0.scope == scope }.map { "\($0.key ?? "?") = \($0.example)" } }
        return (lines(.daemon) + ["[camera]"] + lines(.camera)).joined(separator: "\n")
    }

    /// The value `option` has in `options` (of the daemon, or of the first camera), as text.
    static func value(of option: DaemonOption, in options: DaemonOptions) -> String {
        switch option.target {
        case let .daemon(access): access.describe(options)
        case let .camera(access): options.cameras.first.map { access.describe(CameraSettings($0)) } ?? "no camera"
        }
    }

    @Test("each option with a file key gives the same options as its flag", arguments: inFile)
    func flagAndKeyAgree(flag: String) throws {
        let option = try Self.option(flag)
        let given = [option] + (try Self.companions(of: option))
        let fromFlags = try DaemonOptions.parse(Self.arguments(given))
        let fromFile = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse(Self.file(given), path: "t.conf"))
        #expect(fromFlags.cameras == fromFile.cameras, "\(flag)")
        for daemonOption in Self.table where daemonOption.scope == .daemon {
            #expect(Self.value(of: daemonOption, in: fromFlags) == Self.value(of: daemonOption, in: fromFile), "\(flag): \(daemonOption.flag)")
        }
        if !option.isSource {
            let without = try DaemonOptions.parse(Self.arguments(try Self.companions(of: option)))
            #expect(Self.value(of: option, in: fromFlags) != Self.value(of: option, in: without), "\(flag) \(option.example) changes nothing")
        }
    }

    @Test("each command-line-only option parses and is no file key", arguments: commandLineOnly)
    func commandLineOnlyOption(flag: String) throws {
        let option = try Self.option(flag)
        let parsed = try DaemonOptions.parse(Self.arguments([option, try Self.option("--demo")]))
        let demoOnly = try DaemonOptions.parse(["--demo"])  // outside #expect: Swift 6.0's macro cannot hold a try
        #expect(Self.value(of: option, in: parsed) != Self.value(of: option, in: demoOnly))
        let name = String(flag.dropFirst(2)).replacingOccurrences(of: "-", with: "_")
        #expect(throws: ConfigError.self) { try ConfigFile.parse("\(name) = \(option.example)", path: "t.conf") }
    }

    @Test("--help lists each option with its value and help", arguments: table.map(\.flag))
    func helpListsOption(flag: String) throws {
        let option = try Self.option(flag)
        let name = option.valueName.map { "\(flag) \($0)" } ?? flag
        let line = try #require(DaemonOptions.usage.split(separator: "\n").first { $0.hasPrefix("  \(name) ") })
        #expect(line.contains(option.help.prefix(40)), "\(line)")
    }

    @Test("lectord --help prints the table's usage")
    func helpOfTheExecutable() throws {
        let result = try run(TestSupport.executable("lectord"), ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout == DaemonOptions.usage + "\n")
    }

    @Test("rules name flags on the command line and keys in the file", arguments: [
        (["--demo", "--rotation", "90", "--device-orientation", "portrait"], "[camera]\ndemo = true\nrotation = 90\ndevice_orientation = portrait",
         "give either --rotation/--mirror or --device-orientation, not both",
         "c.conf:1: rotation: give either rotation/mirror or device_orientation, not both"),
        (["--demo", "--mirror", "--device-orientation", "portrait"], "[camera]\ndemo = true\nmirror = true\ndevice_orientation = portrait",
         "give either --rotation/--mirror or --device-orientation, not both",
         "c.conf:1: mirror: give either rotation/mirror or device_orientation, not both"),
        (["--demo", "--replay-format", "YUYV"], "[camera]\ndemo = true\nreplay_format = YUYV",
         "--replay-format goes with --replay", "c.conf:1: replay_format: replay_format goes with replay"),
    ])
    func rules(arguments: [String], file: String, flagMessage: String, fileMessage: String) {
        #expect(throws: UsageError(flagMessage)) { try DaemonOptions.parse(arguments) }
        #expect(throws: ConfigError.self) { try ConfigFile.parse(file, path: "c.conf") }
        do {
            _ = try ConfigFile.parse(file, path: "c.conf")
        } catch {
            #expect(error.description == fileMessage)
        }
    }

    @Test("a flag clears what it excludes in the file's cameras")
    func flagClearsExcluded() throws {
        let config = try ConfigFile.parse("[camera]\ndemo = true\nrotation = 90\nmirror = true", path: "c.conf")
        let merged = try DaemonOptions.parse(["--device-orientation", "portrait"]).merged(with: config)
        #expect(merged.cameras.first?.orientation == OrientationSettings(deviceOrientation: .portrait))
    }

    @Test("SIGHUP applies live options and names those that need a restart", arguments: inFile)
    func reloadSortsOption(flag: String) throws {
        let option = try Self.option(flag)
        var before = try Self.companions(of: option)
        if option.isSource { before = [try Self.option(flag == "--demo" ? "--device" : "--demo")] }
        let current = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse(Self.file(before), path: "t.conf"))
        let after = option.isSource ? [option] : [option] + before
        let reloaded = try DaemonOptions.parse([]).merged(with: try ConfigFile.parse(Self.file(after), path: "t.conf"))
        let plan = ReloadPlan(current: current, reloaded: reloaded)
        let key = try #require(option.key)
        let named = option.isSource ? "cameras" : option.scope == .daemon ? key : "\(current.cameras[0].name): \(key)"
        switch option.reload {
        case .live:
            #expect(plan.applied == [named] && plan.needsRestart.isEmpty, "\(plan.applied) \(plan.needsRestart)")
            #expect(plan.effective == reloaded, "the new value is in force")
        case .restart:
            #expect(plan.needsRestart.contains(named) && plan.applied.isEmpty, "\(plan.applied) \(plan.needsRestart)")
            #expect(plan.effective == current, "the old value stays in force until a restart")
        }
    }
}

/// What SIGHUP changes in running parts: a camera's recognizer, the log level.
@Suite("Live reload")
struct LiveReloadTests {
    /// The publications of one loop, for the test thread.
    final class Published: @unchecked Sendable {
        private let lock = NSLock()
        private var texts: [String] = []
        func add(_ publication: Publication) { lock.withLock { texts.append(publication.text.text.text) } }
        var last: String? { lock.withLock { texts.last } }
    }

    @Test("a replaced recognizer reads the next frame with the new settings; a broken one changes nothing")
    func replaceRecognizer() throws {
        let published = Published()
        let loop = try RecognitionLoop(device: "test", options: RecognizerOptions.untimed, mailbox: LatestFrameMailbox(),
                                       counters: FrameCounters(), orientation: OrientationControl(),
                                       logger: Logger(label: "test", level: .error)) { published.add($0) }
        let luma = try ImageFile.readGray(path: TestSupport.fixture("hello-640x480.png"))
        func recognize() -> String? {
            loop.process(FrameSynthesizer.frame(luma.pixels, format: .grey, width: luma.width, height: luma.height))
            return published.last
        }
        #expect(recognize()?.contains("HELLO") == true)
        var tiny = RecognizerOptions()
        tiny.regionOfInterest = PixelBox(x: 0, y: 0, width: 8, height: 8)
        try loop.replaceRecognizer(options: tiny)
        #expect(loop.recognizerOptions == tiny)
        #expect(recognize()?.contains("HELLO") == false, "only the 8x8 corner is read")
        var broken = RecognizerOptions()
        broken.language = "zzz_no_such_language"
        #expect(throws: RecognitionError.self) { try loop.replaceRecognizer(options: broken) }
        #expect(loop.recognizerOptions == tiny, "a recognizer that cannot start leaves the old one")
    }

    @Test("a level set on a logger applies to the loggers made from it")
    func sharedLevel() {
        let logger = Logger(label: "test", level: .info)
        let device = logger.with("device", "a")
        logger.level = .debug
        #expect(device.level == .debug && logger.level == .debug)
        #expect(Logger(label: "other").level == .info, "another logger keeps its own")
    }
}
