import Foundation
import LectorClient
import LectorProtocol
import LectorSystem
import Synchronization

/// lector-mqtt: watches every camera of one lectord and publishes, per camera, under
/// `<prefix>/<hostname>/<camera>/` (`text`, `track`, `status`, `orientation`,
/// `snapshot`, `rule/…`, `code`, `code/event`), with `<prefix>/<hostname>/availability`
/// and Home Assistant discovery.
///
/// One thread (the caller of ``run()``) owns all state: it reads lectord's socket,
/// keeps each camera's text and status, and hands messages to libmosquitto, whose own
/// thread does the network and reports back through an inbox and a wake event. Nothing
/// the broker does can block reading the socket: messages wait in a bounded
/// ``PublishQueue`` and libmosquitto is given at most ``window`` of them at a time.
public final class Bridge: @unchecked Sendable {
    /// Messages handed to libmosquitto and not yet written (QoS 0) or acknowledged.
    static let window = 64
    /// The largest MQTT packet the broker may send the bridge (its Maximum Packet Size).
    static let maximumPacket: UInt32 = 65_536

    /// One camera of lectord, as the bridge knows it.
    struct Camera {
        /// lectord's name for it (`device`: the path, or its name).
        var device: String
        /// Its topic level.
        var level: String
        var text = CameraText()
        var publishedText: String?
        var state = "unknown"
        var status: [UInt8]?
        /// When `status` was last handed to the queue; a newer one waits until
        /// `--status-interval` has passed (``heldStatus``).
        var statusPublished = Date.distantPast
        var heldStatus = false
        var orientation: [UInt8]?
        /// The rules whose entities are announced (DEVICES `rules`).
        var rules: [RuleInfo] = []
        /// The last CODE, as lectord sent it (`…/code`).
        var code: [UInt8]?
        /// Whether the camera reads codes (DEVICES `codes`): its code entities are
        /// announced; nil until DEVICES said (the entities are left as they are).
        var readsCodes: Bool?
    }

    private let configuration: BridgeConfiguration
    private let logger: Logger
    private let discovery: Discovery
    private let link: LectordLink
    /// An eventfd that wakes the bridge's poll; owned by the bridge.
    private let wake: Int32
    private let inbox = Mutex<[MosquittoEvent]>([])
    private let stopSignal = Atomic<Int32>(0)
    private var client: MosquittoClient?

    private var cameras: [String: Camera] = [:]
    private var release: String?
    /// lectord's proto_minor: from 5 on, DEVICES' `name` is the camera's name (TEXT's `device`).
    private var protocolMinor = 0
    private var queue: PublishQueue
    private var connected = false
    private var everConnected = false
    private var outstanding = 0
    private var reportedDrops = 0
    private var nextStatus = Date.distantPast
    /// Commands from MQTT on their way to lectord (checked, rate-limited, bounded).
    private var gate = CommandGate()
    private var throttle = LogThrottle()
    /// Whether lectord is reachable, as last published on `<root>/lectord` (nil: not yet).
    private var lectordState: String?
    /// Crops of accepted MATCHes that lectord's writer has not written yet.
    private var cropWait = CropWait()

    /// A bridge that has not started yet (``run()`` starts it).
    public init(configuration: BridgeConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        discovery = Discovery(discoveryPrefix: configuration.discoveryPrefix, root: configuration.root,
                              hostname: configuration.hostname)
        link = LectordLink(path: configuration.socketPath, backoff: .doubling(from: 0.25, to: 5),
                           greeting: [Self.watch(codes: configuration.codes)])
        queue = PublishQueue(capacity: configuration.queueSize)
        wake = BridgeSystem.wakeEvent()
    }

    deinit {
        Syscalls.close(wake)
    }

    /// Blocks SIGINT/SIGTERM for every thread; call first thing in `main`.
    public static func prepareProcess() { BridgeSystem.blockStopSignals() }

    /// The machine's host name.
    public static func machineName() -> String { BridgeSystem.hostName() }

