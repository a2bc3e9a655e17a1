import LectorOptions
import LectorSystem

/// A camera's own name (`[camera kitchen]`, `--name kitchen`): its `device` in messages
/// and requests, and the first part of its zones' and rules' names (`kitchen/door`).
enum CameraName {
    /// Checks `text`: letters, digits, `-`, `_` and `.`, not `all` (WATCH's word for every camera).
    static func parse(_ text: String) throws(OptionValueError) -> String {
        guard isValid(text) else {
            throw OptionValueError("must be letters, digits, '-', '_' or '.' (and not 'all'), not \(UsageError.quoted(text))")
        }
        return text
    }

    /// Whether `text` can name a camera, a zone or a rule.
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text != "all" && text.count <= 64
            && text.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic || ("0"..."9").contains($0)) || "-_.".unicodeScalars.contains($0) }
    }
}
