import Foundation
import Synchronization

/// A small logger in swift-log's shape: levels, a fixed message plus key=value
/// metadata, messages built only when they will be written. Writes to stderr; under
/// systemd (JOURNAL_STREAM set) each line starts with a `<N>` syslog priority that
/// journald understands.
public struct Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case debug, info, notice, warning, error

        public init?(name: String) {
            guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// syslog priority.
        var priority: Int {
            switch self {
            case .debug: 7
            case .info: 6
            case .notice: 5
            case .warning: 4
            case .error: 3
            }
        }

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var label: String
    /// The lowest level written. Shared by this logger and every logger made from it
    /// with ``with(_:_:)``: setting it (SIGHUP's `log_level`) changes them all.
    public var level: Level {
        get { threshold.level }
        nonmutating set { threshold.level = newValue }
    }
    private let threshold: LevelThreshold
    /// Metadata added to every line of this logger (e.g. `device=/dev/video0`).
    public var metadata: [(String, String)]
    private let journald: Bool
    private let once: OnceRegistry

    public init(label: String, level: Level = .info, journald: Bool? = nil) {
        self.label = label
        self.threshold = LevelThreshold(level)
        self.metadata = []
        self.journald = journald ?? (ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil)
        self.once = OnceRegistry()
    }

    /// A logger that adds `key=value` to every line.
    public func with(_ key: String, _ value: String) -> Logger {
        var copy = self
        copy.metadata.append((key, value))
        return copy
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) {
        guard level >= self.level else { return }
        var line = journald ? "<\(level.priority)>" : "\(level.name): "
        line += message()
        for (key, value) in metadata + fields() {
            line += " \(key)=\(Self.quoted(value))"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.debug, message(), fields()) }
    public func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.info, message(), fields()) }
    public func notice(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.notice, message(), fields()) }
    public func warning(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.warning, message(), fields()) }
    public func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [(String, String)] = []) { log(.error, message(), fields()) }

    /// Logs only when the message or its fields differ from the last line logged under
    /// `key` by a logger with this logger's metadata, so an error that repeats every frame
    /// or every retry is written once until it changes (ustreamer's `US_ONCE_FOR`), and
    /// two cameras' loggers never silence each other. ``clearOnce(_:)`` re-arms it.
    public func once(_ key: String, _ level: Level, _ message: String, _ fields: [(String, String)] = []) {
        let line = ([message] + fields.map { "\($0)=\($1)" }).joined(separator: " ")
        if once.shouldLog(key: scoped(key), message: line) { log(level, message, fields) }
    }

    /// Forgets the last line under `key` (the condition cleared).
    public func clearOnce(_ key: String) { once.clear(key: scoped(key)) }

    /// `key` qualified by this logger's metadata (e.g. its device).
    private func scoped(_ key: String) -> String {
        ([key] + metadata.map { "\($0)=\($1)" }).joined(separator: " ")
    }

    private static func quoted(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

/// A logger's level, shared by the loggers made from it.
final class LevelThreshold: Sendable {
    private let value: Atomic<Int>

    init(_ level: Logger.Level) { value = Atomic(level.rawValue) }

    var level: Logger.Level {
        get { Logger.Level(rawValue: value.load(ordering: .relaxed)) ?? .info }
        set { value.store(newValue.rawValue, ordering: .relaxed) }
    }
}

/// Remembers the last message logged per key, for ``Logger/once(_:_:_:_:)``.
final class OnceRegistry: Sendable {
    private let last = Mutex<[String: String]>([:])

    func shouldLog(key: String, message: String) -> Bool {
        last.withLock { table in
            guard table[key] != message else { return false }
            table[key] = message
            return true
        }
    }

    func clear(key: String) { _ = last.withLock { $0.removeValue(forKey: key) } }
}