    /// Runs until SIGTERM or SIGINT; returns the exit status (0 after an orderly stop).
    public func run() -> Int32 {
        BridgeSystem.observeStopSignals { [self] signal in
            stopSignal.store(signal, ordering: .releasing)
            Syscalls.signalWake(wake)
        }
        var settings = MosquittoSettings(clientID: configuration.clientID, host: configuration.broker.host,
                                         port: configuration.broker.port)
        settings.keepalive = configuration.keepalive
        settings.username = configuration.username
        settings.password = configuration.password
        settings.tls = configuration.broker.tls
        settings.caFile = configuration.caFile
        settings.caPath = configuration.caPath
        settings.certFile = configuration.certFile
        settings.keyFile = configuration.keyFile
        settings.will = (configuration.availabilityTopic, "offline", 1)
        // The broker sends nothing larger (MQTT 5): a 100 MB command never reaches the
        // bridge; one over CommandGate's limit but within this is refused unread.
        settings.maximumPacket = Self.maximumPacket
        settings.maximumPayload = CommandGate.maximumPayload
        let client: MosquittoClient
        do {
            client = try MosquittoClient(settings: settings) { [self] event in
                inbox.withLock { $0.append(event) }
                Syscalls.signalWake(wake)
            }
            self.client = client
            client.start(host: configuration.broker.host, port: configuration.broker.port,
                         keepalive: configuration.keepalive, reconnectDelay: settings.reconnectDelay)
        } catch {
            logger.error("cannot start the MQTT client", [("error", "\(error)")])
            return 1
        }
        logger.info("started", [("broker", "\(configuration.broker)"), ("root", configuration.root),
                                ("socket", configuration.socketPath), ("libmosquitto", MosquittoClient.libraryVersion)])

        while stopSignal.load(ordering: .acquiring) == 0 {
            handleInbox()
            let now = Date()
            if connectLectord(now: now) { nextStatus = now.addingTimeInterval(0.2) }
            if link.isConnected, now >= nextStatus {
                if !link.isPending(StatusMessage.messageClass) { send(.status) }
                nextStatus = now.addingTimeInterval(configuration.statusInterval)
            }
            releaseHeldStatuses(now: now)
            publishWaitingCrops(now: now)
            sendCommands()
            flush()
            // Wake for the next STATUS request (or the next attempt to reach lectord) and
            // for the next held status; otherwise only lectord or the broker wake it.
            var deadline = link.isConnected ? nextStatus : link.nextAttempt
            for camera in cameras.values where camera.heldStatus {
                deadline = min(deadline, camera.statusPublished.addingTimeInterval(configuration.statusInterval))
            }
            if let look = cropWait.nextLook(after: now) { deadline = min(deadline, look) }
            let timeout = max(0.001, deadline.timeIntervalSinceNow)
            var descriptors = [wake]
            if let descriptor = link.descriptor { descriptors.append(descriptor) }
            let ready = BridgeSystem.waitReadable(descriptors, timeout: timeout)
            if ready[0] { Syscalls.drainWake(wake) }
            if ready.count > 1, ready[1] { readLectord() }
        }
        stop(client)
        return 0
    }

    // MARK: Stopping

    /// Publishes `offline`, waits (shortly) until it is written, disconnects.
    private func stop(_ client: MosquittoClient) {
        let signal = stopSignal.load(ordering: .acquiring)
        logger.info("stopping", [("signal", signal == SIGTERM ? "SIGTERM" : "SIGINT")])
        handleInbox()
        var delivered = !connected
        if connected {
            do {
                let offline = try client.publish(topic: configuration.availabilityTopic, payload: Array("offline".utf8),
                                                 qos: 1, retain: true)
                let deadline = Date().addingTimeInterval(0.6)
                while !delivered, connected, Date() < deadline {
                    _ = BridgeSystem.waitReadable([wake], timeout: deadline.timeIntervalSinceNow)
                    Syscalls.drainWake(wake)
                    for event in inbox.withLock({ events in defer { events.removeAll() }; return events }) {
                        if case let .published(messageID) = event, messageID == offline { delivered = true }
                        if case .disconnected = event { connected = false }
                    }
                }
            } catch {
                logger.warning("could not publish offline", [("error", "\(error)")])
            }
        }
        if !delivered { logger.warning("offline not confirmed by the broker; its last will says it instead") }
        client.close()
        self.client = nil
    }

