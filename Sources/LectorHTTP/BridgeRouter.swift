import Foundation
import LectorClient
import LectorProtocol
import LectorSystem

/// Maps HTTP requests to the page's files and to lectord requests.
///
/// - `GET /`, `/app.js`, ...: the page (static files only).
/// - `GET /api/devices`, `/api/status`: lectord's DEVICES and STATUS replies as JSON.
/// - `GET /api/snapshot.jpg?device=&boxes=1&max_width=&color=1`: lectord's SNAPSHOT as a JPEG.
/// - `GET /api/stream.mjpeg?device=&boxes=1&max_width=&color=1`: multipart JPEGs, at most `--preview-fps`.
/// - `GET /api/events?device=`: Server-Sent Events, one per TEXT/TRACK/FRAME/DEVICES/CODE line.
/// - `POST /api/orientation?device=&rotation=&mirror=&device_orientation=&camera_position=`: ORIENTATION
///   (`rotation` 0, 90, 180, 270 or `auto`).
/// - `GET /api/history?device=&rule=&limit=`: lectord's HISTORY reply (default the last 20 MATCHes);
///   204 with the reason in `X-Lector-Error` when lectord keeps no history.
/// - `GET /api/evidence.jpg?path=`: an evidence file (frame or crop) that a HISTORY reply
///   of this bridge named; nothing else is served from the disk.
public final class BridgeRouter: @unchecked Sendable {
    private let link: LectordRequests
    private let events: EventHub
    private let previews: PreviewHub
    private let files: StaticFiles
    private let auth: BasicAuth?
    private let hosts: AllowedHosts
    private let throttle: LoginThrottle
    private let foreignHost: RateLimitedWarning
    /// The evidence files the last HISTORY replies named: the only files `/api/evidence.jpg` serves.
    private let namedEvidence = NamedEvidence()
    private let logger: Logger

    /// Sent with every response: nothing but this origin may be loaded or framed.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        // No other origin may embed a response (an <img> of the live stream, a snapshot).
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    public init(link: LectordRequests, events: EventHub, previews: PreviewHub, files: StaticFiles, auth: BasicAuth?,
                hosts: AllowedHosts, logger: Logger) {
        self.link = link
        self.events = events
        self.previews = previews
        self.files = files
        self.auth = auth
        self.hosts = hosts
        self.throttle = LoginThrottle(logger: logger)
        foreignHost = RateLimitedWarning(logger: logger, message: "refused requests for another host name (DNS rebinding?); --allow-host NAME serves one")
        self.logger = logger
    }

    /// The answer to `request`: at once, or made on a worker thread when it needs lectord
    /// (so the page's files never wait on lectord).
    public func respond(_ request: HTTPRequest) -> HTTPReply {
        switch route(request) {
        case let .now(response): return .now(Self.secured(response))
        case let .later(make): return .later { Self.secured(make()) }
        case let .delayed(seconds, response): return .delayed(seconds: seconds, Self.secured(response))
        }
    }

