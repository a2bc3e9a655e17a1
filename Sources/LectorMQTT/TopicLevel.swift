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
}