    // MARK: Broker events

    private func handleInbox() {
        let events = inbox.withLock { events in defer { events.removeAll() }; return events }
        for event in events {
            switch event {
            case let .connected(code, reason):
                guard code == 0 else {
                    logger.once("broker", .error, "the broker refused the connection", [("reason", reason)])
                    continue
                }
                brokerConnected()
            case let .disconnected(expected):
                connected = false
                if !expected {
                    logger.warning("lost the broker; reconnecting with backoff", [("broker", "\(configuration.broker)")])
                }
            case .published:
                outstanding = max(0, outstanding - 1)
            case let .message(topic, payload, retained):
                if retained {
                    // A command kept by the broker is not a request made now (a rotation
                    // would come back on every reconnect): ignored.
                    throttle.log(logger, "retained", .warning, "ignored a retained command (publish commands without retain)",
                                 [("topic", topic)])
                } else {
                    command(topic: topic, payload: payload)
                }
            case let .oversized(topic, bytes):
                refuse(.tooLarge(bytes), topic: topic)
            case let .error(text):
                // Each failed attempt says so; the log says it once until it changes.
                logger.once("broker", .warning, "broker: \(text); retrying with backoff (1 s doubling to 30 s)",
                            [("broker", "\(configuration.broker)")])
            }
        }
    }

    private func brokerConnected() {
        connected = true
        outstanding = 0
        logger.clearOnce("broker")
        logger.info(everConnected ? "reconnected to the broker; republishing retained state" : "connected to the broker",
                    [("broker", "\(configuration.broker)")])
        everConnected = true
        for filter in ["orientation/set", "snapshot/get", "live_text/set"] {
            do {
                try client?.subscribe("\(configuration.root)/+/\(filter)", qos: 1)
            } catch {
                logger.warning("cannot subscribe", [("filter", filter), ("error", "\(error)")])
            }
        }
        // A restarted broker may have lost every retained message: state them again,
        // replacing whatever older value still waits in the queue.
        enqueue(configuration.availabilityTopic, "online", qos: 1, kind: .control)
        if let lectordState { publishLectord(lectordState, force: true) }
        for device in cameras.keys.sorted() {
            guard let camera = cameras[device] else { continue }
            announce(camera)
            if let text = camera.publishedText { enqueue("\(topic(camera))/text", text, kind: .state) }
            if let status = camera.status { enqueue("\(topic(camera))/status", status, kind: .state) }
            if let orientation = camera.orientation { enqueue("\(topic(camera))/orientation", orientation, kind: .state) }
            if let code = camera.code { enqueue(discovery.codeTopic(camera: camera.level), code, qos: 1, kind: .state) }
            publishLiveText(camera)
        }
    }

    // MARK: Commands from MQTT

    private func command(topic: String, payload: [UInt8]) {
        let prefix = configuration.root + "/"
        guard topic.hasPrefix(prefix) else { return }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        if let refusal = gate.checkSize(payload.count) {
            refuse(refusal, topic: topic)
            return
        }
        guard levels.count == 3, let camera = cameras.values.first(where: { $0.level == levels[0] }) else {
            throttle.log(logger, "unknown", .warning, "command for an unknown camera", [("topic", topic)])
            return
        }
        if levels[1] == "live_text", levels[2] == "set" {
            setLiveText(camera.device, payload: payload)
            return
        }
        var members: [(String, JSONValue)] = []
        if !payload.isEmpty {
            guard let parsed = try? JSONParser.parse(payload), let object = parsed.objectValue else {
                throttle.log(logger, "payload", .warning, "a command's payload must be a JSON object", [("topic", topic)])
                return
            }
            members = object.filter { $0.0 != "class" && $0.0 != "device" }
        }
        guard link.isConnected else {
            throttle.log(logger, "unreachable", .warning, "command while lectord is unreachable; ignored", [("topic", topic)])
            return
        }
        var request: [(String, JSONValue)]
        switch (levels[1], levels[2]) {
        case ("orientation", "set"):
            guard !members.isEmpty else {
                throttle.log(logger, "members", .warning, "orientation/set needs members of ORIENTATION, e.g. {\"rotation\":90}",
                             [("topic", topic)])
                return
            }
            request = [("class", .string("ORIENTATION")), ("device", .string(camera.device))] + members
        case ("snapshot", "get"):
            request = [("class", .string("SNAPSHOT")), ("device", .string(camera.device))]
            if !members.contains(where: { $0.0 == "boxes" }) { request.append(("boxes", .bool(true))) }
            request += members
        default:
            return
        }
        // The payload's members are read by lectord's own request parser: what it would
        // refuse is refused here, in the words its ERROR would use.
        do {
            let parsed = try Request.parse(JSONWriter.bytes(.object(request)))
            if let refusal = gate.offer(CommandGate.Command(request: parsed, device: camera.device), now: Date()) {
                refuse(refusal, topic: topic)
            }
        } catch {
            throttle.log(logger, "refused", .warning, "lectord refused a request",
                         [("request", error.requestClass ?? "?"), ("device", camera.device), ("message", error.message)])
        }
    }

