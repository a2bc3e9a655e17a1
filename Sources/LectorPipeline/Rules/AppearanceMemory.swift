/// One event per appearance (a rule's `repeat_after`): what a plate rule has announced,
/// so that a plate that stays in view is one MATCH, and comes again only after it was out
/// of view for `repeatAfter` seconds. A reading is known by its identity (the known
/// entry's text, else the corrected reading); a line track that already gave a MATCH
/// gives no other (its settled reading changing, `B0ABC123` to `BOABC12`, is not a new
/// car), save once when its reading becomes a known entry it was not; so is an identity
/// announced as not known that is now a known entry (the list was edited).
///
/// A known entry's appearance is the scene's event: while a track carries a known entry
/// announced less than `repeatAfter` seconds ago, other readings are held back
/// (``holdsBack(now:except:)``: the car's lettering, the sign it stops by); the caller
/// offers those still in view again once nothing holds them back. Pure: times are seconds
/// on one monotonic clock, given by the caller.
public struct AppearanceMemory: Sendable {
    /// Seconds an identity must be out of view before it is a new appearance.
    public let repeatAfter: Double
    /// When each identity was last in view (a line read as it, or a track that carries it).
    private var lastSeen: [String: Double] = [:]
    /// The tracks alive that gave (or would have given) a MATCH: their identity, and
    /// whether that was a known entry.
    private var tracks: [String: (identity: String, known: Bool)] = [:]
    /// Identities announced while remembered, and whether they were known then.
    private var announced: [String: Bool] = [:]
    /// When each known identity remembered was announced.
    private var announcedKnown: [String: Double] = [:]

    public init(repeatAfter: Double) {
        self.repeatAfter = repeatAfter
    }

    /// Whether a reading of `identity` (a known entry when `known`) on `track` at `now`
    /// is a new appearance (a MATCH); it is remembered either way.
    public mutating func admit(identity: String, known: Bool, track: String?, now: Double) -> Bool {
        defer { lastSeen[identity] = now }
        let newlyKnown = known && announced[identity] == false
        var news: Bool
        if let track, let earlier = tracks[track] {
            // The same car: only its first known reading is news.
            guard known, !earlier.known else { return false }
            news = newlyKnown || (earlier.identity != identity && isOutOfView(identity, now: now, except: track))
        } else {
            news = newlyKnown || isOutOfView(identity, now: now, except: track)
        }
        if let track { tracks[track] = (identity, known) }
        if news {
            announced[identity] = known
            if known { announcedKnown[identity] = now }
        }
        return news
    }

    /// Whether a known entry's appearance holds other readings back at `now`: a track
    /// other than `track` carries a known entry announced less than `repeatAfter` seconds
    /// before. A reading held back is not remembered as announced.
    public func holdsBack(now: Double, except track: String?) -> Bool {
        tracks.contains { key, value in
            guard key != track, value.known, let since = announcedKnown[value.identity] else { return false }
            return now - since < repeatAfter
        }
    }

    /// Whether no other alive track carries `identity` and it was last seen more than
    /// `repeatAfter` seconds before `now` (or never).
    private func isOutOfView(_ identity: String, now: Double, except track: String?) -> Bool {
        if tracks.contains(where: { $0.key != track && $0.value.identity == identity }) { return false }
        guard let seen = lastSeen[identity] else { return true }
        return now - seen >= repeatAfter
    }

    /// `track` was in view at `now` (a frame read it): its identity is still in view.
    public mutating func saw(track: String, now: Double) {
        if let identity = tracks[track]?.identity { lastSeen[identity] = max(lastSeen[identity] ?? now, now) }
    }

    /// `track` is gone, last seen at `lastSeen`: its identity's absence starts then.
    /// Identities out of view for longer than `repeatAfter` are forgotten.
    public mutating func gone(track: String, lastSeen seen: Double) {
        if let identity = tracks.removeValue(forKey: track)?.identity {
            lastSeen[identity] = max(lastSeen[identity] ?? seen, seen)
        }
        lastSeen = lastSeen.filter { seen - $0.value < repeatAfter }
        announced = announced.filter { entry in lastSeen[entry.key] != nil || tracks.values.contains { $0.identity == entry.key } }
        announcedKnown = announcedKnown.filter { announced[$0.key] == true }
    }
}
