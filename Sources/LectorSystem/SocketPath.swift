import Foundation

/// Where lectord's socket is when nobody names it: both the daemon and its clients
/// derive it the same way.
public enum SocketPath {
    /// The default path: `$RUNTIME_DIRECTORY/lector.sock` under systemd, else
    /// `/run/lector/lector.sock` as root, else `$XDG_RUNTIME_DIR/lector.sock`, else
    /// the fallback `/tmp/lector-UID/lector.sock` (see ``prepareFallback(_:userID:)``).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment,
                                isRoot: Bool = Syscalls.userID == 0, userID: uid_t = Syscalls.userID) -> String {
        if let runtime = environment["RUNTIME_DIRECTORY"], !runtime.isEmpty {
            // systemd may list several directories separated by colons.
            return String(runtime.split(separator: ":").first ?? "") + "/lector.sock"
        }
        if isRoot { return "/run/lector/lector.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/lector.sock" }
        return fallbackDirectory(userID: userID) + "/lector.sock"
    }

    /// The directory of the fallback socket, when `XDG_RUNTIME_DIR` is unset.
    public static func fallbackDirectory(userID: uid_t = Syscalls.userID) -> String { "/tmp/lector-\(userID)" }

    /// Whether `path` is the fallback socket of `userID`.
    public static func isFallback(_ path: String, userID: uid_t = Syscalls.userID) -> Bool {
        path == fallbackDirectory(userID: userID) + "/lector.sock"
    }

    /// Why the fallback directory cannot be trusted.
    public struct FallbackError: Error, Equatable, CustomStringConvertible {
        public let directory: String
        /// What is wrong with it.
        public let problem: String

        public var description: String {
            "refusing the fallback socket directory \(directory): \(problem); set XDG_RUNTIME_DIR "
                + "(e.g. XDG_RUNTIME_DIR=/run/user/\(Syscalls.userID)) or give --socket PATH"
        }
    }

    /// Creates the fallback directory with mode 0700, or checks that the one already
    /// there is a real directory (not a link) that `userID` owns (made private again if
    /// it was not): in world-writable /tmp another local user could otherwise put their
    /// socket (or a link) in lectord's place.
    public static func prepareFallback(_ directory: String, userID: uid_t = Syscalls.userID) throws(FallbackError) {
        do {
            try Syscalls.withCreationMask(0o077) { () throws(SystemError) in try Syscalls.makeDirectory(directory, mode: 0o700) }
        } catch {
            throw FallbackError(directory: directory, problem: "cannot create it: \(error.reason)")
        }
        guard let status = Syscalls.fileStatus(directory) else {
            throw FallbackError(directory: directory, problem: "it vanished after it was created")
        }
        guard status.type == S_IFDIR else {
            throw FallbackError(directory: directory, problem: status.type == S_IFLNK ? "it is a symbolic link" : "it is not a directory")
        }
        guard status.owner == userID else {
            throw FallbackError(directory: directory, problem: "it belongs to uid \(status.owner), not to you (uid \(userID))")
        }
        if status.permissions & 0o077 != 0 {
            // Ours: make it private again.
            do { try Syscalls.chmod(directory, mode: 0o700) } catch {
                throw FallbackError(directory: directory, problem: "cannot make it private (mode 700): \(error.reason)")
            }
        }
    }
}