    /// Counts a command not taken and says so: once per kind of refusal until the queue
    /// drains, with the total so far (``LogThrottle`` keeps it to a line per 10 s).
    private func refuse(_ refusal: CommandGate.Refusal, topic: String) {
        let reason: String
        switch refusal {
        case let .tooLarge(bytes): reason = "its payload of \(bytes) bytes is over the limit of \(CommandGate.maximumPayload)"
        case .overRate: reason = "more than \(Int(gate.rate)) commands a second (burst \(Int(gate.burst)))"
        case .queueFull: reason = "\(gate.capacity) commands already wait for lectord"
        }
        throttle.log(logger, "dropped \(reason.prefix(12))", .warning, "command dropped",
                     [("topic", topic), ("reason", reason), ("dropped_total", "\(gate.refused)")])
    }

    /// Sends the waiting commands lectord has room for (at most ``CommandGate/maximumInFlight``
    /// unanswered): the bridge never writes more than a few small requests ahead of its reading.
    private func sendCommands() {
        while link.isConnected, let next = gate.next(now: Date()) {
            send(next.request, device: next.device)
        }
    }

    /// Publishes whether lectord is reachable on `<root>/lectord` (retained), when it changed.
    private func publishLectord(_ state: String, force: Bool = false, error: String? = nil) {
        guard force || state != lectordState else { return }
        lectordState = state
        var object: [(String, JSONValue)] = [("state", .string(state)), ("socket", .string(link.path))]
        if let error { object.append(("error", .string(error))) }
        object.append(("time", .string(MonotonicInstant.now().rfc3339)))
        enqueue("\(configuration.root)/lectord", JSONWriter.bytes(.object(object)), qos: 1, kind: .control)
    }

    // MARK: lectord's messages

    /// The WATCH sent on every connection: every camera's text at block level and its
    /// line tracks, rules' MATCHes and (when `codes`) CODEs, no FRAME.
    static func watch(codes: Bool) -> Request {
        var watch = WatchRequest()
        watch.enable = true
        watch.devices = ["all"]
        watch.text = true
        watch.frame = false
        watch.level = .block
        // TRACK events, once lectord has them; unknown members are ignored before that.
        watch.tracks = true
        // MATCH messages: each rule's sensor, known binary sensor and crop image.
        watch.matches = true
        // CODE messages (proto_minor 14): each QR code or barcode coming into view.
        watch.codes = codes
        return .watch(watch)
    }

    /// Connects to lectord when it is time; true when a new connection came up (WATCH sent).
    private func connectLectord(now: Date) -> Bool {
        switch link.connectIfDue(now: now) {
        case .nothing:
            return false
        case let .connected(again):
            logger.clearOnce("lectord")
            logger.info(again ? "reconnected to lectord" : "connected to lectord", [("socket", link.path)])
            publishLectord("reachable")
            return true
        case let .failed(error):
            logger.once("lectord", .warning, "cannot reach lectord; retrying with backoff", [("socket", link.path), ("error", "\(error)")])
            publishLectord("unreachable", error: "\(error)")
            return false
        }
    }

