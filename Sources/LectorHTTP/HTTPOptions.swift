import Foundation
import LectorSystem

/// lector-http's command line.
public struct HTTPOptions: Equatable, Sendable {
    public var listen = ListenAddress.standard
    public var socketPath: String?
    public var passwordFile: String?
    public var user = "lector"
    public var previewFPS = 5.0
    public var pageDirectory: String?
    public var maximumConnections = 512
    public var idleTimeout = 15
    public var logLevel = Logger.Level.info
    public var help = false
    public var version = false

    public init() {}

    /// The systemd credential holding the password (`LoadCredential=lector-http.password:...`).
    public static let credentialName = "lector-http.password"

    public static let usage = """
    Usage: lector-http [options]
    Serves a web page to aim the camera and watch what lectord reads, and a small HTTP API.

      --listen ADDR:PORT        Address to listen on (default 127.0.0.1:8170; [::1]:8170 for IPv6).
      --listen-unix PATH        Listen on a Unix socket instead, for a reverse proxy.
      --socket PATH             lectord's socket (default: the standard path, as for lector).
      --password-file PATH      File whose first line is the basic-auth password (required beyond loopback).
      --user NAME               Basic-auth user name (default lector).
      --preview-fps N           Most frames per second of a live preview (default 5).
      --www DIR                 Directory with the page's files (default: the installed page).
      --max-connections N       HTTP connections held at once (default 512).
      --idle-timeout SECONDS    Seconds before an idle connection is closed (default 15).
      --log-level LEVEL         debug, info, notice, warning or error (default info).
      --version                 Print the version and exit.
      --help                    Print this help and exit.

    Under systemd the password may also come from the credential \(credentialName)
    ($CREDENTIALS_DIRECTORY/\(credentialName)).

    """

    public static func parse(_ arguments: [String]) throws(UsageError) -> HTTPOptions {
        var options = HTTPOptions()
        var scanner = ArgumentScanner(arguments)
        while let argument = scanner.next() {
            switch argument {
            case "--listen":
                let text = try scanner.value(for: argument)
                guard let address = ListenAddress(hostPort: text) else {
                    throw UsageError("--listen must be ADDR:PORT with a numeric IPv4 or [IPv6] address, not \(UsageError.quoted(text))")
                }
                options.listen = address
            case "--listen-unix":
                let path = try scanner.value(for: argument)
                guard path.hasPrefix("/") else { throw UsageError("--listen-unix must be an absolute path, not '\(path)'") }
                options.listen = .unix(path: path)
            case "--socket": options.socketPath = try scanner.value(for: argument)
            case "--password-file": options.passwordFile = try scanner.value(for: argument)
            case "--password":
                throw UsageError("--password is not accepted (the command line is visible to every user): use --password-file or the \(credentialName) credential")
            case "--user": options.user = try scanner.value(for: argument)
            case "--preview-fps": options.previewFPS = try scanner.number(for: argument, in: 0.1...30)
            case "--www": options.pageDirectory = try scanner.value(for: argument)
            case "--max-connections": options.maximumConnections = try scanner.integer(for: argument, in: 1...100_000)
            case "--idle-timeout": options.idleTimeout = try scanner.integer(for: argument, in: 1...3600)
            case "--log-level":
                options.logLevel = try scanner.choice(for: argument, Logger.Level.init(name:), choices: Logger.Level.allCases.map(\.name))
            case "--version": options.version = try scanner.flag(argument)
            case "-h", "--help": options.help = try scanner.flag(argument)
            default: throw UsageError("unknown option '\(argument)'")
            }
        }
        if options.user.contains(":") { throw UsageError("--user must not contain ':'") }
        return options
    }

    /// The basic-auth settings: from `--password-file`, else the systemd credential;
    /// nil when neither exists. Fails when auth is needed (listening beyond loopback) and
    /// there is no password.
    public func authentication(environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) -> BasicAuth? {
        var path = passwordFile
        if path == nil, let directory = environment["CREDENTIALS_DIRECTORY"],
           FileManager.default.fileExists(atPath: directory + "/" + Self.credentialName) {
            path = directory + "/" + Self.credentialName
        }
        guard let path else {
            if listen.isLocalOnly { return nil }
            throw UsageError("listening on \(listen) (beyond loopback) needs a password: give --password-file or the \(Self.credentialName) credential")
        }
        return BasicAuth(user: user, password: try BasicAuth.readPassword(at: path))
    }
}
