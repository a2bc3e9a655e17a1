import Foundation
import LectorImaging
import LectorProtocol
import LectorRecognition
import LectorSystem

/// A camera's QR codes and barcodes: reads them in each frame the recognizer takes,
/// before its text is read (so a code is announced whether or not the text read has
/// finished), and turns what it finds into one CODE per appearance: a code (its zone,
/// format and content) is news when it was out of view for `codes_repeat_after` seconds
/// (the plates' rule, as their rules' `AppearanceMemory` keeps it for readings). A frame the change gate skips shows the
/// codes last found: they stay in view without being read again (no frame is read twice).
/// Recognizer threads share it (a lock).
public final class CodeWatch: @unchecked Sendable {
    private let device: String
    private let logger: Logger
    private let lock = NSLock()
    /// When each code was last in view, in seconds of the monotonic clock (under `lock`).
    private var lastSeen: [String: Double] = [:]
    /// The identities found in the frame last read, and its capture time (under `lock`).
    private var lastFound: (identities: [String], time: MonotonicInstant)?
    /// Capture times of the frames last read for codes (under `lock`).
    private var claimed: [MonotonicInstant] = []
    /// The stack generation of the last full (still) stack read for codes (under `lock`).
    private var stillGeneration: Int?

    public init(device: String, logger: Logger) {
        self.device = device
        self.logger = logger
    }

    /// Where codes are looked for with `options`: the whole upright image with the
    /// camera's formats, or with zones each zone with its own (or the camera's) formats.
    /// Empty: codes are off and cost nothing.
    public static func places(_ options: RecognizerOptions) -> [(zone: ZoneSpec?, formats: Set<CodeFormat>)] {
        guard CodeReader.isAvailable else { return [] }
        if options.zones.isEmpty { return options.codes.isEmpty ? [] : [(nil, options.codes)] }
        return options.zones.compactMap { zone in
            let formats = zone.profile.codes ?? options.codes
            return formats.isEmpty ? nil : (zone, formats)
        }
    }

    /// The formats read anywhere with `options` (DEVICES' `codes`), in
    /// ``CodeFormat/allCases``' order; nil when codes are off.
    public static func formats(_ options: RecognizerOptions) -> [CodeFormat]? {
        let read = places(options).reduce(into: Set<CodeFormat>()) { $0.formUnion($1.formats) }
        return read.isEmpty ? nil : CodeFormat.allCases.filter(read.contains)
    }

    /// Reads the codes of `upright` (frame `sequence`, captured at `time`) where `options`
    /// says, and returns a CODE for each that is a new appearance.
    public func look(at upright: GrayImage, transform: OrientationTransform, options: RecognizerOptions,
                     sequence: UInt32, time: MonotonicInstant) -> [CodeMessage] {
        let places = Self.places(options)
        guard !places.isEmpty else { return [] }
        var found: [(identity: String, message: CodeMessage)] = []
        let stamp = MonotonicInstant.rfc3339(unixTime: time.unixTime)
        for (zone, formats) in places {
            let area = zone.map { $0.rect.clipped(width: upright.width, height: upright.height) }
                ?? PixelBox(x: 0, y: 0, width: upright.width, height: upright.height)
            guard area.width > 0, area.height > 0 else { continue }
            let image = zone == nil ? upright : upright.cropped(to: area)
            let codes: [FoundCode]
            do {
                codes = try CodeReader.read(image, formats: formats)
            } catch {
                logger.once("codes", .warning, "codes not read", [("reason", error.description)])
                continue
            }
            for code in codes {
                let corners = code.corners.map { PixelPoint(x: $0.x + area.x, y: $0.y + area.y) }
                var box = code.box
                box.x += area.x
                box.y += area.y
                let source = corners.map { point in
                    let mapped = transform.sourcePoint(u: point.x, v: point.y, pixels: true)
                    return PixelPoint(x: mapped.x, y: mapped.y)
                }
                let message = CodeMessage(device: device, zone: zone?.name, format: code.format, text: code.text,
                                          binary: code.binaryBytes, box: box, corners: source, uprightCorners: corners,
                                          sequence: sequence, time: stamp)
                found.append((Self.identity(of: message), message))
            }
        }
        return admit(found, repeatAfter: options.codesRepeatAfter, at: time)
    }

    /// Whether the frame captured at `time` (with `stack`, its stack) is still to be read
    /// for codes; it is then counted as read (no frame is read twice). Beside a text read
    /// (`beside`), a full stack of the still scene already read is not read again either.
    public func claim(time: MonotonicInstant, stack: StackedFrameInfo?, beside: Bool) -> Bool {
        lock.withLock {
            if claimed.contains(time) { return false }
            if beside, let stack, stack.isFull, stack.generation == stillGeneration { return false }
            claimed.append(time)
            if claimed.count > 8 { claimed.removeFirst() }
            if let stack, stack.isFull { stillGeneration = stack.generation }
            return true
        }
    }

    /// A frame the change gate skipped (the scene last read, unchanged) at `time`: the
    /// codes last found are still in view.
    public func sceneUnchanged(at time: MonotonicInstant) {
        lock.withLock {
            guard let last = lastFound, time > last.time else { return }
            let now = Self.seconds(time)
            for identity in last.identities { lastSeen[identity] = max(lastSeen[identity] ?? now, now) }
        }
    }

    /// The messages of `found` that are new appearances; all are remembered as in view.
    private func admit(_ found: [(identity: String, message: CodeMessage)], repeatAfter: Double,
                       at time: MonotonicInstant) -> [CodeMessage] {
        lock.withLock {
            let now = Self.seconds(time)
            // What was out of view longer than `repeatAfter` is forgotten: a new appearance.
            lastSeen = lastSeen.filter { now - $0.value < repeatAfter }
            if lastFound.map({ time > $0.time }) ?? true { lastFound = (found.map(\.identity), time) }
            var news: [CodeMessage] = []
            for (identity, message) in found {
                let isNew = lastSeen[identity] == nil
                lastSeen[identity] = max(lastSeen[identity] ?? now, now)
                guard isNew else { continue }
                news.append(message)
                logger.info("code in view", [("format", message.format.rawValue), ("text", String(message.text.prefix(80)))])
            }
            return news
        }
    }

    /// What one appearance is known by: its zone, format and content.
    static func identity(of message: CodeMessage) -> String {
        "\(message.zone ?? "")\u{1}\(message.format.rawValue)\u{1}" + (message.binary.map(Base64.encode) ?? message.text)
    }

    private static func seconds(_ instant: MonotonicInstant) -> Double { Double(instant.nanoseconds) / 1e9 }
}