    /// Sends a request; a broken connection is dropped (and retried later).
    private func send(_ request: Request, device: String? = nil) {
        do {
            try link.send(request, device: device)
        } catch {
            logger.warning("lost lectord; reconnecting", [("socket", link.path), ("reason", "\(error)")])
            lectordLost(reason: "\(error)")
        }
    }

    /// Handles the lines that have arrived, at most 256.
    private func readLectord() {
        for _ in 0..<256 {
            do {
                let (line, message) = try link.receiveJSON(timeout: 0)
                handle(message, line: line)
            } catch .timedOut {
                return
            } catch .malformed(let reason) {
                logger.warning("ignored a line from lectord", [("reason", reason)])
            } catch {
                logger.warning("lost lectord; reconnecting", [("socket", link.path), ("reason", "\(error)")])
                lectordLost(reason: "\(error)")
                return
            }
        }
    }

    /// lectord is gone: every camera's status says `unreachable`, `<root>/lectord` too,
    /// and the commands waiting for it are dropped.
    private func lectordLost(reason: String) {
        publishLectord("unreachable", error: reason)
        let dropped = gate.clear()
        if dropped > 0 { logger.warning("commands dropped: lectord was lost", [("dropped", "\(dropped)")]) }
        for device in cameras.keys {
            cameras[device]?.text.resetTracks()
            cameras[device]?.state = "unreachable"
            if let camera = cameras[device] {
                publishStatus(of: camera, [("state", .string("unreachable"))])
            }
        }
    }

    /// A line from lectord: a stream message it follows, or a typed reply.
    private func handle(_ json: JSONValue, line: [UInt8]) {
        if let stream = StreamMessage(json: json, protocolMinor: protocolMinor) {
            follow(stream, line: line)
            return
        }
        do {
            let message = try ServerMessage(json: json)
            handle(message, answering: link.answered(byClass: message.messageClass))
        } catch {
            logger.warning("ignored a line from lectord", [("reason", "\(error)")])
        }
    }

    private func follow(_ message: StreamMessage, line: [UInt8]) {
        switch message {
        case let .devices(listings):
            devices(listings)
        case let .text(device, json):
            var camera = camera(for: device)
            camera.text.apply(text: json)
            cameras[device] = camera
            publishText(device)
        case let .track(device, json):
            var camera = camera(for: device)
            camera.text.apply(track: json)
            cameras[device] = camera
            enqueue("\(topic(camera))/track", line, qos: 1, retain: false, kind: .event)
            publishText(device)
        case let .match(match):
            publishMatch(match, line: line)
        case let .code(device):
            publishCode(of: device, line: line)
        }
    }

    /// A code came into view: the camera's last code (`…/code`, retained) and an event
    /// (`…/code/event`, not retained), each the CODE as lectord sent it, once per appearance.
    private func publishCode(of device: String, line: [UInt8]) {
        guard configuration.codes else { return }
        var camera = camera(for: device)
        camera.code = line
        cameras[device] = camera
        enqueue(discovery.codeTopic(camera: camera.level), line, qos: 1, kind: .state)
        enqueue(discovery.codeEventTopic(camera: camera.level), line, qos: 1, retain: false, kind: .event)
    }

    /// A rule's reading: an accepted one is the rule's state (and its crop, when lectord
    /// kept one, the rule's image); a rejected one goes to the rule's `rejected` topic only.
    private func publishMatch(_ match: MatchMessage, line: [UInt8]) {
        let camera = camera(for: match.device)
        let rule = camera.rules.first { $0.name == match.rule && $0.zone == match.zone } ?? RuleInfo(name: match.rule, zone: match.zone)
        let state = discovery.ruleTopic(camera: camera.level, rule: rule)
        guard match.isAccepted else {
            enqueue("\(state)/rejected", line, qos: 1, retain: false, kind: .event)
            return
        }
        enqueue(state, line, qos: 1, kind: .state)
        guard let crop = match.evidence?.crop else { return }
        // lectord's writer writes the file a little after the MATCH: published once it is there.
        cropWait.add(CropWait.Crop(topic: "\(state)/crop", path: crop, since: Date()))
        publishWaitingCrops(now: Date())
    }

