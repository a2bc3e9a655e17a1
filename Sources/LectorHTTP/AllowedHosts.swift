import LectorSystem

/// The `Host` names lector-http answers to, against DNS rebinding: a web page on
/// another site can make its own name resolve to 127.0.0.1 and then read this one's
/// answers as same-origin, but its requests still carry its name in `Host`. So only
/// these are accepted: a numeric address (what the listening address, or the machine's
/// address in the local network, is reached by; no rebinding has a number as its
/// name), `localhost`, and the names given with `--allow-host`. A request without
/// `Host` (HTTP/1.0; no browser sends one) is accepted.
public struct AllowedHosts: Equatable, Sendable {
    /// Lower-cased, without a trailing dot.
    public let names: Set<String>

    public init(names: [String]) {
        self.names = Set(names.map(Self.normalized))
    }

    /// Whether a request with this `Host` header value is answered.
    public func accepts(_ header: String?) -> Bool {
        guard let header else { return true }
        guard let host = Self.host(of: header) else { return false }
        if Syscalls.internetFamily(of: host) != nil { return true }
        return host == "localhost" || names.contains(host)
    }

    /// The host of a `Host` value without its port (`[::1]:8170` → `::1`), normalized;
    /// nil when it is not one.
    static func host(of header: String) -> String? {
        let text = header.trimmingSpaces
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigitCharacter)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close]).lowercased()
        }
        var name = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            guard text[text.index(after: colon)...].allSatisfy(\.isASCIIDigitCharacter) else { return nil }
            name = text[..<colon]
        }
        guard !name.isEmpty, !name.contains(":") else { return nil }
        return normalized(String(name))
    }

    static func normalized(_ name: String) -> String {
        let lower = name.lowercased()
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }
}

private extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
