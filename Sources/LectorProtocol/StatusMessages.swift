/// POLL: the latest TEXT and FRAME of each device.
public struct PollMessage: ProtocolMessage {
    public static let messageClass = "POLL"
    /// When the reply was made, RFC 3339 UTC with milliseconds.
    public var time: String
    /// Cameras running.
    public var active: Int
    public var texts: [TextMessage]
    public var frames: [FrameMessage]

    public init(time: String, active: Int, texts: [TextMessage], frames: [FrameMessage]) {
        self.time = time
        self.active = active
        self.texts = texts
        self.frames = frames
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(time: try m.required("time", m.string), active: try m.required("active", m.int),
                  texts: try m.required("texts") { (key) throws(ProtocolError) in
                      try m.array(key) { (item, _) throws(ProtocolError) in try TextMessage(json: item) }
                  },
                  frames: try m.required("frames") { (key) throws(ProtocolError) in
                      try m.array(key) { (item, _) throws(ProtocolError) in try FrameMessage(json: item) }
                  })
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("time", time)
        object.add("active", active)
        object.add("texts", .array(texts.map(\.json)))
        object.add("frames", .array(frames.map(\.json)))
        return object.value
    }
}

/// One camera's entry in STATUS: state, counters, rates and timings.
public struct DeviceStatus: Equatable, Sendable {
    /// The camera's source (`/dev/video0`, a replay's folder, `demo`).
    public var path: String
    /// The camera's name, its `device` in every other message (proto_minor 5; before,
    /// `path` was that).
    public var name: String?
    public var state: CameraState
    public var running: Bool
    public var watched: Bool
    public var captured: Int
    public var recognized: Int
    public var dropped: Int
    public var rejected: Int
    /// Frames the change gate skipped (absent from servers before 1.3).
    public var unchanged: Int?
    /// Frames per second over the recent window, two decimals on the wire.
    public var captureFPS: Double
    public var recognizeFPS: Double
    public var recognizeMilliseconds: Percentiles?
    public var latencyMilliseconds: Percentiles?
    /// Why the camera is lost (as DEVICE's `error`; proto_minor 12), absent otherwise.
    public var error: String?
    /// Why it runs (proto_minor 13): `always_on`, `rules` (its rules read with nobody
    /// watching) or `watched`; absent when it does not run (and from older servers).
    public var runningReason: String?

    public init(path: String, state: CameraState, running: Bool, watched: Bool, captured: Int, recognized: Int,
                dropped: Int, rejected: Int, unchanged: Int? = nil, captureFPS: Double, recognizeFPS: Double,
                recognizeMilliseconds: Percentiles? = nil, latencyMilliseconds: Percentiles? = nil, name: String? = nil,
                error: String? = nil, runningReason: String? = nil) {
        self.name = name
        self.runningReason = runningReason
        self.error = error
        self.unchanged = unchanged
        self.path = path
        self.state = state
        self.running = running
        self.watched = watched
        self.captured = captured
        self.recognized = recognized
        self.dropped = dropped
        self.rejected = rejected
        self.captureFPS = captureFPS
        self.recognizeFPS = recognizeFPS
        self.recognizeMilliseconds = recognizeMilliseconds
        self.latencyMilliseconds = latencyMilliseconds
    }

    init(json: JSONValue, path: String) throws(ProtocolError) {
        let m = try MemberReader(json, messageClass: StatusMessage.messageClass, path: path)
        self.init(path: try m.required("path", m.string),
                  state: try m.required("state") { (key) throws(ProtocolError) in try m.choice(key, CameraState.self) },
                  running: try m.required("running", m.bool), watched: try m.required("watched", m.bool),
                  captured: try m.required("captured", m.int), recognized: try m.required("recognized", m.int),
                  dropped: try m.required("dropped", m.int), rejected: try m.required("rejected", m.int),
                  unchanged: try m.int("unchanged"),
                  captureFPS: try m.required("capture_fps", m.double), recognizeFPS: try m.required("recognize_fps", m.double),
                  recognizeMilliseconds: try m.percentiles("recognize_ms"), latencyMilliseconds: try m.percentiles("latency_ms"),
                  name: try m.string("name"), error: try m.string("error"), runningReason: try m.string("running_reason"))
    }

    /// The entry as a JSON object (no `class`), as STATUS carries it.
    public var json: JSONValue {
        var device = JSONObjectBuilder()
        device.add("path", path)
        device.add("name", name)
        device.add("state", state.rawValue)
        device.add("running", running)
        device.add("watched", watched)
        device.add("running_reason", runningReason)
        device.add("captured", captured)
        device.add("recognized", recognized)
        device.add("dropped", dropped)
        device.add("rejected", rejected)
        device.add("unchanged", unchanged)
        device.add("capture_fps", captureFPS)
        device.add("recognize_fps", recognizeFPS)
        device.add("recognize_ms", recognizeMilliseconds?.json)
        device.add("latency_ms", latencyMilliseconds?.json)
        device.add("error", error)
        return device.value
    }
}

/// STATUS: uptime, clients, and per device its counters, rates and timings.
public struct StatusMessage: ProtocolMessage {
    public static let messageClass = "STATUS"
    public var release: String
    /// Seconds since lectord started, three decimals on the wire.
    public var uptime: Double
    public var clients: Int
    /// Clients with an enabled WATCH.
    public var watchers: Int
    public var alwaysOn: Bool
    /// Time from a frame's publication to its bytes being queued for every watcher.
    public var publishMilliseconds: Percentiles?
    /// Publications the server inbox dropped because the server thread fell behind
    /// (since start; proto_minor 1).
    public var inboxDropped: Int?
    public var devices: [DeviceStatus]

    public init(release: String, uptime: Double, clients: Int, watchers: Int, alwaysOn: Bool,
                publishMilliseconds: Percentiles? = nil, inboxDropped: Int? = nil, devices: [DeviceStatus]) {
        self.release = release
        self.uptime = uptime
        self.clients = clients
        self.watchers = watchers
        self.alwaysOn = alwaysOn
        self.publishMilliseconds = publishMilliseconds
        self.inboxDropped = inboxDropped
        self.devices = devices
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let m = try MemberReader(message: json, class: Self.messageClass)
        self.init(release: try m.required("release", m.string), uptime: try m.required("uptime", m.double),
                  clients: try m.required("clients", m.int), watchers: try m.required("watchers", m.int),
                  alwaysOn: try m.required("always_on", m.bool), publishMilliseconds: try m.percentiles("publish_ms"),
                  inboxDropped: try m.int("inbox_dropped"),
                  devices: try m.required("devices") { (key) throws(ProtocolError) in
                      try m.array(key) { (item, path) throws(ProtocolError) in try DeviceStatus(json: item, path: path) }
                  })
    }

    public var json: JSONValue {
        var object = JSONObjectBuilder(class: Self.messageClass)
        object.add("release", release)
        object.add("uptime", uptime)
        object.add("clients", clients)
        object.add("watchers", watchers)
        object.add("always_on", alwaysOn)
        object.add("publish_ms", publishMilliseconds?.json)
        object.add("inbox_dropped", inboxDropped)
        object.add("devices", .array(devices.map(\.json)))
        return object.value
    }
}