    /// Publishes the waiting crops whose files are written now, in their MATCHes' order.
    private func publishWaitingCrops(now: Date) {
        for outcome in cropWait.look(now: now, maximumBytes: Self.maximumCropBytes, read: RegularFile.read) {
            switch outcome {
            case let .ready(crop, payload):
                enqueue(crop.topic, payload, qos: 1, kind: .state)
            case let .unreadable(crop, reason):
                logger.once("crop", .warning, "cannot read a reading's crop", [("file", crop.path), ("error", reason)])
            case let .gaveUp(crop):
                logger.once("crop", .warning, "a reading's crop was not written in time; not published",
                            [("file", crop.path), ("waited_s", String(format: "%.0f", CropWait.patience))])
            }
        }
    }

    /// A crop larger than this is not published (a line's crop is a few kB).
    static let maximumCropBytes = 4 << 20

    /// Announces the rules of `camera` that are new, removes the entities of those gone.
    private func updateRules(of device: String, _ rules: [RuleInfo]) {
        guard var camera = cameras[device], camera.rules != rules else { return }
        for gone in camera.rules where !rules.contains(gone) {
            if configuration.discovery {
                for topic in discovery.ruleConfigTopics(camera: camera.level, rule: gone) { enqueue(topic, [], qos: 1, kind: .control) }
            }
            if !rules.contains(where: { $0.name == gone.name && $0.zone == gone.zone }) {
                let state = discovery.ruleTopic(camera: camera.level, rule: gone)
                for topic in [state, "\(state)/crop"] { enqueue(topic, [], qos: 1, kind: .control) }
            }
        }
        camera.rules = rules
        cameras[device] = camera
        announceRules(camera)
    }

    /// Announces the code entities of `device` when it starts reading codes, removes them
    /// (and its last code, which may also be left from an earlier run) when it stops.
    private func updateCodes(of device: String, reads: Bool) {
        guard var camera = cameras[device], camera.readsCodes != reads else { return }
        camera.readsCodes = reads
        if !reads {
            camera.code = nil
            enqueue(discovery.codeTopic(camera: camera.level), [], qos: 1, kind: .control)
        }
        cameras[device] = camera
        announceCodes(camera)
    }

    /// The code entities of `camera`: announced when codes are on and it reads them,
    /// removed when it does not (or a bridge run with codes on before announced them).
    /// Until DEVICES says whether it reads codes, they are left as they are.
    private func announceCodes(_ camera: Camera) {
        guard configuration.discovery else { return }
        if !configuration.codes || camera.readsCodes == false {
            for topic in discovery.codeConfigTopics(camera: camera.level) { enqueue(topic, [], qos: 1, kind: .control) }
        } else if camera.readsCodes == true {
            for (topic, payload) in discovery.codeConfigs(camera: camera.level, device: camera.device, release: release) {
                enqueue(topic, JSONWriter.bytes(payload), qos: 1, kind: .control)
            }
        }
    }

    private func announceRules(_ camera: Camera) {
        guard configuration.discovery else { return }
        for rule in camera.rules {
            for (topic, payload) in discovery.ruleConfigs(camera: camera.level, device: camera.device, rule: rule, release: release) {
                enqueue(topic, JSONWriter.bytes(payload), qos: 1, kind: .control)
            }
        }
    }

    private func handle(_ message: ServerMessage, answering request: LectordLink.PendingRequest?) {
        switch message {
        case let .version(version):
            protocolMinor = version.protocolMinor
            if version.protocolMajor != 1 {
                logger.once("protocol", .error, "lectord speaks another protocol major version", [("proto_major", "\(version.protocolMajor)")])
            }
            if version.release != release {
                release = version.release
                for camera in cameras.values { announce(camera) }
            }
        case let .status(status):
            for entry in status.devices { publishStatus(entry) }
        case let .orientation(orientation):
            publishOrientation(.object((orientation.json.objectValue ?? []).filter { $0.0 != "class" }), of: orientation.device,
                               always: true)
            gate.answered()
            logger.info("orientation changed", [("device", orientation.device), ("exif", "\(orientation.orientation.exif)")])
        case let .snapshot(snapshot):
            gate.answered()
            guard let camera = cameras[snapshot.device] else { return }
            enqueue("\(topic(camera))/snapshot", snapshot.data, kind: .state)
        case let .error(error):
            gate.answered()
            logger.warning("lectord refused a request", [("request", request?.name ?? error.request ?? "?"),
                                                          ("device", request?.device ?? "-"), ("message", error.message)])
        case let .overflow(overflow):
            logger.warning("lectord dropped messages for the bridge (it read too slowly)", [("dropped", "\(overflow.dropped)")])
        default:
            break
        }
    }

