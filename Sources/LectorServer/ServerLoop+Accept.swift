import Foundation
import LectorProtocol
import LectorSystem

// ServerLoop: accepting clients, the one place a client's descriptor comes from
// (``ServerLoop/close(_:reason:)`` is the one place it goes; a descriptor that cannot be
// watched is closed here, before it is a client).

extension ServerLoop {
    /// Accepts every client waiting on the listening socket: each is watched for input
    /// and greeted with VERSION, or, over ``SocketServer/Configuration/maximumClients``,
    /// told so with an ERROR and closed once that is written.
    func acceptClients() {
        while true {
            let descriptor: Int32
            do {
                guard case let .done(accepted) = try Syscalls.accept(listener.descriptor) else { return }
                descriptor = accepted
            } catch {
                // EMFILE, ENOBUFS…: try again on the next round.
                logger.once("accept", .warning, "cannot accept a client", [("reason", "\(error)")])
                return
            }
            logger.clearOnce("accept")
            let client = ClientConnection(id: nextID, descriptor: descriptor, capacity: configuration.clientBufferBytes)
            nextID += 1
            do {
                try readiness.add(descriptor, events: UInt32(POLLIN), token: UInt64(client.id))
                client.interest = UInt32(POLLIN)
            } catch {
                // ENOMEM, ENOSPC (max_user_watches): as if it could not be accepted.
                logger.once("accept", .warning, "cannot watch a client", [("reason", "\(error)")])
                Syscalls.close(descriptor)
                return
            }
            clients.append(client)
            clientsByID[client.id] = client
            if clients.count > configuration.maximumClients {
                logger.warning("client refused: too many clients", [("client", "\(client.id)"),
                                                                    ("max_clients", "\(configuration.maximumClients)")])
                client.outbound.enqueueReply(ErrorMessage(
                    "too many clients (at most \(configuration.maximumClients))").bytes)
                client.closing = true
            } else {
                logger.debug("client connected", [("client", "\(client.id)")])
                client.outbound.enqueueReply(VersionMessage(release: LectorRelease.version).bytes)
            }
            flush(client)
        }
    }
}
