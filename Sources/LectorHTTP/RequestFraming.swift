/// Whether a request's head says where its body ends in one way only, and asks for a
/// body the server will take. A request that frames its body two ways (`Content-Length`
/// and `Transfer-Encoding`, two different lengths, an encoding other than chunked) is
/// the setup of request smuggling: what a proxy in front reads as one request, this
/// server could read as two. It is answered 400 and its connection closed.
public enum RequestFraming {
    /// The answer to a request head that is refused, or nil when its body (if any) is
    /// to be read: `headers` in the order received, repeated ones included. An HTTP/1.1
    /// request must name its `Host` (once).
    public static func refusal(version: String, headers: [(name: String, value: String)], maximumBody: Int) -> HTTPResponse? {
        let hosts = headers.filter { $0.name.lowercased() == "host" }
        if hosts.count > 1 || (hosts.isEmpty && version == "HTTP/1.1") {
            return HTTPResponse.text(400, "an HTTP/1.1 request needs one Host header\n").closing
        }
        let lengths = headers.filter { $0.name.lowercased() == "content-length" }.map { $0.value.trimmingSpaces }
        let encodings = headers.filter { $0.name.lowercased() == "transfer-encoding" }.map { $0.value.trimmingSpaces.lowercased() }
        if !encodings.isEmpty, !lengths.isEmpty {
            return HTTPResponse.text(400, "both Content-Length and Transfer-Encoding\n").closing
        }
        if Set(lengths).count > 1 { return HTTPResponse.text(400, "conflicting Content-Length headers\n").closing }
        if encodings.count > 1 || encodings.contains(where: { $0 != "chunked" }) {
            return HTTPResponse.text(400, "only Transfer-Encoding: chunked is accepted\n").closing
        }
        if let expect = headers.last(where: { $0.name.lowercased() == "expect" }), expect.value.trimmingSpaces.lowercased() != "100-continue" {
            return HTTPResponse.text(417, "only Expect: 100-continue is understood\n").closing
        }
        if let length = lengths.first {
            guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return HTTPResponse.text(400, "bad Content-Length\n").closing
            }
            // Beyond Int: longer than any body taken.
            if (Int(length) ?? Int.max) > maximumBody { return tooLarge(maximumBody) }
        }
        return nil
    }

    /// The answer to a body longer than `maximumBody` (declared, or found while reading).
    public static func tooLarge(_ maximumBody: Int) -> HTTPResponse {
        HTTPResponse.text(413, "request body too large (at most \(maximumBody) bytes)\n").closing
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
