/// Hardware decoding of a network camera's H.264 or H.265 stream (`hwdecode`): `auto`
/// tries the machine's decoders in order (the V4L2 memory-to-memory decoder of a
/// Raspberry Pi, then VAAPI), `off` decodes in software, a name asks for that decoder
/// (`h264_v4l2m2m`) or device type (`vaapi`). Whatever is missing or fails to open falls
/// back to software, said in one log line. MJPEG is never decoded by the camera's reader.
public enum HardwareDecoding: Equatable, Sendable, CustomStringConvertible {
    case auto, off
    case named(String)

    /// The codecs (FFmpeg's names) a hardware decoder is tried for.
    public static let codecs = ["h264", "hevc"]

    /// `auto`, `off`, or a decoder or device name (letters, digits, `_`, 1-32 characters).
    public init?(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "off": self = .off
        default:
            guard (1...32).contains(text.count), text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                return nil
            }
            self = .named(text.lowercased())
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .off: "off"
        case let .named(name): name
        }
    }

    /// What is tried for `codec`, in order: `auto`'s V4L2 decoder, then VAAPI; a name
    /// for every codec (FFmpeg refuses a decoder of another codec when it opens).
    public func candidates(forCodec codec: String) -> [String] {
        guard Self.codecs.contains(codec) else { return [] }
        switch self {
        case .off: return []
        case .auto: return ["\(codec)_v4l2m2m", "vaapi"]
        case let .named(name):
            // A decoder named for another codec is never asked (h264_v4l2m2m on an H.265 stream).
            let forOther = Self.codecs.contains { $0 != codec && name.hasPrefix($0 + "_") }
            return forOther ? [] : [name]
        }
    }

    /// The candidates for `codec` this FFmpeg knows (`known`), tried in order when the
    /// stream opens (none: software), and those left out as unknown.
    public func choice(forCodec codec: String, known: (String) -> Bool) -> (tried: [String], unknown: [String]) {
        let all = candidates(forCodec: codec)
        return (all.filter(known), all.filter { !known($0) })
    }
}
