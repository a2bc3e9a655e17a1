import Foundation
import LectorHTTP
import LectorSystem
import Testing

@Suite("lector-http options, addresses and auth")
struct LectorHTTPTests {
    @Test(arguments: [
        ("127.0.0.1:8170", ListenAddress.tcp(host: "127.0.0.1", port: 8170), true),
        ("0.0.0.0:80", ListenAddress.tcp(host: "0.0.0.0", port: 80), false),
        ("[::1]:8170", ListenAddress.tcp(host: "::1", port: 8170), true),
        ("[::]:9000", ListenAddress.tcp(host: "::", port: 9000), false),
        ("192.168.1.5:8170", ListenAddress.tcp(host: "192.168.1.5", port: 8170), false),
    ])
    func parsesListenAddresses(text: String, expected: ListenAddress, local: Bool) {
        #expect(ListenAddress(hostPort: text) == expected, "\(text) parses")
        #expect(expected.isLocalOnly == local, "\(text) is loopback only: \(local)")
    }

    @Test(arguments: ["8170", "localhost:8170", "127.0.0.1:0", "127.0.0.1:70000", "[::1]8170", "::1:8170", "1.2.3:80", ""])
    func refusesBadListenAddresses(text: String) {
        #expect(ListenAddress(hostPort: text) == nil, "'\(text)' is refused")
    }

    @Test func optionsAndDefaults() throws {
        let defaults = try HTTPOptions.parse([])
        #expect(defaults.listen == .tcp(host: "127.0.0.1", port: 8170))
        #expect(defaults.previewFPS == 5)
        let options = try HTTPOptions.parse(["--listen", "[::1]:9", "--socket", "/s", "--preview-fps", "2", "--listen-unix", "/run/x.sock"])
        #expect(options.listen == .unix(path: "/run/x.sock"), "the last listen option wins")
        #expect(options.socketPath == "/s" && options.previewFPS == 2)
        // lectord's socket: --socket, else where lector looks ($LECTOR_SOCKET first), not
        // lectord's own default (under systemd, this service's runtime directory).
        let service = ["RUNTIME_DIRECTORY": "/run/lector-http", "LECTOR_SOCKET": "/tmp/elsewhere.sock"]
        #expect(options.lectordSocket(environment: service) == "/s")
        #expect(defaults.lectordSocket(environment: service) == "/tmp/elsewhere.sock")
        #expect(!defaults.lectordSocket(environment: ["RUNTIME_DIRECTORY": "/run/lector-http"]).hasPrefix("/run/lector-http/"))
        #expect(HTTPOptionTable.table.usage.contains("$LECTOR_SOCKET"), "--help says where it looks")
        #expect(throws: UsageError.self) { try HTTPOptions.parse(["--password", "x"]) }
        #expect(throws: UsageError.self) { try HTTPOptions.parse(["--preview-fps", "0"]) }
        #expect(throws: UsageError.self) { try HTTPOptions.parse(["--listen-unix", "relative.sock"]) }
        let hosts = try HTTPOptions.parse(["--allow-host", "camera.example", "--allow-host", "Lector.Home.", "--no-auth"])
        #expect(hosts.allowedHosts == ["camera.example", "Lector.Home."] && hosts.noAuth, "--allow-host repeats")
        #expect(throws: UsageError.self, "a port is not part of a name") { try HTTPOptions.parse(["--allow-host", "camera.example:80"]) }
    }

    @Test func passwordRequiredBeyondLoopback() throws {
        var options = try HTTPOptions.parse(["--listen", "0.0.0.0:8170"])
        #expect(throws: UsageError.self) { try options.authentication(environment: [:]) }
        #expect(throws: UsageError.self, "--no-auth opens no public address") {
            var open = options
            open.noAuth = true
            return try open.authentication(environment: [:])
        }
        options.listen = .standard
        #expect(throws: UsageError.self, "loopback needs a password or --no-auth") { try options.authentication(environment: [:]) }
        options.noAuth = true
        #expect(try options.authentication(environment: [:]) == nil, "--no-auth on loopback: no password")
        options.listen = .unix(path: "/run/lector-http/http.sock")
        #expect(try options.authentication(environment: [:]) == nil, "--no-auth on a Unix socket: no password")
        options.noAuth = false
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-http-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credential = directory + "/" + HTTPOptions.credentialName
        try "from credential\n".write(toFile: credential, atomically: true, encoding: .utf8)
        options.listen = .tcp(host: "0.0.0.0", port: 8170)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: credential)
        #expect(throws: UsageError.self, "a password file every user can read is refused") {
            try options.authentication(environment: ["CREDENTIALS_DIRECTORY": directory])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: credential)
        let auth = try #require(try options.authentication(environment: ["CREDENTIALS_DIRECTORY": directory]))
        #expect(auth.accepts("Basic " + Data("lector:from credential".utf8).base64EncodedString()))
        options.noAuth = true
        #expect(throws: UsageError.self, "--no-auth and a password contradict") {
            try options.authentication(environment: ["CREDENTIALS_DIRECTORY": directory])
        }
    }

    @Test(arguments: [
        ("Basic bGVjdG9yOnNlY3JldA==", true),  // lector:secret
        ("basic bGVjdG9yOnNlY3JldA==", true),
        ("Basic bGVjdG9yOnNlY3JldDI=", false),  // lector:secret2
        ("Basic b3RoZXI6c2VjcmV0", false),  // other:secret
        ("Basic bGVjdG9yc2VjcmV0", false),  // no colon
        ("Bearer bGVjdG9yOnNlY3JldA==", false),
        ("Basic !!!", false),
        ("", false),
    ])
    func basicAuth(header: String, accepted: Bool) {
        #expect(BasicAuth(user: "lector", password: "secret").accepts(header) == accepted, "\(header)")
    }
}

/// lector-http's one option table: each option's example parses and changes the
/// options, and `--help` lists every option.
@Suite("lector-http's option table")
struct HTTPOptionTableTests {
    @Test("each option parses its example", arguments: HTTPOptionTable.options.filter { !$0.spec.isSwitch }.map(\.flag))
    func optionParses(flag: String) throws {
        let option = try #require(HTTPOptionTable.table.option(flag: flag))
        let given = try HTTPOptions.parse([flag, option.spec.example]), defaults = try HTTPOptions.parse([])
        #expect(given != defaults, "\(flag) \(option.spec.example) changes nothing")
    }

    @Test("--help lists each option with its help", arguments: HTTPOptionTable.options.map(\.flag))
    func helpListsOption(flag: String) throws {
        let option = try #require(HTTPOptionTable.table.option(flag: flag))
        let line = try #require(HTTPOptions.usage.split(separator: "\n").first { $0.hasPrefix("  \(option.spec.synopsis) ") })
        #expect(line.hasSuffix(option.spec.help))
    }
}
