import Foundation

/// A rule of a camera or one of its zones (`[rule CAMERA/ZONE/NAME]`, `[rule CAMERA/NAME]`):
/// a line whose text matches `pattern` publishes a MATCH, and runs `hook` if it has one.
public struct RuleSpec: Equatable, Sendable {
    /// Its own name (`any` for `[rule meter/reading/any]`).
    public var name: String
    /// The zone whose lines it looks at; nil: every line of the camera.
    public var zone: String?
    /// An ICU regular expression (the syntax of Foundation's `NSRegularExpression`),
    /// searched in each line's text under a step limit (``RuleExpression``).
    public var pattern: String
    /// Lines (or settled tracks) less confident than this do not match (0-1).
    public var minimumConfidence = 0.0
    /// Match only a line track's settled text, once per new settled reading (default);
    /// false: every recognized line whose text differs from the rule's last match.
    public var settledOnly = true
    /// A program run on each match, without a shell (`on_match`).
    public var hook: String?
    /// Seconds a hook may run before it is killed (`hook_timeout`, default 10).
    public var hookTimeout = 10.0

    public init(name: String, zone: String? = nil, pattern: String) {
        self.name = name
        self.zone = zone
        self.pattern = pattern
    }

    /// `zone/name`, or `name` for a camera-wide rule: how logs name it.
    public var qualifiedName: String { zone.map { "\($0)/\(name)" } ?? name }

    /// Why `pattern` is not a regular expression, or nil when it is.
    package static func patternProblem(_ pattern: String) -> String? {
        do {
            _ = try RuleExpression(pattern)
            return nil
        } catch {
            return "not a valid ICU regular expression (\(error)): \(pattern)"
        }
    }

    /// A warning for `--check-config` when `pattern` repeats a group that repeats
    /// something itself, or nil: such a pattern can take exponential time on a line that
    /// almost matches, and is then skipped for that line.
    package static func patternWarning(_ pattern: String) -> String? {
        guard RuleExpression.hasNestedQuantifier(pattern) else { return nil }
        return "nested quantifiers (a repeated group that repeats inside, as in ([0-9]+ ?)+) can backtrack without end "
            + "on a line that almost matches; such a line is skipped for this rule after \(RuleExpression.stepLimit) units "
            + "of ICU's limit: make the inner repetition possessive ([0-9]++) or the group atomic ((?>[0-9]+ ?)+), "
            + "or write it without the nesting ([0-9 ]+)"
    }

    /// Why `path` cannot be a hook (not absolute, missing, not executable), or nil.
    package static func hookProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "must be an absolute path to a program, not '\(path)'" }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "\(path) does not exist" }
        guard !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: path) else { return "\(path) is not an executable file" }
        return nil
    }
}
