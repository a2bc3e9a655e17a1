import Foundation

// The values the router sees: plain requests and responses, no libmicrohttpd.

/// One HTTP request, as the router sees it.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public let method: String
    /// The path, percent-decoded and checked (``RequestTarget``), without the query.
    public let path: String
    /// Query arguments (the last value of a repeated name; a bare name maps to "").
    public let query: [String: String]
    /// Request headers by lower-cased name (the last of a repeated one).
    public let headers: [String: String]
    /// The client's numeric address ("127.0.0.1", "::1"), "local" on a Unix socket.
    public let client: String

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], client: String = "local") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.client = client
    }
}

/// A response body: bytes, or a stream written by another thread.
public enum HTTPBody: Sendable {
    case bytes([UInt8])
    case stream(ResponseStream)
}

/// One HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: HTTPBody

    public init(status: Int, headers: [(String, String)] = [], body: HTTPBody = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A short plain-text answer.
    public static func text(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
                     body: .bytes(Array(body.utf8)))
    }

    /// This response with `Connection: close`: the server closes the connection after it,
    /// reading nothing more from it (a request whose framing it does not trust).
    public var closing: HTTPResponse {
        var copy = self
        copy.headers.append(("Connection", "close"))
        return copy
    }

    /// Whether it asks the server to close the connection after it.
    var closesConnection: Bool { headers.contains { $0.0.lowercased() == "connection" && $0.1.lowercased() == "close" } }
}

/// What the handler answers: a response now, or work that makes one on the server's
/// worker threads (a lectord request), while the connection waits without holding one
/// of the threads that serve every other connection.
public enum HTTPReply {
    case now(HTTPResponse)
    case later(@Sendable () -> HTTPResponse)
    /// A response sent after `seconds` (a wrong password's answer, slowed), while the
    /// connection waits without holding any thread.
    case delayed(seconds: Double, HTTPResponse)
}
