import Foundation
import LectorImaging
import LectorPipeline
import LectorProtocol
import LectorSystem

/// Answers requests: every request line gets exactly one reply (a WATCH that enables
/// also gets DEVICES first, as in gpsd), or an ERROR.
extension ServerLoop {
    /// Parses and answers one request line of `client`. A SNAPSHOT is handed to the
    /// ``ReplyRenderer``; the client's further lines wait for its reply.
    func answer(_ line: ArraySlice<UInt8>, for client: ClientConnection) {
        do {
            let request = try Request.parse(line)
            if case let .snapshot(name, boxes, maximumWidth, color) = request {
                renderer.submit(try snapshotJob(for: client, camera: try resolve(name, requestClass: "SNAPSHOT"),
                                                boxes: boxes, maximumWidth: maximumWidth, color: color))
                client.awaitingReply = true
                return
            }
            if case let .history(query) = request {
                renderer.submit(historyJob(for: client, query: query))
                client.awaitingReply = true
                return
            }
            for reply in try replies(to: request, for: client) {
                client.outbound.enqueueReply(reply.bytes)
            }
        } catch {
            logger.debug("request refused", [("client", "\(client.id)"), ("reason", error.message)])
            client.outbound.enqueueReply(ErrorMessage(error).bytes)
        }
    }

