import LectorDetector
import LectorEngine
import LectorProtocol

/// How one zone is read: Tesseract's settings and the image preparation before it.
public struct ZoneProfile: Hashable, Sendable {
    /// Page segmentation mode (7: a single line, 8: a word).
    public var pageSegmentation = 7
    /// The only characters Tesseract may report; nil: any.
    public var whitelist: String?
    /// Tesseract language(s); nil: the camera's `lang`.
    public var language: String?
    /// Whole-number upscale (1-4) before recognition, for small text.
    public var scale = 1
    /// Light text on a dark ground: the zone is inverted before recognition.
    public var invert = false
    /// Words shorter than this (upright pixels) are ignored; 0: none.
    public var minimumHeight = 0
    /// Which engine reads it; nil: the camera's `engine`. `neural` reads the zone as one
    /// line with the neural line recognizer, its whitelist a mask over the recognizer's
    /// classes; `auto` and `tesseract` read it with Tesseract and this profile.
    public var engine: LineEngine?
    /// The code formats looked for in the zone (`codes`); nil: the camera's.
    public var codes: Set<CodeFormat>?

    public init() {}

    /// The language whose engine reads the zone: zones of one language share one engine
    /// (page segmentation and whitelist are set for each read: ``readSettings``).
    func engineLanguage(defaultLanguage: String) -> String { language ?? defaultLanguage }

    /// What the zone's read sets on its shared engine.
    var readSettings: ReadSettings { ReadSettings(pageSegmentation: pageSegmentation, whitelist: whitelist) }

    /// `digits`, `alnum` or the characters themselves.
    public static func whitelist(_ text: String) -> String? {
        switch text {
        case "": nil
        case "digits": "0123456789"
        case "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        default: text
        }
    }
}

/// A named rectangle of a camera's upright image, read with its own ``ZoneProfile``
/// (`[zone CAMERA/ZONE]`). With zones, a camera reads only its zones.
public struct ZoneSpec: Hashable, Sendable {
    /// Its own name (`reading` for `[zone meter/reading]`): TEXT blocks' `zone`.
    public var name: String
    public var rect: PixelBox
    public var profile = ZoneProfile()

    /// The most zones one camera may have: each is a Tesseract read per frame, and a
    /// frame's zones share its deadline (measured: a line zone costs 5–20 ms here).
    public static let maximumCount = 256
    /// The most distinct zone languages one camera may have: one engine (a model in
    /// memory and a thread) per language and recognizer.
    public static let maximumLanguages = 4

    /// Why a camera cannot have these zones (too many, or too many languages), or nil.
    public static func limitProblem(_ zones: [ZoneSpec], defaultLanguage: String) -> String? {
        if zones.count > maximumCount {
            return "\(zones.count) zones, more than the \(maximumCount) a camera may have"
        }
        let languages = Set(zones.map { $0.profile.engineLanguage(defaultLanguage: defaultLanguage) })
        if languages.count > maximumLanguages {
            return "zones in \(languages.count) languages (\(languages.sorted().joined(separator: ", "))), more than the "
                + "\(maximumLanguages) a camera may use (one engine each)"
        }
        return nil
    }

    public init(name: String, rect: PixelBox, profile: ZoneProfile = ZoneProfile()) {
        self.name = name
        self.rect = rect
        self.profile = profile
    }

    /// Why the zone is not read, or not all of it, in a `width` × `height` upright image;
    /// nil when it fits.
    public func problem(width: Int, height: Int) -> String? {
        rect.fitProblem(label: "zone \(name)", width: width, height: height, outside: "it is not read")
    }

    /// DEVICES' entry for it, with `problem` as its warning.
    package func info(defaultLanguage: String, problem: String?) -> ZoneInfo {
        ZoneInfo(name: name, rect: rect, pageSegmentation: profile.pageSegmentation, whitelist: profile.whitelist,
                 language: profile.language ?? defaultLanguage, warning: problem)
    }
}
