import LectorProtocol
import LectorSystem

/// Tesseract's OpenMP threads make recognition 3.5–5× slower on a 2-core machine. The
/// OpenMP runtime reads OMP_THREAD_LIMIT once, when it is loaded (before `main`), so
/// setting it later has no effect: when the user has not set it, Lector sets it to 1 and
/// executes itself again.
public enum ThreadLimit {
    /// Re-executes the current program with OMP_THREAD_LIMIT=1 unless it is set.
    /// Returns only when nothing had to be done (or the re-exec failed).
    public static func ensureSingleThreadedOpenMP() {
        guard Syscalls.environmentValue("OMP_THREAD_LIMIT") == nil else { return }
        do {
            try Syscalls.setEnvironmentValue("OMP_THREAD_LIMIT", "1")
            try Syscalls.execute("/proc/self/exe", arguments: CommandLine.arguments)
        } catch {
            // execv failed (no /proc?). Run on, slower.
        }
    }
}
