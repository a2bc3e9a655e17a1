import Foundation
import Glibc
import Synchronization

/// A program started without a shell (`posix_spawn`), in a process group of its own,
/// with default signal dispositions and an empty signal mask (lectord blocks its
/// signals in every thread and ignores SIGPIPE; a child must not inherit that). Its
/// standard input is a pipe the parent writes once and closes, its standard error a
/// pipe the parent reads, its standard output /dev/null.
///
/// The owner calls ``finish(timeout:maximumErrorBytes:shouldStop:)`` exactly once: it
/// waits for the exit (killing the whole group at the timeout or when asked to stop),
/// kills what the child left in its group, and closes both pipes. What escaped the
/// group (a `setsid`'ed grandchild) is ended too once the process adopts orphans
/// (``adoptOrphans()``): nothing a child starts outlives it.
public final class ChildProcess {
    /// Children started and not yet reaped (their ids): never taken for orphans. Held
    /// across `posix_spawn`, so that ``endOrphans()`` cannot see a child before it is here.
    private static let running = Mutex<Set<pid_t>>([])
    /// Whether this process adopts orphaned descendants (``adoptOrphans()``).
    private static let adopting = Atomic<Bool>(false)
    /// Seconds between SIGTERM and SIGKILL to a child's group at its timeout, and when
    /// asked to stop (lectord's SIGTERM: its exit must not wait).
    static let killGrace = 0.5
    static let stopGrace = 0.2

    /// The child's process id (also its process group id).
    public let processID: pid_t
    private var input: Int32
    private let errors: Int32

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
        let status = Self.running.withLock { running in
            let status = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
            if status == 0 { running.insert(pid) }
            return status
        }
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

    /// Whether the child has ended, without waiting and without reaping it
    /// (``finish(timeout:maximumErrorBytes:shouldStop:)``, which the owner still calls,
    /// collects it). The corresponding C function is `waitid`.
    public func hasExited() -> Bool { hasEnded() }

    /// Asks the child's process group to end now (SIGTERM), e.g. speech cut short; the
    /// owner then calls ``finish(timeout:maximumErrorBytes:shouldStop:)`` to collect it.
    /// The corresponding C function is `kill`.
    public func terminate() {
        guard !hasEnded() else { return }
        _ = kill(-processID, SIGTERM)
    }

    /// Waits for the child to end, at most `timeout` seconds, or until `shouldStop`
    /// (checked every 20 ms) says to stop; then its process group gets SIGTERM and,
    /// ``killGrace`` (``stopGrace`` when stopped) later, SIGKILL. Whatever it left in its
    /// group is killed when it ends, and orphans are ended (``endOrphans()``). Collects up
    /// to `maximumErrorBytes` of its standard error. Closes the pipes.
    /// The corresponding C functions are `poll`, `read`, `waitid`, `waitpid` and `kill`.
    public func finish(timeout: Double, maximumErrorBytes: Int = 4096,
                       shouldStop: () -> Bool = { false }) -> (ending: Ending, errorOutput: String) {
        defer {
            if input >= 0 { Glibc.close(input) }
            Glibc.close(errors)
        }
        var collected: [UInt8] = []
        var errorsOpen = true
        let started = MonotonicInstant.now()
        var terminated: (at: MonotonicInstant, grace: Double)?
        while !hasEnded() {
            Self.drain(errors, into: &collected, open: &errorsOpen, maximum: maximumErrorBytes)
            if let (at, grace) = terminated {
                if MonotonicInstant.now().milliseconds(since: at) > grace * 1000 { _ = kill(-processID, SIGKILL) }
            } else if shouldStop() {
                _ = kill(-processID, SIGTERM)
                terminated = (.now(), Self.stopGrace)
            } else if MonotonicInstant.now().milliseconds(since: started) / 1000 >= timeout {
                _ = kill(-processID, SIGTERM)
                terminated = (.now(), Self.killGrace)
            }
            var descriptors = [pollfd(fd: errorsOpen ? errors : -1, events: Int16(POLLIN), revents: 0)]
            _ = Glibc.poll(&descriptors, 1, 20)
        }
        // Ended and not reaped yet, so its group id cannot be reused: what it left behind
        // in its group goes with it. Then it is reaped, and what escaped the group too.
        _ = kill(-processID, SIGKILL)
        var status: Int32 = 0
        while waitpid(processID, &status, 0) < 0 && Glibc.errno == EINTR {}
        _ = Self.running.withLock { $0.remove(processID) }
        Self.endOrphans()
        Self.drain(errors, into: &collected, open: &errorsOpen, maximum: maximumErrorBytes)
        if terminated != nil { return (.timedOut, text(collected)) }
        let signal = status & 0x7f
        if signal == 0 { return (.exited((status >> 8) & 0xff), text(collected)) }
        return (.signalled(signal), text(collected))
    }

    /// Whether the child has ended (without reaping it). The corresponding C function is
    /// `waitid` (WNOWAIT).
    private func hasEnded() -> Bool {
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(processID), &info, WEXITED | WNOHANG | WNOWAIT) == 0 {
                return info._sifields._sigchld.si_pid == processID
            }
            if Glibc.errno != EINTR { return true }  // ECHILD: nothing to wait for
        }
    }

    /// Reads what `descriptor` has without waiting, keeping up to `maximum` bytes.
    private static func drain(_ descriptor: Int32, into collected: inout [UInt8], open: inout Bool, maximum: Int) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while open {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                if collected.count < maximum { collected += buffer[0..<min(count, maximum - collected.count)] }
            } else if count == 0 {
                open = false
            } else if Glibc.errno != EINTR {
                return
            }
        }
    }

    /// Makes this process adopt the descendants its children orphan (a hook's
    /// `setsid`'ed grandchildren), so that ``endOrphans()`` ends them: call once, early.
    public static func adoptOrphans() throws(SystemError) {
        try Syscalls.becomeChildSubreaper()
        adopting.store(true, ordering: .releasing)
    }

    /// Kills and reaps every adopted orphan (a child of this process that it did not
    /// start: what a child's `setsid`'ed descendants became when their parent ended),
    /// with its process group when it leads one, until none is left. Does nothing unless
    /// ``adoptOrphans()`` was called. The corresponding C functions are `kill` and `waitpid`.
    public static func endOrphans() {
        guard adopting.load(ordering: .acquiring) else { return }
        let me = getpid(), myGroup = getpgrp()
        for _ in 0..<16 {
            let orphans = running.withLock { running in
                let found = adoptedChildren(of: me).filter { !running.contains($0.pid) }
                for orphan in found { _ = kill(orphan.group == orphan.pid && orphan.group != myGroup ? -orphan.pid : orphan.pid, SIGKILL) }
                return found
            }
            if orphans.isEmpty { return }
            for orphan in orphans {
                var status: Int32 = 0
                while waitpid(orphan.pid, &status, 0) < 0 && Glibc.errno == EINTR {}
            }
        }
    }

    /// The children of process `parent` (their ids and process groups), from /proc.
    private static func adoptedChildren(of parent: pid_t) -> [(pid: pid_t, group: pid_t)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> (pid: pid_t, group: pid_t)? in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the name: state, ppid, pgrp, ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, pid_t(fields[1]) == parent, let group = pid_t(fields[2]) else { return nil }
            return (pid, group)
        }
    }

    private func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
