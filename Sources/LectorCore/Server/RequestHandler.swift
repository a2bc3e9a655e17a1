import Foundation
import LectorProtocol
import LectorSystem

/// Answers requests: every request line gets exactly one reply (a WATCH that enables
/// also gets DEVICES first, as in gpsd), or an ERROR.
extension ServerLoop {
    /// Parses and answers one request line of `client`.
    func answer(_ line: ArraySlice<UInt8>, for client: ClientConnection) {
        do {
            let request = try Request.parse(line)
            for reply in try replies(to: request, for: client) {
                client.outbound.enqueueReply(JSONWriter.bytes(reply))
            }
        } catch {
            logger.debug("request refused", [("client", "\(client.id)"), ("reason", error.message)])
            client.outbound.enqueueReply(JSONWriter.bytes(ServerMessages.error(error.message, request: error.requestClass)))
        }
    }

    private func replies(to request: Request, for client: ClientConnection) throws(RequestError) -> [JSONValue] {
        switch request {
        case let .watch(watch):
            for device in watch.devices ?? [] where device != "all" && !hub.names.contains(device) {
                throw RequestError("WATCH: unknown device \"\(device)\"; known: \(hub.names.joined(separator: ", "))", requestClass: "WATCH")
            }
            client.watch = watch.applied(to: client.watch)
            client.lastText.removeAll()
            updateWatched()
            return client.watch.enable ? [devicesMessage(), ServerMessages.watch(client.watch)] : [ServerMessages.watch(client.watch)]
        case .poll:
            return [pollMessage(for: client)]
        case .devices:
            return [devicesMessage()]
        case let .orientation(name, settings):
            let camera = try resolve(name, requestClass: "ORIENTATION")
            camera.orientation.update(settings)
            logger.info("orientation changed", [("device", camera.name),
                                                ("orientation", camera.orientation.imageOrientation.description)])
            return [ServerMessages.orientation(device: camera.name, settings: camera.orientation.current)]
        case let .snapshot(name, boxes, maximumWidth):
            let camera = try resolve(name, requestClass: "SNAPSHOT")
            return [try snapshot(of: camera, boxes: boxes, maximumWidth: maximumWidth)]
        case .status:
            return [statusMessage()]
        }
    }

    /// The camera a request names; the only one when it names none.
    private func resolve(_ name: String?, requestClass: String) throws(RequestError) -> Camera {
        if let name {
            guard let camera = hub.camera(name) else {
                throw RequestError("\(requestClass): unknown device \"\(name)\"; known: \(hub.names.joined(separator: ", "))",
                                   requestClass: requestClass)
            }
            return camera
        }
        guard hub.entries.count == 1, let only = hub.entries.first else {
            throw RequestError("\(requestClass): device is required (known: \(hub.names.joined(separator: ", ")))", requestClass: requestClass)
        }
        return only.camera
    }

    /// DEVICES: every camera.
    func devicesMessage() -> JSONValue {
        ServerMessages.devices(hub.entries.map { entry in
            ServerMessages.device(entry.camera.deviceInfo, orientation: entry.camera.orientation.current,
                                  watched: hub.isWatched(entry.name))
        })
    }

    /// POLL: the latest TEXT and FRAME of each device, with the client's filters.
    private func pollMessage(for client: ClientConnection) -> JSONValue {
        var texts: [JSONValue] = []
        var frames: [JSONValue] = []
        for name in hub.names {
            guard let latest = hub.latest(name) else { continue }
            texts.append(latest.text.message(level: client.watch.level, minimumConfidence: client.watch.minimumConfidence))
            frames.append(latest.frame.message)
        }
        var object = JSONObjectBuilder(class: "POLL")
        object.add("time", MonotonicInstant.rfc3339(unixTime: Date().timeIntervalSince1970))
        object.add("active", hub.entries.count(where: { $0.camera.isRunning }))
        object.add("texts", .array(texts))
        object.add("frames", .array(frames))
        return object.value
    }

    private func snapshot(of camera: Camera, boxes: Bool, maximumWidth: Int?) throws(RequestError) -> JSONValue {
        guard let latest = hub.latest(camera.name) else {
            throw RequestError("SNAPSHOT: nothing recognized yet on \(camera.name) (WATCH it first)", requestClass: "SNAPSHOT")
        }
        let rendered: (jpeg: [UInt8], width: Int, height: Int)
        do {
            rendered = try SnapshotRenderer.render(latest.upright, boxes: boxes ? latest.text.text.words.map(\.box) : [],
                                                   maximumWidth: maximumWidth)
        } catch {
            throw RequestError("SNAPSHOT: \(error)", requestClass: "SNAPSHOT")
        }
        guard rendered.jpeg.count * 4 / 3 + 1024 < ProtocolVersion.maximumServerLine else {
            throw RequestError("SNAPSHOT: image too large for one line; give a smaller max_width", requestClass: "SNAPSHOT")
        }
        return ServerMessages.snapshot(device: camera.name, sequence: latest.text.sequence,
                                       width: rendered.width, height: rendered.height, jpeg: rendered.jpeg)
    }

    /// STATUS: uptime, clients, and per device its counters, rates and timings.
    private func statusMessage() -> JSONValue {
        var object = JSONObjectBuilder(class: "STATUS")
        object.add("release", LectorRelease.version)
        object.add("uptime", (MonotonicInstant.now().milliseconds(since: hub.started) / 1000 * 1000).rounded() / 1000)
        object.add("clients", clients.count)
        object.add("watchers", clients.count(where: { $0.watch.enable }))
        object.add("always_on", hub.alwaysOn)
        if let publish = publishTimes.percentiles {
            object.add("publish_ms", .object([("p50", .number(publish.p50)), ("p99", .number(publish.p99))]))
        }
        object.add("devices", .array(hub.entries.map { entry in
            let camera = entry.camera
            let counts = camera.counters.snapshot
            let timings = hub.timings(entry.name)
            let rates = timings.rates()
            var device = JSONObjectBuilder()
            device.add("path", entry.name)
            device.add("state", camera.deviceInfo.state.rawValue)
            device.add("running", camera.isRunning)
            device.add("watched", hub.isWatched(entry.name))
            device.add("captured", counts.captured)
            device.add("recognized", counts.recognized)
            device.add("dropped", counts.dropped)
            device.add("rejected", counts.rejected)
            device.add("unchanged", counts.unchanged)
            device.add("capture_fps", (rates.captured * 100).rounded() / 100)
            device.add("recognize_fps", (rates.recognized * 100).rounded() / 100)
            if let recognize = timings.recognizeMilliseconds {
                device.add("recognize_ms", .object([("p50", .number(recognize.p50)), ("p99", .number(recognize.p99))]))
            }
            if let latency = timings.latencyMilliseconds {
                device.add("latency_ms", .object([("p50", .number(latency.p50)), ("p99", .number(latency.p99))]))
            }
            return device.value
        }))
        return object.value
    }
}
