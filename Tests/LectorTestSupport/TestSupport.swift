import Foundation
import LectorProtocol

/// Paths and helpers shared by the tests.
public enum TestSupport {
    /// The package's root folder.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Tests/Fixtures, made by scripts/make-fixtures.py.
    public static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/Fixtures/\(name)").path
    }

    /// The words a fixture was rendered with (its .txt sidecar).
    public static func fixtureWords(_ name: String) throws -> [String] {
        let text = try String(contentsOfFile: fixture((name as NSString).deletingPathExtension + ".txt"), encoding: .utf8)
        return text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The shared scanned pages (present beside the repository in CI and in sessions).
    public static let sharedTestData = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata/tesseract-test").path

    /// A built executable of this package (lectord, lector), next to the test bundle.
    public static func executable(_ name: String) -> String {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [besideTests, besideTests.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }

    /// A fresh temporary folder.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lector-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Share of `expected` words (with repeats) found in `actual`.
    public static func recall(expected: [String], actual: [String]) -> Double {
        var remaining: [String: Int] = [:]
        for word in actual { remaining[word, default: 0] += 1 }
        var found = 0
        for word in expected where remaining[word, default: 0] > 0 {
            remaining[word]! -= 1
            found += 1
        }
        return expected.isEmpty ? 1 : Double(found) / Double(expected.count)
    }

    /// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
    public static func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}

/// The result of running a program to its end.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// The JSON objects printed on stdout, one per line.
    public var messages: [JSONValue] { stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) } }

    public func messages(class name: String) -> [JSONValue] { messages.filter { $0["class"]?.stringValue == name } }
}

/// Runs `executable` with `arguments`; kills it after `timeout` seconds.
public func run(_ executable: String, _ arguments: [String], timeout: Double = 120, environment: [String: String] = [:]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["OMP_THREAD_LIMIT"] = env["OMP_THREAD_LIMIT"] ?? "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes while the process runs so a full pipe never blocks it.
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data(), errData = Data()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    process.waitUntilExit()
    killer.cancel()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Polls `condition` until it holds or `timeout` seconds pass: for state that changes
/// asynchronously (a camera stopping on another thread). Asserts the state, not a time:
/// the default wait is generous because CI runs beside other work on two cores.
public func eventually(timeout: Double = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

/// A tiny deterministic generator (SplitMix64), so a failing table row or fuzz input can be replayed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(_ seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
