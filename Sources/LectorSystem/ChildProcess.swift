import Foundation
import Glibc

/// A program started without a shell (`posix_spawn`), in a process group of its own,
/// with default signal dispositions and an empty signal mask (lectord blocks its
/// signals in every thread and ignores SIGPIPE; a child must not inherit that). Its
/// standard input is a pipe the parent writes once and closes, its standard error a
/// pipe the parent reads, its standard output /dev/null.
///
/// The owner calls ``finish(timeout:maximumErrorBytes:)`` exactly once: it waits for
/// the exit (killing the whole group at the timeout) and closes both pipes.
public final class ChildProcess {
    /// The child's process id (also its process group id).
    public let processID: pid_t
    private var input: Int32
    private let errors: Int32
    /// The wait status, once ``hasExited()`` collected it.
    private var reapedStatus: Int32?

    /// How a child ended.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (not one of ours).
        case signalled(Int32)
        /// It ran past its timeout and was killed.
        case timedOut

        public var description: String {
            switch self {
            case let .exited(status): "exit status \(status)"
            case let .signalled(signal): "killed by signal \(signal)"
            case .timedOut: "timed out and killed"
            }
        }
    }

    /// Starts `path` with `arguments` (without the program's name) and exactly `environment`.
    /// The corresponding C functions are `pipe` and `posix_spawn`.
    /// - Throws: when the pipes cannot be made or the program cannot be started.
    public init(path: String, arguments: [String] = [], environment: [String: String]) throws(SystemError) {
        var inputPipe: [Int32] = [-1, -1], errorPipe: [Int32] = [-1, -1]
        // pipe2 is not in Swift's Glibc module: pipe, then close-on-exec on each end.
        guard pipe(&inputPipe) == 0 else { throw SystemError.current("pipe") }
        guard pipe(&errorPipe) == 0 else {
            let error = SystemError.current("pipe")
            Glibc.close(inputPipe[0])
            Glibc.close(inputPipe[1])
            throw error
        }
        for descriptor in inputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
        Glibc.close(inputPipe[0])
        Glibc.close(errorPipe[1])
        guard status == 0 else {
            Glibc.close(inputPipe[1])
            Glibc.close(errorPipe[0])
            throw SystemError(errno: status, call: "posix_spawn")
        }
        processID = pid
        input = inputPipe[1]
        errors = errorPipe[0]
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        _ = fcntl(errors, F_SETFL, fcntl(errors, F_GETFL) | O_NONBLOCK)
    }

    /// Writes `bytes` to the child's standard input as far as the pipe takes them without
    /// waiting (a child that reads nothing does not hold the parent), then closes it.
    /// The corresponding C function is `write`.
    public func sendInput(_ bytes: [UInt8]) {
        guard input >= 0 else { return }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if written > 0 { offset += written } else if written < 0 && Glibc.errno == EINTR { continue } else { break }
        }
        Glibc.close(input)
        input = -1
    }

    /// Whether the child has ended, without waiting (its status is kept for
    /// ``finish(timeout:maximumErrorBytes:)``, which the owner still calls).
    /// The corresponding C function is `waitpid`.
    public func hasExited() -> Bool {
        if reapedStatus != nil { return true }
        var status: Int32 = 0
        guard waitpid(processID, &status, WNOHANG) == processID else { return false }
        reapedStatus = status
        return true
    }

    /// Asks the child's process group to end now (SIGTERM), e.g. speech cut short; the
    /// owner then calls ``finish(timeout:maximumErrorBytes:)`` to collect it.
    /// The corresponding C function is `kill`.
    public func terminate() {
        guard reapedStatus == nil else { return }
        _ = kill(-processID, SIGTERM)
    }

    /// Waits for the child to end, at most `timeout` seconds; past that, its process group
    /// gets SIGTERM and, half a second later, SIGKILL. Collects up to `maximumErrorBytes`
    /// of its standard error. Closes the pipes.
    /// The corresponding C functions are `poll`, `read`, `waitpid` and `kill`.
    public func finish(timeout: Double, maximumErrorBytes: Int = 4096) -> (ending: Ending, errorOutput: String) {
        defer {
            if input >= 0 { Glibc.close(input) }
            Glibc.close(errors)
        }
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var errorsOpen = true
        func drain() {
            while errorsOpen {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(errors, $0.baseAddress, $0.count) }
                if count > 0 {
                    if collected.count < maximumErrorBytes { collected += buffer[0..<min(count, maximumErrorBytes - collected.count)] }
                } else if count == 0 {
                    errorsOpen = false
                } else if Glibc.errno != EINTR {
                    return
                }
            }
        }
        let started = MonotonicInstant.now()
        var terminated: MonotonicInstant?
        var status: Int32 = 0
        while true {
            drain()
            if let reaped = reapedStatus {
                status = reaped
                break
            }
            let done = waitpid(processID, &status, WNOHANG)
            if done == processID { break }
            if done < 0 && Glibc.errno != EINTR { return (.exited(-1), text(collected)) }
            let elapsed = MonotonicInstant.now().milliseconds(since: started) / 1000
            if let since = terminated {
                if MonotonicInstant.now().milliseconds(since: since) > 500 { _ = kill(-processID, SIGKILL) }
            } else if elapsed >= timeout {
                _ = kill(-processID, SIGTERM)
                terminated = .now()
            }
            var descriptors = [pollfd(fd: errorsOpen ? errors : -1, events: Int16(POLLIN), revents: 0)]
            _ = Glibc.poll(&descriptors, 1, 20)
        }
        drain()
        if terminated != nil {
            _ = kill(-processID, SIGKILL)  // what the hook left behind in its group
            return (.timedOut, text(collected))
        }
        let signal = status & 0x7f
        if signal == 0 { return (.exited((status >> 8) & 0xff), text(collected)) }
        return (.signalled(signal), text(collected))
    }

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
