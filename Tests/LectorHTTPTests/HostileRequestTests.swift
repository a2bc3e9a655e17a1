import Foundation
import LectorHTTP
import LectorSystem
import Testing

/// What lector-http decides from a request alone (issue 29): which `Host` it answers,
/// how it decodes and checks a target, which framings it refuses, how previews share
/// pumps, how wrong passwords are slowed.
@Suite("lector-http against hostile requests")
struct HostileRequestTests {
    @Test(arguments: [
        ("127.0.0.1:8170", true), ("127.0.0.1", true), ("[::1]:8170", true), ("192.168.1.5:8170", true),
        ("localhost:8170", true), ("LOCALHOST", true), ("localhost.", true), ("camera.example", true),
        ("Camera.Example.:8170", true), ("evil.example:8170", false), ("evil.example", false),
        ("localhost.evil.example", false), ("127.0.0.1.evil.example", false), ("", false),
        ("camera.example:80x", false), ("[::1", false), ("a:b:c", false),
    ])
    func hostHeaders(header: String, accepted: Bool) {
        #expect(AllowedHosts(names: ["camera.example"]).accepts(header) == accepted, "Host: \(header)")
    }

    @Test func noHostHeaderIsHTTP10() {
        #expect(AllowedHosts(names: []).accepts(nil), "HTTP/1.0 without Host")
    }

    @Test(arguments: [
        ("/api/status", "/api/status", [:]),
        ("/api/snapshot.jpg?device=%2Fdev%2Fvideo0&max_width=320", "/api/snapshot.jpg", ["device": "/dev/video0", "max_width": "320"]),
        ("/?a+b=c+d&flag&&x=1&x=2", "/", ["a b": "c d", "flag": "", "x": "2"]),
        ("/caf%C3%A9", "/café", [:]),
    ] as [(String, String, [String: String])])
    func targetsDecoded(raw: String, path: String, query: [String: String]) throws {
        let target = try RequestTarget.parse(raw).get()
        #expect(target.path == path && target.query == query, "\(raw)")
    }

    @Test(arguments: [
        ("/api/status%00/../../etc/passwd", 400), ("/index.html%00.png", 400), ("/%2e%2e/etc/passwd", 400),
        ("/..%2fetc", 400), ("//etc/passwd", 400), ("/a%5cb", 400), ("/a%zz", 400), ("/a%4", 400),
        ("/%ff%fe", 400), ("relative", 400), ("/x?device=a%00b", 400), ("/x?a%01=1", 400), ("/x%7f", 400),
        ("/api/status?" + (0..<455).map { "a\($0)=1" }.joined(separator: "&"), 414),
        ("/api/status?" + (0..<65).map { "a\($0)" }.joined(separator: "&"), 414),
    ])
    func targetsRefused(raw: String, status: Int) {
        #expect(throws: RequestTarget.Refusal.self, "\(raw.prefix(60))") { try RequestTarget.parse(raw).get() }
        if case let .failure(refusal) = RequestTarget.parse(raw) { #expect(refusal.status == status, "\(raw.prefix(60))") }
    }

    @Test func sixtyFourArgumentsAreFine() throws {
        let raw = "/api/status?" + (0..<64).map { "a\($0)=1" }.joined(separator: "&")
        #expect(try RequestTarget.parse(raw).get().query.count == 64)
    }

    @Test(arguments: [
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "5"), ("Transfer-Encoding", "chunked")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Transfer-Encoding", "chunked"), ("Content-Length", "5")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "0"), ("Content-Length", "44")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Transfer-Encoding", "gzip")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "-1")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "1e3")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "10000000000"), ("Expect", "100-continue")], 413),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "99999999999999999999999")], 413),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "16385")], 413),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "2"), ("Expect", "200-ok")], 417),
        ("HTTP/1.1", [], 400),
        ("HTTP/1.1", [("Host", "a"), ("Host", "b")], 400),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "16384"), ("Expect", "100-Continue")], 0),
        ("HTTP/1.1", [("Host", "h"), ("Content-Length", "5"), ("content-length", "5")], 0),
        ("HTTP/1.1", [("Host", "h"), ("Transfer-Encoding", "Chunked")], 0),
        ("HTTP/1.0", [], 0),
    ] as [(String, [(String, String)], Int)])
    func framing(version: String, headers: [(String, String)], status: Int) {
        let refusal = RequestFraming.refusal(version: version, headers: headers.map { (name: $0.0, value: $0.1) }, maximumBody: 16 * 1024)
        #expect((refusal?.status ?? 0) == status, "\(headers)")
        if let refusal { #expect(refusal.headers.contains { $0.0 == "Connection" && $0.1 == "close" }, "a refusal closes") }
    }

    @Test(arguments: [(nil, nil), (16, 160), (159, 160), (160, 160), (319, 160), (320, 320), (1000, 640), (1919, 1280), (16384, 1920)] as [(Int?, Int?)])
    func previewSizeClasses(width: Int?, sizeClass: Int?) {
        #expect(PreviewHub.sizeClass(width) == sizeClass, "max_width \(String(describing: width))")
    }

    @Test func wrongPasswordsAreSlowedPerAddress() {
        let throttle = LoginThrottle(logger: Logger(label: "test", level: .error))
        let start = Date()
        let free = (0..<LoginThrottle.freeFailures).map { _ in throttle.failed("192.0.2.1", now: start) }
        #expect(free.allSatisfy { $0 == 0 }, "a few typos are answered at once")
        let delays = (0..<8).map { _ in throttle.failed("192.0.2.1", now: start) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30], "the answer's delay doubles up to \(LoginThrottle.longestWait) s")
        #expect(throttle.failed("192.0.2.2", now: start) == 0, "another address is not slowed")
        #expect(throttle.failed("192.0.2.1", now: start.addingTimeInterval(LoginThrottle.forgetAfter + 1)) == 0,
                "an address is forgotten after a quiet while")
    }

    @Test("a request made by another site's page is refused, except following a link to the page", arguments: [
        ("GET", "/api/stream.mjpeg", "cross-site", "no-cors", true),
        ("GET", "/api/snapshot.jpg", "same-site", "no-cors", true),
        ("GET", "/api/events", "cross-site", "cors", true),
        ("GET", "/api/status", "cross-site", "navigate", true),
        ("POST", "/api/orientation", "cross-site", "cors", true),
        ("GET", "/app.js", "cross-site", "no-cors", true),
        ("GET", "/", "cross-site", "navigate", false),
        ("GET", "/api/stream.mjpeg", "same-origin", "no-cors", false),
        ("GET", "/api/stream.mjpeg", "none", "navigate", false),
        ("GET", "/api/stream.mjpeg", nil, nil, false),
    ] as [(String, String, String?, String?, Bool)])
    func anotherSite(method: String, path: String, site: String?, mode: String?, refused: Bool) {
        var headers: [String: String] = [:]
        if let site { headers["sec-fetch-site"] = site }
        if let mode { headers["sec-fetch-mode"] = mode }
        #expect(BridgeRouter.isFromAnotherSite(HTTPRequest(method: method, path: path, headers: headers)) == refused)
    }
}
