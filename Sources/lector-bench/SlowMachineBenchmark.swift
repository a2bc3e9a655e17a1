import Foundation
import LectorProtocol

/// Issues 25 and 40: lectord on a slow machine. Each realworld photo (every `docphoto`,
/// the first 10 of `platefull`) replayed as a 5 fps camera for 40 s in a CPU quota that
/// makes this machine's core a Pi 4 core (`scripts/cpuquota.py`'s calibration), against
/// an unthrottled offline read of the same photo: per set, the time to the first TEXT
/// holding half of the offline read's words, and the recall within the 40 s.
/// The measurement is `scripts/slowcpu.py` (the one implementation, also behind
/// tests/slowcpu, with the cgroup code in `scripts/cpuquota.py` and the scoring of
/// `scripts/eval-realworld.py`), run on the lectord built beside the benchmark; this
/// section prints its table as it goes and adds its per-set numbers to the report.
/// Not part of the default run: `--slow-machine` (about 7 minutes; root for the quota).
struct SlowMachineBenchmark {
    let bench: Benchmark

    static let script = "scripts/slowcpu.py"

    func run() {
        let executable = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("lectord").path ?? ""
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            bench.report.note("slowcpu: lectord is not built next to lector-bench (swift build -c release): section skipped")
            return
        }
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let script = sourceRoot + "/" + Self.script
        guard FileManager.default.fileExists(atPath: script) else {
            bench.report.note("slowcpu: \(Self.script) is missing (run from the source tree): section skipped")
            return
        }
        let jsonPath = NSTemporaryDirectory() + "lector-bench-slowcpu-\(ProcessInfo.processInfo.processIdentifier).json"
        defer { try? FileManager.default.removeItem(atPath: jsonPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--lectord", executable, "--json", jsonPath]
            + (bench.options.smoke ? ["--sets", "docphoto,platefull", "--plates", "1", "--seconds", "8"] : [])
        do {
            try process.run()  // its table goes to our standard output as it is measured
        } catch {
            bench.report.note("slowcpu: cannot run \(Self.script): \(error)")
            return
        }
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0: break
        case 77:
            bench.report.note("slowcpu: no writable cgroup cpu controller here (needs root): section skipped")
            return
        default:
            bench.report.note("slowcpu: \(Self.script) failed (exit status \(process.terminationStatus))")
            return
        }
        guard let data = FileManager.default.contents(atPath: jsonPath),
              let result = try? JSONParser.parse(Array(data)),
              let sets = result["sets"]?.arrayValue else {
            bench.report.note("slowcpu: \(Self.script) wrote no readable results")
            return
        }
        let firstTarget = result["first_text_target_s"]?.doubleValue ?? 6
        let ratioTarget = result["recall_ratio_target"]?.doubleValue ?? 0.9
        let seconds = result["seconds"]?.doubleValue ?? 40
        let quota = result["quota_percent"]?.doubleValue ?? 33
        for photo in result["photos"]?.arrayValue ?? [] {
            guard let set = photo["set"]?.stringValue, let name = photo["photo"]?.stringValue,
                  let matched = photo["offline_matched"]?.doubleValue, let total = photo["total"]?.doubleValue,
                  let best = photo["best_recall"]?.doubleValue else { continue }
            let first = photo["first_half_text_s"]?.doubleValue
            bench.report.add(section: "slowcpu", item: "\(set)/\(name)",
                             value: "first half-text \(first.map { "\(format($0, 1)) s" } ?? "none"), best recall \(format(best, 3)) "
                                 + "(offline read \(Int(matched))/\(Int(total)))",
                             numbers: [("first_half_text_s", first ?? .nan), ("best_recall", best),
                                       ("offline_matched", matched), ("truth_words", total)])
        }
        for entry in sets {
            guard let name = entry["set"]?.stringValue, let photos = entry["photos"]?.doubleValue,
                  let within = entry["first_half_text_within_target"]?.doubleValue,
                  let offline = entry["mean_offline_recall"]?.doubleValue,
                  let best = entry["mean_best_recall"]?.doubleValue else { continue }
            let target = entry["first_text_target_s"]?.doubleValue ?? firstTarget
            let fromStart = result["first_text_from_start_target_s"]?.doubleValue
            bench.report.add(section: "slowcpu", item: "\(name): first half-text within \(format(target, 0)) s"
                                 + (fromStart.map { " (\(format($0, 0)) s from the start)" } ?? "") + ", \(format(quota, 0)) % core",
                             value: "\(Int(within)) of \(Int(photos)) photos", target: "all \(Int(photos))",
                             status: Report.check(within == photos),
                             numbers: [("photos", photos), ("first_half_text_within_target", within)])
            bench.report.add(section: "slowcpu", item: "\(name): mean best recall in \(format(seconds, 0)) s, \(format(quota, 0)) % core",
                             value: "\(format(best, 3)) (offline read \(format(offline, 3)))",
                             target: "≥ \(format(ratioTarget, 1))× offline", status: Report.check(best >= ratioTarget * offline),
                             numbers: [("mean_best_recall", best), ("mean_offline_recall", offline)])
        }
    }
}
