import LectorProtocol
import LectorSystem

/// A network camera's address (`--url`, `url =`): checked when the configuration is
/// read, and shown everywhere without its credentials.
///
/// Accepted: `rtsp://`, `rtsps://` (H.264, H.265), `http://`, `https://` (an MJPEG
/// stream or a JPEG snapshot), with a host, an optional port 1-65535 and an optional
/// `user:password@`. ``description`` (what logs, STATUS, DEVICES and the page see)
/// replaces the user information with `***@` and the value of every query parameter
/// with `***`, but for a few names known to hold no secret (`channel=`, `subtype=`, ...:
/// ``plainParameters``): cheap cameras put passwords under any name (`loginpas=`,
/// `passcode=`, `pw=`).
public struct NetworkCameraURL: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The protocols a network camera can speak.
    public enum Scheme: String, Sendable, CaseIterable {
        case rtsp, rtsps, http, https

        /// Whether it is RTSP (`rtsp_transport` applies).
        public var isRTSP: Bool { self == .rtsp || self == .rtsps }
    }

    public let scheme: Scheme
    /// The URL as given, credentials included: handed to FFmpeg, never shown.
    let text: String
    /// Whether the URL names a user (a `url_password_file` needs one).
    public let hasUser: Bool
    /// The URL without its credentials.
    public let redacted: String

    public var description: String { redacted }
    public var debugDescription: String { redacted }

    /// Query parameter names whose values are shown (compared in lower case): a camera's
    /// stream choices, never credentials. Every other value is hidden.
    static let plainParameters: Set<String> = ["channel", "ch", "subtype", "stream", "streamtype", "profile", "resolution",
                                               "rate", "fps", "width", "height", "quality", "codec", "transport", "camera",
                                               "cam", "video", "audio", "unicast", "proto", "mode", "format", "res"]

    /// Checks `text`.
    /// - Throws: ``NetworkURLError`` saying what is wrong, naming the URL without its credentials.
    public init(parsing text: String) throws(NetworkURLError) {
        guard let colon = text.range(of: "://") else { throw .notAURL(shown: Self.shownForError(text)) }
        guard let scheme = Scheme(rawValue: text[..<colon.lowerBound].lowercased()) else {
            throw .scheme(String(text[..<colon.lowerBound]))
        }
        let rest = text[colon.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let tail = rest[authorityEnd...]
        var hostPort = authority
        var hasUser = false
        if let at = authority.lastIndex(of: "@") {
            hostPort = authority[authority.index(after: at)...]
            hasUser = !authority[..<at].isEmpty
        }
        let shown = Self.redact(scheme: scheme.rawValue, hasUserInfo: hostPort.count != authority.count, hostPort: hostPort, tail: tail)
        guard !text.contains(where: { $0.isWhitespace || ($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }) else {
            throw .badCharacter(shown: shown)
        }
        let host: Substring
        var port: Substring?
        if hostPort.hasPrefix("[") {  // [IPv6]:port
            guard let close = hostPort.firstIndex(of: "]") else { throw .noHost(shown: shown) }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .noHost(shown: shown) }
                port = after.dropFirst()
            }
        } else if let portColon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<portColon]
            port = hostPort[hostPort.index(after: portColon)...]
        } else {
            host = hostPort
        }
        guard !host.isEmpty else { throw .noHost(shown: shown) }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw .port(shown: shown) }
        }
        self.scheme = scheme
        // FFmpeg knows its protocols in lower case only (RTSP://... would be "not found").
        self.text = scheme.rawValue + text[colon.lowerBound...]
        self.hasUser = hasUser
        redacted = shown
    }

    /// The URL with `password` as the password of its user (`url_password_file`),
    /// percent-encoded as user information must be.
    func withPassword(_ password: String) -> String {
        guard let colon = text.range(of: "://") else { return text }
        let rest = text[colon.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        let userInfo = rest[..<at]
        let user = userInfo.split(separator: ":", maxSplits: 1).first ?? userInfo
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let encoded = password.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : "%" + hex($0) }.joined()
        return text[..<colon.upperBound] + user + ":" + encoded + rest[at...]
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// `scheme://[***@]host[:port]/path?query` with every query value hidden but those of ``plainParameters``.
    private static func redact(scheme: String, hasUserInfo: Bool, hostPort: Substring, tail: Substring) -> String {
        var shown = scheme + "://" + (hasUserInfo ? "***@" : "") + hostPort
        guard let question = tail.firstIndex(of: "?") else { return shown + tail }
        shown += tail[...question]
        let fragmentStart = tail.firstIndex(of: "#") ?? tail.endIndex
        let query = question < fragmentStart ? tail[tail.index(after: question)..<fragmentStart] : ""
        shown += query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals].lowercased()
            return plainParameters.contains(name) ? String(pair) : pair[...equals] + "***"
        }.joined(separator: "&")
        return shown + tail[fragmentStart...]
    }

    /// Something that is not a URL at all, shown in an error: without anything that
    /// could be a password (after a colon, before an @).
    private static func shownForError(_ text: String) -> String {
        text.contains("@") || text.contains(":") ? "(not shown: it may hold a password)" : UsageError.quoted(text)
    }
}

/// Why a `--url` is refused. Messages name the URL without its credentials.
public enum NetworkURLError: Error, Equatable, CustomStringConvertible {
    case notAURL(shown: String)
    case scheme(String)
    case badCharacter(shown: String)
    case noHost(shown: String)
    case port(shown: String)

    public var description: String {
        switch self {
        case let .notAURL(shown): "must be a URL such as rtsp://HOST/PATH or http://HOST/PATH, not \(shown)"
        case let .scheme(scheme):
            "must start with " + NetworkCameraURL.Scheme.allCases.map { "\($0.rawValue)://" }.joined(separator: ", ")
                + ", not \(UsageError.quoted(scheme + "://"))"
        case let .badCharacter(shown): "\(shown) holds a space or a control character (percent-encode it)"
        case let .noHost(shown): "\(shown) names no host"
        case let .port(shown): "\(shown): the port must be a number from 1 to 65535"
        }
    }
}
