import Foundation
import LectorSystem

/// Where a client finds lectord's socket when it is not told.
public enum LectordSocket {
    /// `LECTOR_SOCKET`, else /run/lector/lector.sock when it exists (the system
    /// service), else where a user's lectord listens by default. A client's own
    /// `RUNTIME_DIRECTORY` (lector-http's or lector-mqtt's under systemd) is not lectord's
    /// and is not looked in.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment,
                                   isRoot: Bool = Syscalls.userID == 0, userID: UInt32 = Syscalls.userID,
                                   systemSocketExists: Bool = FileManager.default.fileExists(atPath: systemPath)) -> String {
        if let path = environment["LECTOR_SOCKET"], !path.isEmpty { return path }
        if systemSocketExists { return systemPath }
        var environment = environment
        environment["RUNTIME_DIRECTORY"] = nil
        return SocketPath.standard(environment: environment, isRoot: isRoot, userID: userID)
    }

    /// The system service's socket.
    public static let systemPath = "/run/lector/lector.sock"

    /// Where ``defaultPath(environment:isRoot:userID:systemSocketExists:)`` looks, in order
    /// (for the clients' `--socket` help).
    public static let searched = "$LECTOR_SOCKET, \(systemPath), $XDG_RUNTIME_DIR/lector.sock or /tmp/lector-UID/lector.sock"
}
