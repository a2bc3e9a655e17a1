import LectorClient
import LectorProtocol
import LectorSystem

/// The command line of `lector-bench`.
struct BenchOptions {
    /// The benchmark's sections, in the order they run.
    enum Section: String, CaseIterable {
        case stages, recognition, pool, latency, fanout, memory, peer, live, preview, detector, networks, known, engines, slowcpu, segments, netcams

        /// Sections that run only when named in `--only`: engines reads 117 photos; the
        /// slow-machine mode is minutes long and needs root for its CPU quota (it runs
        /// alone with `--slow-machine`); segments writes the display lines of 300 photos;
        /// netcams needs a network camera (`--netcam-url`).
        static let onlyWhenAsked: Set<Section> = [.engines, .slowcpu, .segments, .netcams]
    }

    var smoke = false
    var showHelp = false
    var jsonPath: String?
    var sections = Set(Section.allCases).subtracting(Section.onlyWhenAsked)
    /// Recognition rounds per frame size (each round runs every variant once, interleaved).
    var rounds = 20
    /// Iterations of each cheap stage per frame size.
    var stageIterations = 150
    /// Captured frames per stand-in latency run.
    var standInFrames = 10_000
    /// Published results per real-Tesseract latency run.
    var realFrames = 300
    /// Frames lectord recognizes in the memory run.
    var memoryFrames = 2_000
    /// Messages published per fan-out run.
    var fanOutMessages = 200
    /// pytesseract rounds.
    var peerRounds = 8
    /// The Python interpreter that has pytesseract.
    var python: String?
    var sizes: [String] = ["640x480", "1280x720", "1920x1080"]
    /// The realworld photos (engines; default ../shared/testdata/realworld from the working directory).
    var realworld: String?
    /// Where engines writes every line's reads (JSON lines), for scripts/eval-realworld.py --engines.
    var linesPath: String?
    /// The display photos segments cuts lines from (default ../shared/testdata/meters from the working directory).
    var meters: String?
    /// Where segments writes each line's crop and lines.jsonl.
    var cropsPath: String?
    /// The segments network segments reads the lines with (default: the installed one).
    var segmentsModel: String?
    /// The longer side segments detects photos at (nil: the detector's own, 1280).
    var detectSide: Int?
    /// The network camera netcams reads (issue 47).
    var netcamURL: String?
    /// How many cameras of `netcamURL` one lectord reads in netcams.
    var netcams = 4
    /// Seconds netcams measures lectord's and FFmpeg's CPU over.
    var netcamSeconds = 30.0

