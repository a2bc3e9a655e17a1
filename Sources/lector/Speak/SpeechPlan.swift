import Foundation
import LectorProtocol
import LectorSystem

/// What `lector speak` says and when, from the stream of one camera: each line when it
/// settles (TRACK `new` or `changed`) and nothing else, in reading order, not the same
/// text twice within ``SpeakSettings/repeatAfter``; a scene change drops what was still
/// to be said and asks to cut short what is being said.
///
/// The scene is the set of tracks seen since the last change. A TEXT none of whose lines
/// belongs to it shows another scene (the page was turned or another one held up); a
/// track that goes `gone` left the view. Pure logic: the caller feeds messages and the
/// clock, and plays what ``next(now:)`` gives.
public struct SpeechPlan {
    /// What the caller must do about the utterance in progress.
    public enum Interruption: Equatable, Sendable {
        /// Nothing: go on.
        case none
        /// Cut it short: the scene changed, or its line left the view.
        case cut
    }

    private struct Pending {
        var utterance: Utterance
        var box: PixelBox
        var queued: MonotonicInstant
    }

    public let settings: SpeakSettings
    /// The utterance being spoken, between ``next(now:)`` and ``finished(completely:now:)``.
    public private(set) var speaking: Utterance?
    private var queue: [Pending] = []
    private var scene: Set<String> = []
    /// Each track's place in the latest TEXT that had it (reading order) and its language.
    private var order: [String: Int] = [:]
    private var language: [String: String] = [:]
    /// The tracks of the latest TEXT, and those announced (settled) so far.
    private var latestTracks: [String] = []
    /// Whether the latest TEXT was a partial read (lines of the scene not read yet).
    private var latestPartial = false
    private var announced: Set<String> = []
    /// Texts spoken whole, by their key, and when.
    private var spoken: [String: MonotonicInstant] = [:]

    public init(settings: SpeakSettings) {
        self.settings = settings
    }

    /// The texts waiting, in the order they will be spoken.
    public var waiting: [String] { sorted().map(\.utterance.text) }

    /// A TEXT of the camera: reading order, languages, and whether the scene changed.
    public mutating func text(_ message: TextMessage) -> Interruption {
        var ids: [String] = []
        for block in message.blocks {
            for line in block.children ?? [] {
                guard let id = line.track else { continue }
                order[id] = ids.count
                if let blockLanguage = block.language { language[id] = blockLanguage }
                ids.append(id)
            }
        }
        latestTracks = ids
        latestPartial = message.unreadLines > 0
        guard !ids.isEmpty else { return .none }
        if !scene.isEmpty, scene.isDisjoint(with: ids) {
            scene = Set(ids)
            queue.removeAll()
            announced = []
            return speaking == nil ? .none : .cut
        }
        scene.formUnion(ids)
        return .none
    }

    /// A TRACK of the camera: a settled line is queued, a line that left is dropped.
    public mutating func track(_ message: TrackMessage, now: MonotonicInstant) -> Interruption {
        switch message.event {
        case .gone:
            scene.remove(message.id)
            queue.removeAll { $0.utterance.track == message.id }
            return speaking?.track == message.id ? .cut : .none
        case .new, .changed:
            scene.insert(message.id)
            announced.insert(message.id)
            let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            queue.removeAll { $0.utterance.track == message.id }
            guard !text.isEmpty, message.confidence >= settings.minimumConfidence, !wasSpoken(text, now: now),
                  !queue.contains(where: { Self.key($0.utterance.text) == Self.key(text) }) else { return .none }
            let voice = settings.voice ?? EspeakVoice.voice(forTesseractLanguage: language[message.id])
            queue.append(Pending(utterance: Utterance(device: message.device, track: message.id, text: text, voice: voice),
                                 box: message.box, queued: now))
            return .none
        }
    }

    /// The next line to speak, if one is due: the first in reading order, once every line
    /// of the latest text has settled or the first waiting line has waited
    /// ``SpeakSettings/orderGraceSeconds`` (``SpeakSettings/partialGraceSeconds`` while
    /// the latest text is a partial read: the lines above may not have been read yet).
    public mutating func next(now: MonotonicInstant) -> Utterance? {
        guard speaking == nil else { return nil }
        let repeats = Set(queue.filter { wasSpoken($0.utterance.text, now: now) }.map(\.utterance.track))
        queue.removeAll { repeats.contains($0.utterance.track) }
        guard let oldest = queue.map(\.queued).min() else { return nil }
        let waited = now.milliseconds(since: oldest) / 1000
        if latestPartial, waited < SpeakSettings.partialGraceSeconds { return nil }
        if latestTracks.contains(where: { !announced.contains($0) }), waited < SpeakSettings.orderGraceSeconds { return nil }
        guard let first = sorted().first else { return nil }
        queue.removeAll { $0.utterance.track == first.utterance.track }
        speaking = first.utterance
        return first.utterance
    }

    /// The utterance in progress ended: whole (then its text is not spoken again for a
    /// while) or cut short.
    public mutating func finished(completely: Bool, now: MonotonicInstant) {
        if completely, let text = speaking?.text { spoken[Self.key(text)] = now }
        speaking = nil
        spoken = spoken.filter { now.milliseconds(since: $0.value) < settings.repeatAfter * 1000 }
    }

    private func wasSpoken(_ text: String, now: MonotonicInstant) -> Bool {
        guard let when = spoken[Self.key(text)] else { return false }
        return now.milliseconds(since: when) < settings.repeatAfter * 1000
    }

    /// Reading order: the place in the latest text, then top to bottom, left to right.
    private func sorted() -> [Pending] {
        queue.sorted { a, b in
            let (oa, ob) = (order[a.utterance.track] ?? Int.max, order[b.utterance.track] ?? Int.max)
            if oa != ob { return oa < ob }
            return (a.box.y, a.box.x) < (b.box.y, b.box.x)
        }
    }

    /// Texts that differ only in case or spacing are the same when heard.
    static func key(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
