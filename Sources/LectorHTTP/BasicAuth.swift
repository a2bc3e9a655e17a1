import Foundation
import LectorProtocol
import LectorSystem

/// HTTP basic authentication with one user and a password read from a file or a
/// systemd credential (never from the command line, where `ps` would show it).
public struct BasicAuth: Sendable {
    public let user: String
    private let password: [UInt8]

    public init(user: String, password: String) {
        self.user = user
        self.password = Array(password.utf8)
    }

    /// The password in `path`: its first line (a trailing newline is not part of it).
    /// - Throws: ``UsageError`` when it cannot be read, is empty, or every user may read
    ///   it (mode 0644: the password would protect nothing from the users of the machine).
    public static func readPassword(at path: String) throws(UsageError) -> String {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if let status = Syscalls.fileStatus(target), status.permissions & 0o004 != 0 {
            throw UsageError("every user can read the password file \(path) (mode \(String(status.permissions, radix: 8))): "
                             + "chmod o-r \(path) (or give it as the systemd credential lector-http.password)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read the password file \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard !password.isEmpty else { throw UsageError("the password file \(path) is empty") }
        return password
    }

    /// Whether an `Authorization` header value carries this user and password
    /// (compared in constant time).
    public func accepts(_ header: String?) -> Bool {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return false }
        guard let decoded = Base64.decode(String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let userOK = Self.same(Array(decoded[..<colon]), Array(user.utf8))
        let passwordOK = Self.same(Array(decoded[(colon + 1)...]), password)
        return userOK && passwordOK
    }

    /// The `WWW-Authenticate` challenge.
    public static let challenge = "Basic realm=\"lector\", charset=\"UTF-8\""

    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
