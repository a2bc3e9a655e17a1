import Foundation
import LectorProtocol
import LectorSystem

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
    /// Tries the look-alike swaps (``LookAlike``) when the text as read does not match,
    /// and tests texts without spaces, hyphens and dots (`alike`).
    public var alike = false
    /// The known list (`known = FILE`), read with the configuration (and again on SIGHUP).
    public var known: KnownList?
    /// Edits (after look-alike folding) a reading may be from a known entry (`max_distance`).
    public var maximumDistance = 1
    /// Seconds a reading must be out of view before it is a new MATCH (`repeat_after`);
    /// nil: the default of the rule's kind, ``defaultRepeatAfter`` for a camera-wide rule
    /// without meter checks, none (every new reading is an event) for the others.
    public var repeatAfter: Double?
    /// A meter reading never goes down (`monotonic`).
    public var monotonic = false
    /// The most a meter reading may rise per hour (`max_rate`); nil: no limit.
    public var maximumRate: Double?
    /// Rejected readings in a row, agreeing with each other, that are accepted as a meter
    /// replaced or reset (`reset_after`).
    public var resetAfter = 3

    /// The unit of a meter's readings (`unit`, e.g. `kWh`), for Home Assistant's sensor.
    public var unit: String?
    /// The meter's display (`decimals`, `digits`): its fixed decimal point, placed in the
    /// text before `pattern` is tested, and its digit positions.
    public var display = MeterDisplay()

    /// `repeat_after`'s default for a camera-wide rule.
    public static let defaultRepeatAfter = 30.0

    /// Whether the rule checks meter readings (`monotonic` or `max_rate`).
    public var isMeter: Bool { monotonic || maximumRate != nil }

    /// Whether its MATCHes' digits are checked against a display (a meter's rule, or one with `digits`/`decimals`).
    public var checksDigits: Bool { isMeter || display.isGiven }

    /// The seconds of one event per appearance this rule keeps, or nil when every new
    /// reading of its place is an event (a zone's or a meter's rule, or `repeat_after = 0`).
    public var appearanceSeconds: Double? {
        if isMeter { return nil }
        let seconds = repeatAfter ?? (zone == nil ? Self.defaultRepeatAfter : 0)
        return seconds > 0 ? seconds : nil
    }

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

    /// How DEVICE lists the rule.
    public var info: RuleInfo { RuleInfo(name: name, zone: zone, known: known != nil, meter: isMeter, unit: unit) }

    /// The known list at `path`.
    /// - Throws: ``KnownList/Problem`` (line 0 when the file cannot be read).
    package static func knownList(at path: String) throws(KnownList.Problem) -> KnownList {
        let text: String?
        do {
            text = try RegularFile.readText(path, maximumBytes: 16 << 20)
        } catch {
            throw KnownList.Problem(path: path, line: 0, message: error.reason)
        }
        guard let text else { throw KnownList.Problem(path: path, line: 0, message: "is not UTF-8 text") }
        return try KnownList(path: path, contents: text)
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
