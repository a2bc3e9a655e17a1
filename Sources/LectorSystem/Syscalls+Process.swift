import CLectorSystem
import Glibc

/// The process: its ids, its environment, its scheduling priority, executing a program.
extension Syscalls {
    /// Makes descendants orphaned by their parent (a hook's `setsid`'ed children) children
    /// of this process, so that ``ChildProcess/endOrphans()`` can end them.
    /// The corresponding C function is `prctl` (PR_SET_CHILD_SUBREAPER).
    public static func becomeChildSubreaper() throws(SystemError) {
        if lector_become_child_subreaper() != 0 { throw SystemError.current("prctl") }
    }

    /// This process's id. The corresponding C function is `getpid`.
    public static var processID: Int32 { Glibc.getpid() }

    /// The real user id of this process. The corresponding C function is `getuid`.
    public static var userID: uid_t { Glibc.getuid() }

    /// The effective user id: who owns the files this process creates.
    /// The corresponding C function is `geteuid`.
    public static var effectiveUserID: uid_t { Glibc.geteuid() }

    /// The calling thread's kernel id (as logs and `top -H` show it).
    /// The corresponding C function is `gettid` (from the `CLectorSystem` shim).
    public static var threadID: Int32 { lector_gettid() }

    /// CPU time the calling thread has used, in nanoseconds.
    /// The corresponding C function is `clock_gettime` (CLOCK_THREAD_CPUTIME_ID).
    public static var threadCPUNanoseconds: Int64 {
        var spec = timespec()
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// The value of the environment variable `name`, or nil when it is not set.
    /// The corresponding C function is `getenv`.
    public static func environmentValue(_ name: String) -> String? {
        Glibc.getenv(name).map { String(cString: $0) }
    }

    /// Sets the environment variable `name` to `value` (replacing it). Not thread-safe:
    /// call before other threads start. The corresponding C function is `setenv`.
    public static func setEnvironmentValue(_ name: String, _ value: String) throws(SystemError) {
        if Glibc.setenv(name, value, 1) != 0 { throw SystemError.current("setenv") }
    }

    /// Removes the environment variable `name`. Not thread-safe: call before other
    /// threads read the environment. The corresponding C function is `unsetenv`.
    public static func removeEnvironmentValue(_ name: String) {
        _ = Glibc.unsetenv(name)
    }

    /// Replaces this process's image with the program at `path`, given `arguments`
    /// (the first is the program's name) and the current environment. Returns only by
    /// throwing. The corresponding C function is `execv`.
    public static func execute(_ path: String, arguments: [String]) throws(SystemError) -> Never {
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        Glibc.execv(path, pointers)
        let error = SystemError.current("execv")
        for pointer in pointers { free(pointer) }
        throw error
    }

    /// Ends the process with `status`, after `atexit` handlers and flushing C streams.
    /// The corresponding C function is `exit`.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }

    /// The machine's host name, or nil when it cannot be read.
    /// The corresponding C function is `gethostname`.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Raises the soft limit on open descriptors toward `wanted`, never above the hard
    /// limit; failures leave it as it was. The corresponding C functions are
    /// `getrlimit` and `setrlimit`.
    public static func raiseDescriptorLimit(to wanted: Int) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Flushes every output stream and ends the process at once, without atexit
    /// handlers or C++ static destructors: for when another thread may still be inside a
    /// library whose globals those destructors would free under it.
    /// The corresponding C functions are `fflush` and `_exit`.
    public static func exitImmediately(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }

    /// Sets the calling thread's scheduling priority (nice value: -20 most favoured,
    /// 19 least); lowering it below 0 needs CAP_SYS_NICE.
    /// The corresponding C function is `setpriority` (on the thread's kernel id).
    public static func setThreadPriority(_ nice: Int32) throws(SystemError) {
        _ = try retrying("setpriority", -1) {
            Int(Glibc.setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(lector_gettid()), nice))
        }
    }
}