    static let usage = """
        usage: lector-bench [--smoke] [--json FILE] [--only SECTIONS] [--slow-machine] [--rounds N] [--frames N]
                            [--real-frames N] [--memory-frames N] [--peer-rounds N] [--python PATH]
                            [--realworld DIR] [--lines FILE] [--meters DIR --crops DIR [--segments-model FILE] [--detect-side N]]
                            [--netcam-url URL [--netcams N] [--netcam-seconds S]]
          --smoke             A short run of every section (under a minute), for CI.
          --json FILE         Writes every measured number to FILE as JSON.
          --only SECTIONS     Runs only these, comma-separated: \(Section.allCases.map(\.rawValue).joined(separator: ","))
                              (without it, all but \(Section.onlyWhenAsked.map(\.rawValue).sorted().joined(separator: ","))).
          --slow-machine      Only the slow-machine mode (issue 25): lectord in a Pi 4 core (a calibrated quota) on the realworld
                              photos replayed as cameras, against their offline reads (about 7 minutes, needs root;
                              the same as --only slowcpu).
          --rounds N          Recognition rounds per frame size (default 20).
          --frames N          Captured frames per stand-in latency run (default 10000).
          --real-frames N     Published results per real-Tesseract latency run (default 300).
          --memory-frames N   Frames lectord recognizes in the memory run (default 2000).
          --peer-rounds N     pytesseract frames per variant (default 8).
          --python PATH       A Python with pytesseract (default: .build/bench-venv/bin/python3).
          --realworld DIR     The realworld photos engines reads (default: ../shared/testdata/realworld).
          --lines FILE        Writes every line engines read, each engine's text, confidence and ms, as JSON lines.
          --meters DIR        The display photos segments reads (truth.tsv, img/; default: ../shared/testdata/meters).
          --crops DIR         Where segments writes each display line as the segments network reads it (PGM) and lines.jsonl.
          --segments-model FILE  The segments network segments reads the lines with (default: the installed one).
          --detect-side N     The longer side segments detects the photos at (default: the detector's, 1280).
          --netcam-url URL    The network camera netcams reads (with --only netcams): one lectord reads N cameras of it
                              (`?camera=i` added to each), its CPU per camera beside `ffmpeg -threads 1` decoding it alone.
          --netcams N         Cameras of the URL lectord reads in netcams (default 4).
          --netcam-seconds S  Seconds netcams measures CPU over, after every camera's first TEXT (default 30; smoke 5).
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        var scanner = ArgumentScanner(arguments)
        var explicit: Set<String> = []
        while let argument = scanner.next() {
            explicit.insert(argument)
            switch argument {
            case "--help", "-h": options.showHelp = try scanner.flag(argument)
            case "--smoke": options.smoke = try scanner.flag(argument)
            case "--json": options.jsonPath = try scanner.value(for: argument)
            case "--only":
                let names = try scanner.value(for: argument).split(separator: ",").map(String.init)
                var sections = Set<Section>()
                for name in names {
                    guard let section = Section(rawValue: name) else {
                        throw UsageError("--only takes \(Section.allCases.map(\.rawValue).joined(separator: ",")), not '\(name)'")
                    }
                    sections.insert(section)
                }
                options.sections = sections
            case "--slow-machine": if try scanner.flag(argument) { options.sections = [.slowcpu] }
            case "--rounds": options.rounds = try scanner.integer(for: argument, in: 1...10_000)
            case "--frames": options.standInFrames = try scanner.integer(for: argument, in: 10...10_000_000)
            case "--real-frames": options.realFrames = try scanner.integer(for: argument, in: 5...1_000_000)
            case "--memory-frames": options.memoryFrames = try scanner.integer(for: argument, in: 2...10_000_000)
            case "--peer-rounds": options.peerRounds = try scanner.integer(for: argument, in: 1...10_000)
            case "--python": options.python = try scanner.value(for: argument)
            case "--realworld": options.realworld = try scanner.value(for: argument)
            case "--lines": options.linesPath = try scanner.value(for: argument)
            case "--meters": options.meters = try scanner.value(for: argument)
            case "--crops": options.cropsPath = try scanner.value(for: argument)
            case "--segments-model": options.segmentsModel = try scanner.value(for: argument)
            case "--detect-side": options.detectSide = try scanner.integer(for: argument, in: 64...4096)
            case "--netcam-url": options.netcamURL = try scanner.value(for: argument)
            case "--netcams": options.netcams = try scanner.integer(for: argument, in: 1...64)
            case "--netcam-seconds": options.netcamSeconds = try Double(scanner.integer(for: argument, in: 1...3600))
            default: throw UsageError("unknown option '\(argument)'")
            }
        }
        if options.smoke {
            // Small counts unless given explicitly: the whole run stays under a minute.
            if !explicit.contains("--rounds") { options.rounds = 2 }
            if !explicit.contains("--frames") { options.standInFrames = 150 }
            if !explicit.contains("--real-frames") { options.realFrames = 10 }
            if !explicit.contains("--memory-frames") { options.memoryFrames = 20 }
            if !explicit.contains("--peer-rounds") { options.peerRounds = 1 }
            if !explicit.contains("--netcam-seconds") { options.netcamSeconds = 5 }
            options.stageIterations = 10
            options.fanOutMessages = 30
            options.sizes = ["640x480", "1280x720"]
        }
        return options
    }
}
