import Foundation
import LectorClient
import LectorSystem

/// lector-http's command line (its options: ``HTTPOptionTable``).
public struct HTTPOptions: Equatable, Sendable {
    public var listen = ListenAddress.standard
    public var socketPath: String?
    public var passwordFile: String?
    public var user = "lector"
    /// `--no-auth`: serve the camera's frames without a password (loopback or a Unix socket only).
    public var noAuth = false
    /// `--allow-host NAME`, each time given: `Host` names answered besides numeric addresses and localhost.
    public var allowedHosts: [String] = []
    public var previewFPS = 5.0
    public var pageDirectory: String?
    public var maximumConnections = 512
    public var maximumConnectionsPerAddress = 32
    public var idleTimeout = 15
    public var logLevel = Logger.Level.info
    public var help = false
    public var version = false

    public init() {}

    /// lectord's socket: `--socket`, else where `lector` looks
    /// (``LectordSocket/defaultPath(environment:)``: `$LECTOR_SOCKET`, the system
    /// service's, a user's own). (lectord's own default would name this service's
    /// runtime directory under systemd.)
    public func lectordSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        socketPath ?? LectordSocket.defaultPath(environment: environment)
    }

    /// The systemd credential holding the password (`LoadCredential=lector-http.password:...`).
    public static let credentialName = "lector-http.password"

    /// `lector-http --help`, generated from ``HTTPOptionTable``.
    public static var usage: String { HTTPOptionTable.table.usage }

    /// Parses `lector-http`'s arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> HTTPOptions {
        var options = HTTPOptions()
        _ = try HTTPOptionTable.table.parse(arguments, into: &options) { UsageError("unknown option '\($0)'") }
        if options.user.contains(":") { throw UsageError("--user must not contain ':'") }
        return options
    }

    /// The basic-auth settings: from `--password-file`, else the systemd credential; nil
    /// with `--no-auth`. The page shows the camera's frames, so one of the two is needed
    /// (on loopback too: every local user could see them), and beyond loopback only a
    /// password will do.
    public func authentication(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) -> BasicAuth? {
        var path = passwordFile
        if path == nil, let directory = environment["CREDENTIALS_DIRECTORY"],
           FileManager.default.fileExists(atPath: directory + "/" + Self.credentialName) {
            path = directory + "/" + Self.credentialName
        }
        guard let path else {
            guard listen.isLocalOnly else {
                throw UsageError("listening on \(listen) (beyond loopback) needs a password: give --password-file or the \(Self.credentialName) credential")
            }
            guard noAuth else {
                throw UsageError("the page shows the camera: give a password (--password-file or the \(Self.credentialName) credential), "
                                 + "or --no-auth to let everyone who can connect to \(listen) see it")
            }
            return nil
        }
        if noAuth { throw UsageError("--no-auth and a password (\(path)) contradict each other: give one") }
        return BasicAuth(user: user, password: try BasicAuth.readPassword(at: path))
    }

    /// The `Host` names answered (``AllowedHosts``).
    public var hosts: AllowedHosts { AllowedHosts(names: allowedHosts) }
}
