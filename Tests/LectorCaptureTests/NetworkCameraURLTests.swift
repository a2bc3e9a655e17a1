@testable import LectorCapture
@testable import LectorDaemon
import Testing

/// `--url`: what is accepted, how it is shown (never with its credentials), and what is
/// refused at configuration time.
@Suite struct NetworkCameraURLTests {
    @Test(arguments: [
        ("rtsp://192.168.1.20:554/stream1", "rtsp://192.168.1.20:554/stream1", false),
        ("rtsp://admin:hunter2@cam.local/Streaming/Channels/101", "rtsp://***@cam.local/Streaming/Channels/101", true),
        ("RTSPS://viewer@[fe80::1]:322/live", "rtsps://***@[fe80::1]:322/live", true),
        ("http://10.0.0.5:81/stream", "http://10.0.0.5:81/stream", false),
        ("https://cam/api/frame.jpeg?src=gate&token=abc123&w=640", "https://cam/api/frame.jpeg?src=***&token=***&w=***", false),
        // Issue 45: a password under any name is hidden; a stream's choices are shown.
        ("http://cam/videostream.cgi?loginuse=admin&loginpas=s3cr3t&resolution=32", "http://cam/videostream.cgi?loginuse=***&loginpas=***&resolution=32", false),
        ("rtsp://cam/live?channel=1&passcode=9911&Subtype=0&pw=x", "rtsp://cam/live?channel=1&passcode=***&Subtype=0&pw=***", false),
        ("http://cam/cgi-bin/snap?user=admin&PASSWORD=x#top", "http://cam/cgi-bin/snap?user=***&PASSWORD=***#top", false),
    ])
    func accepted(text: String, shown: String, hasUser: Bool) throws {
        let url = try NetworkCameraURL(parsing: text)
        #expect(url.redacted == shown, "shown without credentials")
        #expect("\(url)" == shown && String(reflecting: url) == shown, "descriptions redacted too")
        #expect(url.hasUser == hasUser)
    }

    @Test(arguments: [
        ("ftp://cam/x", "must start with"),
        ("rtsp://", "names no host"),
        ("rtsp://user:pw@:554/x", "names no host"),
        ("rtsp://user:pw@cam:0/x", "port must be"),
        ("http://cam:http/x", "port must be"),
        ("http://cam/a b", "space"),
        ("cam.local:554/stream", "must be a URL"),
    ])
    func refused(text: String, reason: String) {
        #expect(throws: NetworkURLError.self) { try NetworkCameraURL(parsing: text) }
        do {
            _ = try NetworkCameraURL(parsing: text)
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
            #expect(!error.description.contains("pw"), "no password in the error")
        }
    }

    @Test(arguments: [
        ("rtsp://viewer@cam/x", "s3cret", "rtsp://viewer:s3cret@cam/x"),
        ("rtsp://viewer:old@cam:554/x?a=1", "p@ss:w/rd", "rtsp://viewer:p%40ss%3Aw%2Frd@cam:554/x?a=1"),
        ("RTSP://viewer@cam/x", "pw", "rtsp://viewer:pw@cam/x"),
    ])
    func passwordFromFile(text: String, password: String, address: String) throws {
        #expect(try NetworkCameraURL(parsing: text).withPassword(password) == address)
    }

    @Test func flagsMakeANetworkCamera() throws {
        let options = try DaemonOptions.parse(["--url", "rtsp://u:pw@cam/x", "--rtsp-transport", "udp", "--name", "gate"])
        let camera = try #require(options.cameras.first)
        #expect(camera.source == .network(try NetworkCameraURL(parsing: "rtsp://u:pw@cam/x")))
        #expect(camera.sourceName == "rtsp://***@cam/x")
        #expect(camera.capture.rtspTransport == .udp)
        #expect(camera.name == "gate")
        // What a reload logs about a changed source, and any dump of the options.
        #expect(!"\(camera.source)".contains("pw") && !"\([camera.source])".contains("pw") && !"\(camera)".contains("pw"),
                "\(camera.source)")
    }
}
