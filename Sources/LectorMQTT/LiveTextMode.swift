import Foundation

/// What a camera's `…/text` topic carries, chosen per camera from Home Assistant's
/// "Live text" select (`…/live_text/set`); the bridge states it on `…/live_text`.
public enum LiveTextMode: String, CaseIterable, Sendable {
    /// The consensus of the lines that settled (TRACK events), else the last TEXT: text
    /// that stays put while the camera looks at it (the default).
    case settled
    /// Each recognized frame's text as read, flicker included.
    case everyFrame = "every frame"

    /// The mode a command's payload names (its option, or `every_frame`), nil for another.
    public init?(command payload: String) {
        let name = payload.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let mode = LiveTextMode(rawValue: name.replacingOccurrences(of: "_", with: " ")) {
            self = mode
        } else {
            return nil
        }
    }
}
