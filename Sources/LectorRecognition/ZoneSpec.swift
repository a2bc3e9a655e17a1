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

    public init() {}

    /// What makes one Tesseract engine: zones that agree on it share one.
    struct EngineKey: Hashable {
        let language: String
        let pageSegmentation: Int
        let whitelist: String?
    }

    func engineKey(defaultLanguage: String) -> EngineKey {
        EngineKey(language: language ?? defaultLanguage, pageSegmentation: pageSegmentation, whitelist: whitelist)
    }

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