    private static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers += securityHeaders
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPReply {
        if let refusal = gate(request) { return refusal }
        let path = request.path
        let isRead = request.method == "GET" || request.method == "HEAD"
        switch path {
        case "/api/orientation":
            guard request.method == "POST" else { return .now(Self.notAllowed("POST")) }
            guard Self.sameOrigin(request) else { return .now(Self.text(403, "cross-origin request refused\n")) }
            let query = request.query
            return .later { [self] in orientation(query) }
        case "/api/devices", "/api/status", "/api/snapshot.jpg", "/api/stream.mjpeg", "/api/events", "/api/history",
             "/api/evidence.jpg":
            guard isRead else { return .now(Self.notAllowed("GET, HEAD")) }
        default:
            guard isRead else { return .now(Self.notAllowed("GET, HEAD")) }
            guard let file = files.file(for: path) else { return .now(Self.text(404, "not found\n")) }
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", file.contentType), ("Cache-Control", "no-cache")], body: .bytes(file.bytes)))
        }
        let device = request.query["device"].flatMap { $0.isEmpty ? nil : $0 }
        let color = Self.flag(request.query["color"])
        switch path {
        case "/api/devices": return .later { [self] in passThrough(.devices) }
        case "/api/status": return .later { [self] in passThrough(.status) }
        case "/api/history":
            let limit = request.query["limit"].flatMap { $0.isEmpty ? nil : $0 }
            guard let limit = limit.map({ Int($0) }) ?? 20, (1...HistoryQuery.maximumLimit).contains(limit) else {
                return .now(Self.text(400, "limit must be a whole number from 1 to \(HistoryQuery.maximumLimit)\n"))
            }
            let query = HistoryQuery(device: device, rule: request.query["rule"].flatMap { $0.isEmpty ? nil : $0 }, limit: limit)
            return .later { [self] in history(query) }
        case "/api/evidence.jpg":
            let path = request.query["path"] ?? ""
            guard namedEvidence.contains(path) else { return .now(Self.text(404, "not an evidence file lectord named\n")) }
            return .later { Self.evidence(path) }
        case "/api/snapshot.jpg":
            guard let (boxes, width) = Self.snapshotOptions(request.query) else { return .now(Self.text(400, "max_width must be a whole number from 16 to 16384\n")) }
            return .later { [self] in snapshot(device: device, boxes: boxes, maximumWidth: width, color: color) }
        case "/api/stream.mjpeg":
            guard let (boxes, width) = Self.snapshotOptions(request.query) else { return .now(Self.text(400, "max_width must be a whole number from 16 to 16384\n")) }
            let stream = ResponseStream(limit: 8 << 20)
            guard previews.add(device: device, maximumWidth: width, boxes: boxes, color: color, stream: stream) else {
                return .now(Self.text(503, "too many different previews at once (at most \(PreviewHub.maximumPumps))\n"))
            }
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", "multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)"),
                                                            ("Cache-Control", "no-store")], body: .stream(stream)))
        default:  // "/api/events"
            let stream = ResponseStream(limit: 1 << 20)
            stream.write(Array("retry: 1000\n\n".utf8))
            events.subscribe(device: device, stream: stream)
            return .now(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                                            ("X-Accel-Buffering", "no")], body: .stream(stream)))
        }
    }

    /// What every request passes first: a safe path, a `Host` of this server's (no DNS
    /// rebinding), a browser's request from this page (no other site's), the password.
    /// The right password is always checked and admitted at once; a wrong one is
    /// answered late (``LoginThrottle``), so a guesser is slowed and the owner is not.
    private func gate(_ request: HTTPRequest) -> HTTPReply? {
        let path = request.path
        guard path.hasPrefix("/"), !path.contains(".."), !path.contains("//"), !path.contains("\\"),
              !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return .now(Self.text(400, "bad path\n"))
        }
        guard hosts.accepts(request.headers["host"]) else {
            foreignHost.record([("host", Self.headerSafe(request.headers["host"] ?? "")), ("from", request.client)])
            return .now(Self.text(403, "this server does not answer to that host name (see lector-http --allow-host)\n"))
        }
        if Self.isFromAnotherSite(request) {
            return .now(Self.text(403, "refused: a request made by another site's page (Sec-Fetch-Site)\n"))
        }
        guard let auth else { return nil }
        let authorization = request.headers["authorization"]
        if auth.accepts(authorization) { return nil }
        var response = Self.text(401, "authentication required\n")
        response.headers.append(("WWW-Authenticate", BasicAuth.challenge))
        guard authorization != nil else { return .now(response) }
        let delay = throttle.failed(request.client)
        return delay > 0 ? .delayed(seconds: delay, response) : .now(response)
    }

    /// Whether a browser says another site's page made `request` (`Sec-Fetch-Site`
    /// `cross-site` or `same-site`: an `<img>` of the live stream, a `fetch`). Only
    /// following a link to the page itself is let through: every `/api/` answer shows
    /// the camera or starts it. Browsers without the header are held by `Host` and the
    /// `Cross-Origin-Resource-Policy` sent with every response.
    package static func isFromAnotherSite(_ request: HTTPRequest) -> Bool {
        let site = request.headers["sec-fetch-site"]?.lowercased()
        guard site == "cross-site" || site == "same-site" else { return false }
        let navigation = request.headers["sec-fetch-mode"]?.lowercased() == "navigate"
        return !(navigation && (request.method == "GET" || request.method == "HEAD") && !request.path.hasPrefix("/api/"))
    }

    private static func snapshotOptions(_ query: [String: String]) -> (Bool, Int?)? {
        let boxes = Self.flag(query["boxes"])
        guard let text = query["max_width"], !text.isEmpty else { return (boxes, nil) }
        guard let width = Int(text), (16...16384).contains(width) else { return nil }
        return (boxes, width)
    }

    private static func flag(_ value: String?) -> Bool { ["1", "true", "yes"].contains(value ?? "") }

    private func passThrough(_ request: Request) -> HTTPResponse {
        do {
            let reply = try link.request(request)
            if case .error = reply.message { return Self.json(400, line: reply.line) }
            return Self.json(200, line: reply.line)
        } catch {
            return unreachable(error)
        }
    }

    private func snapshot(device: String?, boxes: Bool, maximumWidth: Int?, color: Bool) -> HTTPResponse {
        let request = Request.snapshot(device: device, boxes: boxes, maximumWidth: maximumWidth, color: color)
        events.demand(seconds: 10)
        do {
            let before = events.texts(device: device)
            var reply = try link.request(request)
            if case let .error(error) = reply.message, error.message.contains("nothing recognized yet") {
                // lectord starts a camera on the first WATCH; wait for its first text.
                _ = events.waitForText(device: device, beyond: before, timeout: 10)
                reply = try link.request(request)
            }
            guard case let .snapshot(snapshot) = reply.message else {
                let message = if case let .error(error) = reply.message { error.message } else { "no snapshot" }
                return Self.json(message.contains("unknown device") ? 404 : message.contains("nothing recognized") ? 503 : 400, line: reply.line)
            }
            let headers = [("Content-Type", "image/jpeg"), ("Cache-Control", "no-store"),
                           ("Content-Disposition", "inline; filename=\"lector-snapshot.jpg\""),
                           ("X-Lector-Seq", String(snapshot.sequence)), ("X-Lector-Width", String(snapshot.width)),
                           ("X-Lector-Height", String(snapshot.height)), ("X-Lector-Device", Self.headerSafe(snapshot.device)),
                           // Whose pixels: the upright image (TEXT's `box`) or the captured frame (`corners`).
                           ("X-Lector-Space", snapshot.space ?? "upright"), ("X-Lector-Preview-Fps", String(previews.fps))]
            return HTTPResponse(status: 200, headers: headers, body: .bytes(snapshot.data))
        } catch {
            return unreachable(error)
        }
    }

    /// HISTORY passed through; the evidence files it names may then be served.
    private func history(_ query: HistoryQuery) -> HTTPResponse {
        do {
            let reply = try link.request(.history(query))
            guard case let .history(history) = reply.message else {
                // No history kept (or it cannot be read): nothing to show, said in a header;
                // a 2xx, so the page asking for it logs no error in the browser's console.
                let reason = if case let .error(error) = reply.message { error.message } else { "no HISTORY reply" }
                return HTTPResponse(status: 204, headers: [("X-Lector-Error", Self.headerSafe(reason)), ("Cache-Control", "no-store")],
                                    body: .bytes([]))
            }
            namedEvidence.add(history.matches.compactMap(\.evidence).flatMap { [$0.frame, $0.crop] })
            return Self.json(200, line: reply.line)
        } catch {
            return unreachable(error)
        }
    }

    /// An evidence JPEG from the disk (404 once lectord deleted it: the oldest go first).
    private static func evidence(_ path: String) -> HTTPResponse {
        guard let bytes = try? RegularFile.read(path, maximumBytes: 64 << 20) else {
            return text(404, "the evidence file is gone (deleted oldest first) or cannot be read\n")
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "private, max-age=3600")],
                            body: .bytes(bytes))
    }

    private func orientation(_ query: [String: String]) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("class", .string("ORIENTATION"))]
        if let device = query["device"], !device.isEmpty { members.append(("device", .string(device))) }
        if let text = query["rotation"] {
            // "auto" asks lectord to find the turn from the text.
            if text == "auto" {
                members.append(("rotation", .string(text)))
            } else {
                guard let rotation = Int(text) else { return Self.text(400, "rotation must be 0, 90, 180, 270 or auto\n") }
                members.append(("rotation", .number(Double(rotation))))
            }
        }
        if let text = query["mirror"] {
            guard text == "true" || text == "false" else { return Self.text(400, "mirror must be true or false\n") }
            members.append(("mirror", .bool(text == "true")))
        }
        for key in ["device_orientation", "camera_position"] {
            if let value = query[key] { members.append((key, .string(value))) }
        }
        // lectord's own request parser judges the values: a refusal is the ERROR lectord would send.
        do {
            return passThrough(try Request.parse(JSONWriter.bytes(.object(members))))
        } catch {
            return Self.json(400, ErrorMessage(error).json)
        }
    }

    /// lectord could not be reached (502), or did not answer in time (503: busy or
    /// stopped; the page's files are still served).
    private func unreachable(_ error: ConnectionError) -> HTTPResponse {
        logger.once("lectord", .warning, "lectord request failed", [("error", "\(error)")])
        if case .timedOut = error {
            var response = Self.json(503, ErrorMessage("lectord: \(error)").json)
            response.headers.append(("Retry-After", "5"))
            return response
        }
        return Self.json(502, ErrorMessage("lectord: \(error)").json)
    }

    /// A POST from a browser must come from this page (no cross-site form or fetch).
    private static func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["origin"] else { return true }
        guard let host = request.headers["host"] else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    private static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
    }

    static func text(_ status: Int, _ body: String) -> HTTPResponse { HTTPResponse.text(status, body) }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse { json(status, line: JSONWriter.bytes(value)) }

    /// A reply of lectord's as it sent it (members this release does not know included).
    static func json(_ status: Int, line: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                     body: .bytes(line + [UInt8(ascii: "\n")]))
    }

    static func notAllowed(_ allow: String) -> HTTPResponse {
        var response = text(405, "method not allowed\n")
        response.headers.append(("Allow", allow))
        return response
    }
}
