import Foundation
import LectorSystem

/// Where a client finds lectord's socket when it is not told.
public enum LectordSocket {
    /// `LECTOR_SOCKET`, else /run/lector/lector.sock when it exists (the system
    /// service), else where a user's lectord listens by default.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["LECTOR_SOCKET"], !path.isEmpty { return path }
        if FileManager.default.fileExists(atPath: "/run/lector/lector.sock") { return "/run/lector/lector.sock" }
        return SocketPath.standard(environment: environment)
    }
}
