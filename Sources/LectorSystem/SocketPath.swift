import Foundation

/// Where lectord's socket is when nobody names it: both the daemon and its clients
/// derive it the same way.
public enum SocketPath {
    /// The default path: `$RUNTIME_DIRECTORY/lector.sock` under systemd, else
    /// `/run/lector/lector.sock` as root, else `$XDG_RUNTIME_DIR/lector.sock`
    /// (falling back to /tmp/lector-UID.sock).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment,
                                isRoot: Bool = Syscalls.userID == 0) -> String {
        if let runtime = environment["RUNTIME_DIRECTORY"], !runtime.isEmpty {
            // systemd may list several directories separated by colons.
            return String(runtime.split(separator: ":").first ?? "") + "/lector.sock"
        }
        if isRoot { return "/run/lector/lector.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/lector.sock" }
        return "/tmp/lector-\(Syscalls.userID).sock"
    }
}