    /// One camera's entry of STATUS, published without lectord's names for it.
    private func publishStatus(_ entry: DeviceStatus) {
        let device = entry.name ?? entry.path
        var camera = camera(for: device)
        camera.state = entry.state.rawValue
        cameras[device] = camera
        let members = (entry.json.objectValue ?? []).filter { $0.0 != "path" && $0.0 != "name" }
        publishStatus(of: camera, members)
    }

    /// The full device list: new cameras are announced, vanished ones removed.
    private func devices(_ listings: [StreamMessage.Listing]) {
        var present: Set<String> = []
        for listing in listings {
            present.insert(listing.device)
            var camera = camera(for: listing.device, among: listings.map(\.device))
            if let state = listing.state { camera.state = state }
            cameras[listing.device] = camera
            if let orientation = listing.orientation { publishOrientation(orientation, of: listing.device) }
            updateRules(of: listing.device, listing.rules)
            updateCodes(of: listing.device, reads: listing.readsCodes)
        }
        for (device, camera) in cameras where !present.contains(device) {
            logger.info("camera gone; removing its entities", [("device", device)])
            removeTopics(of: camera)
            cameras[device] = nil
        }
    }

    /// Clears the retained topics and discovery entities of `camera`.
    private func removeTopics(of camera: Camera) {
        if configuration.discovery {
            for topic in discovery.configTopics(camera: camera.level) + discovery.codeConfigTopics(camera: camera.level) {
                enqueue(topic, [], qos: 1, kind: .control)
            }
            for rule in camera.rules {
                for topic in discovery.ruleConfigTopics(camera: camera.level, rule: rule) { enqueue(topic, [], qos: 1, kind: .control) }
            }
        }
        for suffix in ["text", "status", "orientation", "snapshot", "live_text", "code"] {
            enqueue("\(topic(camera))/\(suffix)", [], qos: 1, kind: .control)
        }
    }

    /// The camera for `device`, created (and announced) when it is new. Its topic level
    /// is ``TopicLevel/levels(of:)``'s among the cameras known and `others` (the rest of
    /// a DEVICES list): when it takes the level of a camera already known (`a_b` plugged
    /// in after `a.b`), that camera moves to its own.
    private func camera(for device: String, among others: [String] = []) -> Camera {
        if let camera = cameras[device] { return camera }
        let levels = TopicLevel.levels(of: Array(cameras.keys) + others + [device])
        for (known, camera) in cameras {
            guard let level = levels[known], level != camera.level else { continue }
            removeTopics(of: camera)
            var moved = Camera(device: known, level: level)
            moved.state = camera.state
            moved.readsCodes = camera.readsCodes
            moved.rules = camera.rules  // announced again under the new level (DEVICES may not list them again)
            cameras[known] = moved
            logger.info("camera moved to a topic of its own", [("device", known), ("topic", topic(moved)), ("beside", device)])
            announce(moved)
            publishLiveText(moved)
        }
        // Always in `levels`: `device` was given to it.
        let camera = Camera(device: device, level: levels[device] ?? TopicLevel.safe(device))
        cameras[device] = camera
        logger.info("camera", [("device", device), ("topic", topic(camera))])
        announce(camera)
        publishLiveText(camera)
        return camera
    }

    // MARK: Publishing

    private func topic(_ camera: Camera) -> String { "\(configuration.root)/\(camera.level)" }

