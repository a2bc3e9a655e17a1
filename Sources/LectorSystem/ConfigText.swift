import Foundation

/// A mistake in a configuration file: names the file, the line and the key
/// (`file:line: key: message`), for lectord's file and the bridges' alike.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let path: String
    /// 1-based; 0 when the mistake is the file itself (unreadable, not text).
    public let line: Int
    public let key: String?
    public let message: String

    public init(path: String, line: Int, key: String?, message: String) {
        self.path = path
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(path):\(line): \(key): \(message)" }
        return line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

/// One line of a configuration file that says something.
public enum ConfigLine: Equatable, Sendable {
    /// `[name]`, the name without brackets and surrounding blanks.
    case section(String)
    /// `key = value`; `-` in the key is read as `_`, the value runs to the end of the
    /// line (a `#` after a space or tab starts a comment) without surrounding blanks.
    case setting(key: String, value: String)
}

/// The syntax every Lector configuration file shares: `key = value` lines, `[section]`
/// headers, comments from a `#` or `;` at the start of a line or a `#` after a space or
/// tab, blank lines. What the sections and keys mean is the caller's.
public enum ConfigText {
    /// The text of the configuration file `path`: a regular file only, read without
    /// blocking (a FIFO named as the configuration would hang the start).
    /// - Throws: ``ConfigError`` at line 0 when it cannot be read or is not UTF-8.
    public static func read(_ path: String) throws(ConfigError) -> String {
        let contents: String?
        do {
            contents = try RegularFile.readText(path)
        } catch {
            throw ConfigError(path: path, line: 0, key: nil, message: "cannot read the file: \(error.reason)")
        }
        guard let contents else { throw ConfigError(path: path, line: 0, key: nil, message: "not UTF-8 text") }
        return contents
    }

    /// The lines of `text` that say something, with their 1-based numbers.
    /// - Throws: ``ConfigError`` for a header without its `]` or a line without `=`.
    public static func lines(_ text: String, path: String) throws(ConfigError) -> [(number: Int, line: ConfigLine)] {
        var lines: [(number: Int, line: ConfigLine)] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if line.first == "#" || line.first == ";" { continue }
            if let comment = line.range(of: " #") ?? line.range(of: "\t#") { line = line[..<comment.lowerBound] }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    throw ConfigError(path: path, line: number, key: nil, message: "a section header must end with ]")
                }
                lines.append((number, .section(trimmed.dropFirst().dropLast().trimmingCharacters(in: .whitespaces))))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw ConfigError(path: path, line: number, key: nil, message: "expected 'key = value'")
            }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_")
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            lines.append((number, .setting(key: key, value: value)))
        }
        return lines
    }
}
