import Foundation
import Glibc
@testable import LectorCapture
@testable import LectorClient
@testable import LectorDaemon
@testable import LectorPipeline
@testable import LectorProtocol
@testable import LectorRecognition
@testable import LectorServer
@testable import LectorSystem

/// A real server on a temporary socket, fed by real cameras replaying the demo frames
/// through real Tesseract.
final class ServerHarness: @unchecked Sendable {
    let directory: String
    let path: String
    let hub: CameraHub
    let server: SocketServer
    let cameras: [Camera]

    /// - Parameters:
    ///   - fps: demo pacing.
    ///   - cameraNames: one demo camera per name (they replay the same frames).
    init(fps: Double = 5, cameraNames: [String] = ["demo"], alwaysOn: Bool = false,
         configure: (inout SocketServer.Configuration) -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "lector-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/lector.sock"
        let logger = Logger(label: "test", level: .error)
        let targets = Targets()
        var cameras: [Camera] = []
        for name in cameraNames {
            guard let demo = DemoFrames.directory() else { throw SourceError("demo frames not found") }
            let source = try ReplaySource(name: name, options: ReplayOptions(path: demo, fps: fps, loop: true))
            cameras.append(try Camera(source: source, recognizer: RecognizerOptions.untimed, orientation: OrientationSettings(),
                                      logger: logger, stateChanged: { targets.server?.deviceChanged($0) }) { publication in
                targets.hub?.record(publication)
                targets.server?.publish(publication)
            })
        }
        self.cameras = cameras
        hub = CameraHub(cameras: cameras, alwaysOn: alwaysOn, logger: logger)
        var configuration = SocketServer.Configuration()
        configure(&configuration)
        server = try SocketServer(listener: try ListeningSocket.bind(path: path, group: nil), hub: hub,
                                  configuration: configuration, logger: logger)
        targets.hub = hub
        targets.server = server
        server.start()
        if alwaysOn { hub.startAll() }
    }

    func stop() {
        hub.stopAll()
        server.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A connected client that has read VERSION.
    func connect() throws -> LectorConnection {
        let connection = try LectorConnection(path: path)
        let version = try connection.readMessage(timeout: 30).message
        guard version["class"]?.stringValue == "VERSION" else { throw SourceError("no VERSION first") }
        return connection
    }

    private final class Targets: @unchecked Sendable {
        private let lock = NSLock()
        private var _hub: CameraHub?
        private var _server: SocketServer?
        var hub: CameraHub? {
            get { lock.withLock { _hub } }
            set { lock.withLock { _hub = newValue } }
        }
        var server: SocketServer? {
            get { lock.withLock { _server } }
            set { lock.withLock { _server = newValue } }
        }
    }
}

extension LectorConnection {
    /// Sends a request given as JSON text.
    func send(json: String) throws {
        try send(try JSONParser.parse(json))
    }

    /// The first reply that is not a stream message.
    func reply(timeout: Double = 10) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let message = try readMessage(timeout: max(0.001, deadline.timeIntervalSinceNow)).message
            if !["TEXT", "FRAME", "OVERFLOW"].contains(message["class"]?.stringValue ?? "") { return message }
        }
    }
}

extension JSONValue {
    /// A request without members: `{"class":"STATUS"}`.
    static func request(_ name: String) -> JSONValue { JSONObjectBuilder(class: name).value }
}