    private func replies(to request: Request, for client: ClientConnection) throws(RequestError) -> [any ProtocolMessage] {
        switch request {
        case let .watch(watch):
            var watch = watch
            if let devices = watch.devices {
                // A camera's source path names it too; the subscription keeps its name.
                watch.devices = try devices.map { (device) throws(RequestError) -> String in
                    if device == "all" { return device }
                    guard let camera = hub.camera(device) else {
                        throw RequestError("WATCH: unknown device \"\(device)\"; known: \(hub.names.joined(separator: ", "))", requestClass: "WATCH")
                    }
                    return camera.name
                }
            }
            client.watch = watch.applied(to: client.watch)
            client.lastText.removeAll()
            updateWatched()
            return client.watch.enable ? [devicesMessage(), WatchMessage(client.watch)] : [WatchMessage(client.watch)]
        case .poll:
            return [pollMessage(for: client)]
        case .devices:
            return [devicesMessage()]
        case let .orientation(name, settings):
            let camera = try resolve(name, requestClass: "ORIENTATION")
            camera.orientation.update(settings)
            logger.info("orientation changed", [("device", camera.name),
                                                ("orientation", camera.orientation.imageOrientation.description)])
            return [camera.orientation.message(device: camera.name)]
        case .snapshot, .history:
            preconditionFailure("SNAPSHOT and HISTORY are answered by the renderer")
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
    func devicesMessage() -> DevicesMessage {
        DevicesMessage(hub.entries.map { entry in
            var info = entry.camera.deviceInfo
            // Right after the WATCH that starts it, a camera has not reported yet: it is
            // opening, not idle (its own report follows).
            if info.state == .idle, entry.camera.isRunning || hub.isStarting(entry.name) { info.state = .opening }
            return entry.camera.orientation.deviceMessage(info: info, watched: hub.isWatched(entry.name))
        })
    }

    /// POLL: the latest TEXT and FRAME of each device, with the client's filters.
    private func pollMessage(for client: ClientConnection) -> PollMessage {
        var texts: [TextMessage] = []
        var frames: [FrameMessage] = []
        for name in hub.names {
            guard let latest = hub.latest(name) else { continue }
            texts.append(latest.text.message(level: client.watch.level, minimumConfidence: client.watch.minimumConfidence))
            frames.append(latest.frame.message)
        }
        return PollMessage(time: MonotonicInstant.rfc3339(unixTime: Date().timeIntervalSince1970),
                           active: hub.entries.count(where: { $0.camera.isRunning }), texts: texts, frames: frames)
    }

    /// The job that renders a SNAPSHOT of the latest publication of `camera` (on the
    /// renderer's thread). Checked here: that there is one.
    private func snapshotJob(for client: ClientConnection, camera: Camera, boxes: Bool, maximumWidth: Int?,
                             color: Bool) throws(RequestError) -> ReplyRenderer.Job {
        if color { camera.colorPreview.want(seconds: 5) }
        guard let latest = hub.latest(camera.name) else {
            throw RequestError("SNAPSHOT: nothing recognized yet on \(camera.name) (WATCH it first)", requestClass: "SNAPSHOT")
        }
        // In colour, the newest frame the camera kept (the change gate may have skipped
        // reading it), else the one behind the latest TEXT.
        let kept = color ? camera.colorPreview.newestKept() ?? latest.captured.map { ($0, latest.text.sequence) } : nil
        let key = ReplyRenderer.Key(device: camera.name, sequence: kept?.sequence ?? latest.text.sequence,
                                    request: "boxes=\(boxes) max_width=\(maximumWidth ?? 0) color=\(kept != nil)")
        let name = camera.name
        return ReplyRenderer.Job(client: client.id, key: key) {
            if let kept, let preview = Self.colorSnapshot(of: kept.frame, sequence: kept.sequence, device: name,
                                                          maximumWidth: maximumWidth) { return preview.bytes }
            do throws(RequestError) {
                return try Self.snapshot(of: latest, device: name, boxes: boxes, maximumWidth: maximumWidth).bytes
            } catch {
                return ErrorMessage(error).bytes
            }
        }
    }

    /// The job that answers a HISTORY request from the history's database (on the
    /// renderer's thread: a query never holds up the server's loop); never cached.
    private func historyJob(for client: ClientConnection, query: HistoryQuery) -> ReplyRenderer.Job {
        let history = self.history
        return ReplyRenderer.Job(client: client.id, key: nil) {
            let refusal = { (reason: String) in ErrorMessage(RequestError("HISTORY: " + reason, requestClass: "HISTORY")).bytes }
            guard let history else { return refusal(MatchRecorder.noHistory) }
            do throws(HistoryUnavailable) {
                let line = HistoryMessage(matches: try history.history(query)).bytes
                return line.count < ProtocolVersion.maximumServerLine ? line : refusal("too many MATCHes for one line; give a smaller limit")
            } catch {
                return refusal(error.reason)
            }
        }
    }

    /// A captured frame in colour (`space: captured`); asking starts keeping frames for
    /// 5 s, so the first answer (none kept yet) falls back to the gray upright snapshot.
    private static func colorSnapshot(of captured: CapturedFrame, sequence: UInt32, device: String, maximumWidth: Int?) -> SnapshotMessage? {
        guard let encoded = ColorPreviewEncoder.encode(captured, maximumWidth: maximumWidth),
              encoded.jpeg.count * 4 / 3 + 1024 < ProtocolVersion.maximumServerLine else { return nil }
        return SnapshotMessage(device: device, sequence: sequence, width: encoded.width,
                               height: encoded.height, data: encoded.jpeg, space: "captured")
    }

    private static func snapshot(of latest: Publication, device: String, boxes: Bool, maximumWidth: Int?) throws(RequestError)
        -> SnapshotMessage {
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
        return SnapshotMessage(device: device, sequence: latest.text.sequence,
                               width: rendered.width, height: rendered.height, data: rendered.jpeg)
    }

    /// STATUS: uptime, clients, inbox drops, and per device its counters, rates and
    /// timings (from ``CameraHub/status(now:)``, as the systemd status text).
    private func statusMessage() -> StatusMessage {
        let now = MonotonicInstant.now()
        return StatusMessage(release: LectorRelease.version,
                             uptime: (now.milliseconds(since: hub.started) / 1000 * 1000).rounded() / 1000,
                             clients: clients.count, watchers: clients.count(where: { $0.watch.enable }),
                             alwaysOn: hub.alwaysOn,
                             publishMilliseconds: publishTimes.percentiles,
                             inboxDropped: inbox.dropped,
                             devices: hub.status(now: now).map(\.deviceStatus))
    }
}
