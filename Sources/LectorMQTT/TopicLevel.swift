/// Turns names into MQTT topic levels: `/dev/video0` → `dev_video0`.
public enum TopicLevel {
    /// `name` as one topic level: letters, digits, `-` and `_` kept; every other run of
    /// characters (`/`, `+`, `#`, spaces, dots…) becomes one `_`; leading and trailing
    /// `_` dropped; empty becomes `_`.
    public static func safe(_ name: String) -> String {
        var level = ""
        var pendingSeparator = false
        for scalar in name.unicodeScalars {
            let keep = (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || scalar == "-" || scalar == "_"
            if keep {
                if pendingSeparator && !level.isEmpty { level.append("_") }
                pendingSeparator = false
                level.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        while level.hasSuffix("_") { level.removeLast() }
        while level.hasPrefix("_") { level.removeFirst() }
        return level.isEmpty ? "_" : level
    }

    /// The topic level of each of `cameras` (lectord's names for them), the same whatever
    /// their order: a camera's level is its name made ``safe(_:)``; when two or more
    /// names make the same level, the camera whose name *is* that level keeps it and each
    /// other one gets the level followed by `_` and 6 hexadecimal digits of its name's
    /// FNV-1a hash (`a.b` beside `a_b` is `a_b_` + the hash of `a.b`).
    public static func levels(of cameras: some Sequence<String>) -> [String: String] {
        var levels: [String: String] = [:]
        for (level, names) in Dictionary(grouping: Set(cameras), by: safe) {
            for name in names {
                levels[name] = names.count == 1 || name == level ? level : level + "_" + fingerprint(name)
            }
        }
        return levels
    }

    /// 6 hexadecimal digits of the 32-bit FNV-1a hash of `name`'s UTF-8 (stable from run
    /// to run, unlike Swift's `Hasher`).
    static func fingerprint(_ name: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash >> 8, radix: 16)
        return String(repeating: "0", count: 6 - hex.count) + hex
    }
}
