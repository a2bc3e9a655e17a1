import Foundation
import LectorPipeline
import LectorProtocol
import LectorSystem

// ServerLoop: what other threads hand the server thread through its inbox
// (publications it could not write directly, device states, new limits, rendered
// replies, shutdown), and the start of shutdown.

extension ServerLoop {
    /// Logs a device's new state, but not a retry's: `opening` after `lost`, and `lost`
    /// again for the cause already logged, are left out (clients still get DEVICES).
    private func logDeviceState(_ info: DeviceInfo, device: String, previous: DeviceInfo?) {
        let retrying = info.state == .opening && previous?.state == .lost
        let sameLoss = info.state == .lost && info.error != nil && loggedLosses[device] == info.error
        if !retrying, !sameLoss {
            logger.info("device state", [("device", device), ("state", info.state.rawValue)] + (info.error.map { [("error", $0)] } ?? []))
        }
        if info.state == .lost { loggedLosses[device] = info.error } else if !retrying { loggedLosses[device] = nil }
    }

    /// Acts on one event another thread posted to the inbox.
    func handle(_ event: ServerEvent) {
        switch event {
        case let .publication(publication, posted):
            dispatch(publication)
            publishTimes.append(MonotonicInstant.now().milliseconds(since: posted))
        case let .codes(publication):
            dispatch(publication)
        case let .deviceChanged(info):
            // Pushed on a change of state (or of its error), not on every report.
            let device = info.name ?? info.path
            let previous = lastDeviceStates[device]
            guard previous?.state != info.state || previous?.error != info.error || previous?.warning != info.warning
                || previous?.zones != info.zones else { return }
            lastDeviceStates[device] = info
            logDeviceState(info, device: device, previous: previous)
            let message = devicesMessage().bytes
            for client in clients where client.watch.enable && !client.closing {
                client.outbound.enqueueReply(message)
                flush(client)
            }
        case let .configure(configuration):
            self.configuration.maximumClients = configuration.maximumClients
            self.configuration.clientTimeout = configuration.clientTimeout
            self.configuration.idleTimeout = configuration.idleTimeout
            self.configuration.clientBufferBytes = configuration.clientBufferBytes
        case let .rendered(id, line):
            guard let client = clients.first(where: { $0.id == id }), client.awaitingReply else { return }
            client.awaitingReply = false
            client.lastRequest = .now()
            client.outbound.enqueueReply(line)
            processLines(client)
            flush(client)
        case .shutdown: beginShutdown()
        }
    }

    /// Stops accepting (closes the listening socket) and lets every client's pending
    /// output drain until ``SocketServer/Configuration/shutdownFlushSeconds`` pass.
    func beginShutdown() {
        guard shutdownDeadline == nil else { return }
        shutdownDeadline = MonotonicInstant.now().adding(milliseconds: configuration.shutdownFlushSeconds * 1000)
        if listenerOpen {
            readiness.remove(listener.descriptor)
            listener.close()
            listenerOpen = false
        }
        for client in clients {
            client.watch.enable = false
            client.closing = true
            flush(client)
        }
    }
}
