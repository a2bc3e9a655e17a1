import LectorClient
import LectorOptions
import LectorSystem

/// Every `lector-http` option, once: the command line (``HTTPOptions/parse(_:)``),
/// `--help`, the man page and docs/configuration.md read this table. lector-http has no
/// configuration file; its defaults are ``HTTPOptions``' initial values.
public enum HTTPOptionTable {
    private typealias Entry = Option<HTTPOptions>

    /// In `--help` order.
    public static let options: [Option<HTTPOptions>] = [
        Entry("--listen", inFile: false, "", "ADDR:PORT", "Address to listen on (default 127.0.0.1:8170; [::1]:8170 for IPv6).",
              example: "[::1]:9", .value(\.listen, listen)),
        Entry("--listen-unix", inFile: false, "", "PATH", "Listen on a Unix socket instead, for a reverse proxy.",
              example: "/run/lector/http.sock", .value(\.listen, listenUnix)),
        Entry("--socket", inFile: false, "", "PATH", "lectord's socket (default \(LectordSocket.searched)).",
              example: "/tmp/lector.sock", .optional(\.socketPath, any)),
        Entry("--password-file", inFile: false, "", "PATH", "File whose first line is the basic-auth password (or give --no-auth).",
              example: "/etc/lector/http.password", .optional(\.passwordFile, any)),
        Entry("--no-auth", inFile: false, "", nil, "Serve without a password: everyone who can connect sees the camera (loopback or --listen-unix only).",
              .value(\.noAuth, .bool)),
        Entry("--allow-host", inFile: false, "", "NAME", "Also answer requests for this host name (repeatable; numeric addresses and localhost always).",
              example: "camera.example", OptionAccess(set: { (options: inout HTTPOptions, text: String) throws(OptionValueError) in
                  guard AllowedHosts.host(of: text) == AllowedHosts.normalized(text), !text.isEmpty else {
                      throw OptionValueError("must be a host name without port, not \(UsageError.quoted(text))")
                  }
                  options.allowedHosts.append(text)
              }, copy: { $0.allowedHosts = $1.allowedHosts }, describe: { $0.allowedHosts.joined(separator: ",") })),
        Entry("--user", inFile: false, "", "NAME", "Basic-auth user name (default lector).", example: "admin", .value(\.user, any)),
        Entry("--preview-fps", inFile: false, "", "N", "Most frames per second of a live preview (default 5).", example: "2",
              .value(\.previewFPS, .number(0.1...30))),
        Entry("--www", inFile: false, "", "DIR", "Directory with the page's files (default: the installed page).", example: "/srv/lector",
              .optional(\.pageDirectory, any)),
        Entry("--max-connections", inFile: false, "", "N", "HTTP connections held at once (default 512).", example: "64",
              .value(\.maximumConnections, .integer(1...100_000))),
        Entry("--max-connections-per-address", inFile: false, "", "N", "HTTP connections held at once from one client address (default 32).",
              example: "8", .value(\.maximumConnectionsPerAddress, .integer(1...100_000))),
        Entry("--idle-timeout", inFile: false, "", "SECONDS", "Seconds before an idle connection is closed, and to send a whole request (default 15).", example: "30",
              .value(\.idleTimeout, .integer(1...3600))),
        Entry("--log-level", inFile: false, "", "LEVEL", "debug, info, notice, warning or error (default info).", example: "debug",
              .value(\.logLevel, .logLevel)),
        Entry("--version", inFile: false, "", nil, "Print the version and exit.", .value(\.version, .bool)),
        Entry("--help", aliases: ["-h"], inFile: false, "", nil, "Print this help and exit.", .value(\.help, .bool)),
    ]

    /// lector-http's section of docs/configuration.md when `arguments` are
    /// `--options-markdown` alone (``OptionReference``), else nil.
    public static func reference(askedBy arguments: [String]) -> String? {
        OptionReference.isAsked(by: arguments) ? table.reference() : nil
    }

    /// The table: lookups, `--help`, Markdown, the command line.
    public static let table = OptionTable(
        program: "lector-http", options: options,
        layout: HelpLayout(header: ["Usage: lector-http [options]",
                                    "Serves a web page to aim the camera and watch what lectord reads, and a small HTTP API."],
                           footer: ["", "Under systemd the password may also come from the credential \(HTTPOptions.credentialName)",
                                    "($CREDENTIALS_DIRECTORY/\(HTTPOptions.credentialName)).", ""],
                           helpColumn: 26),
        refusedFlags: ["--password": "--password is not accepted (the command line is visible to every user): use --password-file or the \(HTTPOptions.credentialName) credential"])

    /// Any text, the empty one too.
    private static let any = ValueParser<String> { $0 }

    private static let listen = ValueParser<ListenAddress> { (text: String) throws(OptionValueError) -> ListenAddress in
        guard let address = ListenAddress(hostPort: text) else {
            throw OptionValueError("must be ADDR:PORT with a numeric IPv4 or [IPv6] address, not \(UsageError.quoted(text))")
        }
        return address
    }

    private static let listenUnix = ValueParser<ListenAddress> { (path: String) throws(OptionValueError) -> ListenAddress in
        guard path.hasPrefix("/") else { throw OptionValueError("must be an absolute path, not '\(path)'") }
        return .unix(path: path)
    }
}
