import LectorOptions
import LectorPipeline
import LectorProtocol
import LectorRecognition
import LectorSystem

/// A `[zone CAMERA/ZONE]` section of the configuration file, as read so far.
struct ZoneSection {
    let line: Int
    let camera: String
    var zone: ZoneSpec
    var rectGiven = false

    static let keys = ["rect", "psm", "whitelist", "lang", "scale", "invert", "min_height", "engine"]

    /// `CAMERA/ZONE` of the header.
    init(line: Int, name: String) throws(OptionValueError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, CameraName.isValid(parts[0]), CameraName.isValid(parts[1]) else {
            throw OptionValueError("a zone is named [zone CAMERA/ZONE] (letters, digits, '-', '_', '.'), not [zone \(name)]")
        }
        self.line = line
        camera = parts[0]
        zone = ZoneSpec(name: parts[1], rect: PixelBox(x: 0, y: 0, width: 0, height: 0))
    }

    /// `--zone 'NAME=X,Y,W,H KEY=VALUE…'`: a zone of every camera the flags give.
    static func parseFlag(_ text: String) throws(OptionValueError) -> ZoneSpec {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !words.isEmpty, let equals = words[0].firstIndex(of: "=") else {
            throw OptionValueError("must be 'NAME=X,Y,W,H KEY=VALUE...', not \(UsageError.quoted(text))")
        }
        let name = String(words[0][..<equals])
        guard CameraName.isValid(name) else { throw OptionValueError("zone name must be letters, digits, '-', '_' or '.', not \(UsageError.quoted(name))") }
        var section = ZoneSection(line: 0, camera: "", zone: ZoneSpec(name: name, rect: PixelBox(x: 0, y: 0, width: 0, height: 0)))
        words[0] = "rect=" + words[0][words[0].index(after: equals)...]
        for word in words {
            guard let sign = word.firstIndex(of: "=") else { throw OptionValueError("expected KEY=VALUE, not \(UsageError.quoted(word))") }
            let key = String(word[..<sign])
            do { try section.set(key, String(word[word.index(after: sign)...])) } catch {
                throw OptionValueError("\(key): \(error.message)")
            }
        }
        return section.zone
    }

    private init(line: Int, camera: String, zone: ZoneSpec) {
        self.line = line
        self.camera = camera
        self.zone = zone
    }

    mutating func set(_ key: String, _ value: String) throws(OptionValueError) {
        switch key {
        case "rect":
            switch ValueSyntax.checkedBox(value) {
            case let .success(box): zone.rect = box
            case let .failure(refusal): throw OptionValueError("\(refusal.reason), not \(UsageError.quoted(value))")
            }
            rectGiven = true
        case "psm": zone.profile.pageSegmentation = try ValueParser.integer(0...13).parse(value)
        case "whitelist":
            guard let whitelist = ZoneProfile.whitelist(value) else { throw OptionValueError("needs digits, alnum or the characters") }
            zone.profile.whitelist = whitelist
        case "lang":
            guard !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "_" }) else {
                throw OptionValueError("must look like eng or eng+deu, not \(UsageError.quoted(value))")
            }
            zone.profile.language = value
        case "scale": zone.profile.scale = try ValueParser.integer(1...4).parse(value)
        case "invert": zone.profile.invert = try ValueParser.bool.parse(value)
        case "min_height": zone.profile.minimumHeight = try ValueParser.integer(0...10000).parse(value)
        case "engine":
            guard let engine = LineEngine(rawValue: value) else {
                throw OptionValueError("must be \(LineEngine.allCases.map(\.rawValue).joined(separator: ", ")), not \(UsageError.quoted(value))")
            }
            zone.profile.engine = engine
        default: throw OptionValueError("unknown zone key; known: \(Self.keys.joined(separator: ", "))")
        }
    }
}

/// A `[rule CAMERA/ZONE/NAME]` (or camera-wide `[rule CAMERA/NAME]`) section, as read so far.
struct RuleSection {
    let line: Int
    let camera: String
    var rule: RuleSpec
    var matchGiven = false

    static let keys = ["match", "min_confidence", "settled_only", "on_match", "hook_timeout", "alike", "known", "max_distance",
                       "repeat_after", "monotonic", "max_rate", "reset_after", "unit", "decimals", "digits"]

    init(line: Int, name: String) throws(OptionValueError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), parts.allSatisfy(CameraName.isValid) else {
            throw OptionValueError("a rule is named [rule CAMERA/ZONE/NAME] or [rule CAMERA/NAME], not [rule \(name)]")
        }
        self.line = line
        camera = parts[0]
        rule = RuleSpec(name: parts[parts.count - 1], zone: parts.count == 3 ? parts[1] : nil, pattern: "")
    }

    mutating func set(_ key: String, _ value: String) throws(OptionValueError) {
        switch key {
        case "match":
            if let problem = RuleSpec.patternProblem(value) { throw OptionValueError(problem) }
            rule.pattern = value
            matchGiven = true
        case "min_confidence": rule.minimumConfidence = try ValueParser.number(0...1).parse(value)
        case "settled_only": rule.settledOnly = try ValueParser.bool.parse(value)
        case "on_match":
            if let problem = RuleSpec.hookProblem(value) { throw OptionValueError(problem) }
            rule.hook = value
        case "hook_timeout": rule.hookTimeout = try ValueParser.number(0.1...3600).parse(value)
        case "alike": rule.alike = try ValueParser.bool.parse(value)
        case "known":
            guard value.hasPrefix("/") else { throw OptionValueError("must be an absolute path to a file, not '\(value)'") }
            do { rule.known = try RuleSpec.knownList(at: value) } catch { throw OptionValueError("\(error)") }
        case "max_distance": rule.maximumDistance = try ValueParser.integer(0...8).parse(value)
        case "repeat_after": rule.repeatAfter = try ValueParser.number(0...86400).parse(value)
        case "monotonic": rule.monotonic = try ValueParser.bool.parse(value)
        case "max_rate": rule.maximumRate = try ValueParser.number(0...1e15).parse(value)
        case "reset_after": rule.resetAfter = try ValueParser.integer(1...1000).parse(value)
        case "unit":
            guard !value.isEmpty, value.count <= 16, !value.contains(where: { $0.isWhitespace || $0 == "\"" }) else {
                throw OptionValueError("must be a unit such as kWh or m³ (no spaces), not '\(value)'")
            }
            rule.unit = value
        case "decimals": rule.display.decimals = try ValueParser.integer(0...9).parse(value)
        case "digits": rule.display.digits = try ValueParser.integer(1...MeterDisplay.maximumDigits).parse(value)
        default: throw OptionValueError("unknown rule key; known: \(Self.keys.joined(separator: ", "))")
        }
    }
}
