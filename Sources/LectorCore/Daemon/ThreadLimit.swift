import Foundation
import Glibc
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
        guard getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        let arguments = CommandLine.arguments
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        execv("/proc/self/exe", pointers)
        // execv returned: it failed (no /proc?). Run on, slower.
        for pointer in pointers { free(pointer) }
    }
}
