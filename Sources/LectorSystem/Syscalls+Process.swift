import CLectorSystem
import Glibc

/// The process: its ids, its environment, its scheduling priority, executing a program.
extension Syscalls {
    /// This process's id. The corresponding C function is `getpid`.
    public static var processID: Int32 { Glibc.getpid() }

    /// The real user id of this process. The corresponding C function is `getuid`.
    public static var userID: uid_t { Glibc.getuid() }

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

    /// Sets the calling thread's scheduling priority (nice value: -20 most favoured,
    /// 19 least); lowering it below 0 needs CAP_SYS_NICE.
    /// The corresponding C function is `setpriority` (on the thread's kernel id).
    public static func setThreadPriority(_ nice: Int32) throws(SystemError) {
        _ = try retrying("setpriority", -1) {
            Int(Glibc.setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(lector_gettid()), nice))
        }
    }
}