    private func announce(_ camera: Camera) {
        guard configuration.discovery else { return }
        for (topic, payload) in discovery.configs(camera: camera.level, device: camera.device, release: release) {
            enqueue(topic, JSONWriter.bytes(payload), qos: 1, kind: .control)
        }
        announceCodes(camera)
        announceRules(camera)
    }

    /// Publishes a camera's orientation: an ORIENTATION reply (`always`), or what
    /// DEVICES says is in force when it differs from the last one published.
    private func publishOrientation(_ orientation: JSONValue, of device: String, always: Bool = false) {
        var camera = camera(for: device)
        let payload = JSONWriter.bytes(orientation)
        guard always || payload != camera.orientation else { return }
        camera.orientation = payload
        cameras[device] = camera
        enqueue("\(topic(camera))/orientation", payload, kind: .state)
    }

    /// `…/live_text/set`: what the camera's `…/text` carries (``LiveTextMode``).
    private func setLiveText(_ device: String, payload: [UInt8]) {
        guard var camera = cameras[device] else { return }
        guard let mode = LiveTextMode(command: String(decoding: payload, as: UTF8.self)) else {
            logger.warning("live_text/set takes one of: " + LiveTextMode.allCases.map(\.rawValue).joined(separator: ", "),
                           [("device", device)])
            return
        }
        camera.text.mode = mode
        cameras[device] = camera
        logger.info("live text", [("device", device), ("mode", mode.rawValue)])
        publishLiveText(camera)
        publishText(device)
    }

    private func publishLiveText(_ camera: Camera) {
        enqueue("\(topic(camera))/live_text", camera.text.mode.rawValue, kind: .state)
    }

    private func publishText(_ device: String) {
        guard var camera = cameras[device] else { return }
        let text = camera.text.current
        guard text != camera.publishedText else { return }
        camera.publishedText = text
        cameras[device] = camera
        enqueue("\(topic(camera))/text", text, kind: .state)
    }

    private func publishStatus(of camera: Camera, _ members: [(String, JSONValue)]) {
        var object: [(String, JSONValue)] = [("device", .string(camera.device))]
        if !members.contains(where: { $0.0 == "state" }) { object.append(("state", .string(camera.state))) }
        object += members
        object.append(("time", .string(MonotonicInstant.now().rfc3339)))
        cameras[camera.device]?.status = JSONWriter.bytes(.object(object))
        cameras[camera.device]?.heldStatus = true
        releaseHeldStatuses(now: Date())
    }

    /// Queues each held status whose camera published none within `--status-interval`.
    private func releaseHeldStatuses(now: Date) {
        for (device, camera) in cameras where camera.heldStatus {
            guard let status = camera.status,
                  now.timeIntervalSince(camera.statusPublished) >= configuration.statusInterval else { continue }
            cameras[device]?.heldStatus = false
            cameras[device]?.statusPublished = now
            enqueue("\(topic(camera))/status", status, kind: .state)
        }
    }

    private func enqueue(_ topic: String, _ text: String, qos: Int32? = nil, kind: OutboundMessage.Kind) {
        enqueue(topic, Array(text.utf8), qos: qos, kind: kind)
    }

    private func enqueue(_ topic: String, _ payload: [UInt8], qos: Int32? = nil, retain: Bool = true, kind: OutboundMessage.Kind) {
        queue.enqueue(OutboundMessage(topic: topic, payload: payload, qos: qos ?? configuration.qos, retain: retain, kind: kind))
        if queue.dropped > reportedDrops {
            logger.once("queue", .warning, "the broker is slower than lectord; dropping the oldest text/status messages",
                        [("queued", "\(queue.count)")])
            reportedDrops = queue.dropped
        }
    }

    /// Hands queued messages to libmosquitto while connected and its window has room.
    private func flush() {
        guard connected, let client else { return }
        while outstanding < Self.window, let message = queue.first {
            do {
                _ = try client.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
                queue.removeFirst()
                outstanding += 1
            } catch {
                // Not connected any more (the event is on its way): keep the message.
                logger.debug("publish deferred", [("error", "\(error)")])
                return
            }
        }
        if queue.isEmpty, queue.dropped == reportedDrops { logger.clearOnce("queue") }
    }
}
