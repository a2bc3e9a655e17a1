#!/usr/bin/env python3
"""The syscall seam (issue 10): every C library call Lector's Swift code makes goes
through the system target (Sources/LectorSystem: `Syscalls` and the files beside it).

Checks, one line each, then "N passed, N failed":
- no Swift file under Sources/ outside LectorSystem imports Glibc, names `Glibc.`, or
  calls a C library function directly (also through Foundation, which re-exports
  Glibc), save the files named in tests/seam/allow-list, each with a reason;
- the scanner finds planted violations (so the first check can fail) and leaves alone
  what merely looks like one (our own `read(client)`, comments, strings);
- every allow-list entry still exists; LectorSystem links no camera, OCR or image
  library; each public `Syscalls` entry names its C function;
- fault injection is compiled only into debug builds (source, and the built binaries
  when they are there).

Usage: tests/seam/run
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import ROOT, Suite  # noqa: E402

SYSTEM = "Sources/LectorSystem/"
ALLOW_LIST = os.path.join(ROOT, "tests/seam/allow-list")

# C library functions a Swift file could reach through Glibc or Foundation.
LIBC = set("""
open openat creat close read write pread pwrite readv writev lseek fsync fdatasync ftruncate
fcntl ioctl mmap munmap mprotect msync madvise poll ppoll select pselect epoll_create
epoll_create1 epoll_ctl epoll_wait socket socketpair bind listen accept accept4 connect
send sendto sendmsg recv recvfrom recvmsg shutdown setsockopt getsockopt getsockname
getpeername pipe pipe2 dup dup2 dup3 eventfd timerfd_create signalfd inotify_init
umask chmod fchmod chown fchown lchown unlink unlinkat rmdir mkdir mkdirat rename
renameat link symlink readlink stat lstat fstat fstatat access faccessat realpath
opendir fdopendir readdir closedir getcwd chdir truncate
getenv secure_getenv setenv unsetenv putenv clearenv
execv execve execvp execl execlp fork vfork posix_spawn posix_spawnp waitpid wait
kill raise signal sigaction sigwait sigwaitinfo sigprocmask pthread_sigmask
sigemptyset sigfillset sigaddset sigdelset alarm pause
getpid getppid gettid getuid geteuid getgid getegid setuid setgid setsid
setpriority getpriority nice sched_setaffinity sched_getaffinity sched_yield
pthread_create pthread_self pthread_setname_np prctl
clock_gettime clock_getres clock_nanosleep nanosleep usleep sleep time gettimeofday
strerror strerror_r perror fopen fdopen fclose fread fwrite fgets fputs fprintf printf
puts fflush setvbuf malloc calloc realloc free posix_memalign strdup strndup memcpy
memmove memset memcmp strlen strcmp strncmp getrusage sysconf getrlimit setrlimit
getgrnam getgrnam_r getgrgid getpwnam getpwnam_r getpwuid getpwuid_r
exit _exit abort atexit isatty ttyname dlopen dlsym dlclose syscall
""".split())

CALL = re.compile(r"(?<![\w.])(?:(?:Foundation|Glibc|SwiftGlibc)\.)?([A-Za-z_]\w*)\s*\(")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:func|var|let|struct|enum|class|typealias|protocol)\s+)?(Glibc|SwiftGlibc|Musl)\b", re.M)
QUALIFIED = re.compile(r"\b(?:Glibc|SwiftGlibc|Musl)\.")
ERRNO = re.compile(r"(?<![\w.])errno\b(?!\s*:)")
DECLARED = re.compile(r"\b(?:func|case|var|let)\s+([A-Za-z_]\w*)")
SIGNATURE = re.compile(r"\bfunc\s+\w+\s*(?:<[^>]*>)?\s*\(([^)]*)\)")


def declared(code):
    """Names the file declares itself: functions, cases, variables, parameters."""
    names = set(DECLARED.findall(code))
    for parameters in SIGNATURE.findall(code):
        for parameter in parameters.split(","):
            words = parameter.split(":")[0].split()
            if words:
                names.add(words[-1])
    return names


def strip(text):
    """The code without comments and string literals (lines kept, for line numbers)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def violations(path, text):
    """(line, what) for each direct C library use in one Swift file."""
    code = strip(text)
    own = declared(code)
    found = []
    for number, line in enumerate(code.split("\n"), 1):
        if IMPORT.search(line):
            found.append((number, "imports Glibc"))
        if QUALIFIED.search(line):
            found.append((number, "names Glibc."))
        for match in CALL.finditer(line):
            name = match.group(1)
            qualified = match.group(0) != name + match.group(0)[len(name):] or "." in match.group(0)
            if name in LIBC and (qualified or name not in own):
                before = line[:match.start()]
                if re.search(r"\b(func|case)\s+$", before):
                    continue
                found.append((number, "calls %s()" % name))
        if "errno" not in own and ERRNO.search(line):
            found.append((number, "reads errno"))
    return found


def read_allow_list():
    entries = []
    for raw in open(ALLOW_LIST):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        path, _, reason = line.partition(" ")
        entries.append((path, reason.strip()))
    return entries


def allowed(relative, entries):
    return any(relative == path or (path.endswith("/") and relative.startswith(path)) for path, _ in entries)


def scan(root, entries):
    """Every violation under root/Sources outside the system target and the allow-list."""
    found = []
    for directory, _, files in os.walk(os.path.join(root, "Sources")):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            full = os.path.join(directory, name)
            relative = os.path.relpath(full, root)
            if relative.startswith(SYSTEM) or allowed(relative, entries):
                continue
            for number, what in violations(relative, open(full, encoding="utf-8").read()):
                found.append("%s:%d: %s" % (relative, number, what))
    return found


def planted(source):
    """The violations scan() reports for `source` planted as Sources/LectorPipeline/Planted.swift."""
    with tempfile.TemporaryDirectory(prefix="lector-seam-") as root:
        os.makedirs(os.path.join(root, "Sources/LectorPipeline"))
        with open(os.path.join(root, "Sources/LectorPipeline/Planted.swift"), "w") as f:
            f.write(source)
        return scan(root, [])


# Checks ------------------------------------------------------------------------------

def test_no_direct_libc_outside_the_system_target():
    found = scan(ROOT, read_allow_list())
    assert not found, "direct C library use outside Sources/LectorSystem:\n  " + "\n  ".join(found)


PLANTS = {
    "import Glibc": "import Glibc\nfunc f() {}\n",
    "@preconcurrency import Glibc": "@preconcurrency import Glibc\n",
    "import func Glibc.write": "import func Glibc.write\n",
    "Glibc.write(": "import Foundation\nfunc f(_ b: [UInt8]) { _ = Glibc.write(1, b, b.count) }\n",
    "write( through Foundation": "import Foundation\nfunc f(_ b: [UInt8]) { _ = write(1, b, b.count) }\n",
    "getenv( through Foundation": "import Foundation\nlet home = getenv(\"HOME\")\n",
    "Foundation.exit(": "import Foundation\nfunc f() { Foundation.exit(1) }\n",
    "usleep(": "import Foundation\nfunc f() { usleep(1000) }\n",
    "errno": "import Foundation\nfunc f() -> Int32 { errno }\n",
}


def test_planted_violations_are_found():
    missed = [name for name, source in PLANTS.items() if not planted(source)]
    assert not missed, "the scanner missed: %s" % ", ".join(missed)


def test_lookalikes_are_not_violations():
    source = '''import Foundation
import LectorSystem
/// Calls getenv("X") and write(2) in a comment; usleep( too.
final class Peer {
    func flush(_ write: (Int) -> Int) -> Int { write(1) }
    func read(_ client: Int) {}
    func close(_ client: Int, reason: String?) {}
    func run(error: SystemError) {
        read(3)
        close(3, reason: "write(")
        _ = Syscalls.environmentValue("HOME")
        _ = try? Syscalls.write(3, from: UnsafeRawBufferPointer(start: nil, count: 0))
        let broken = error.errno == EPIPE
        _ = SystemError(errno: EIO, call: "open(")
        _ = broken
    }
}
enum Verb { case open(String), close }
'''
    found = planted(source)
    assert not found, "false positives:\n  " + "\n  ".join(found)


def test_allow_list_is_short_and_current():
    entries = read_allow_list()
    assert len(entries) <= 5, "the allow-list has %d entries; move calls into LectorSystem instead" % len(entries)
    for path, reason in entries:
        assert os.path.exists(os.path.join(ROOT, path)), "allow-list names %s, which does not exist" % path
        assert reason, "allow-list entry %s gives no reason" % path


def test_system_target_links_no_camera_ocr_or_image_library():
    dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                     capture_output=True, text=True).stdout)
    targets = {t["name"]: t for t in dump["targets"]}

    def closure(name, seen):
        if name in seen:
            return
        seen.add(name)
        for dependency in targets[name].get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dependency:
                    closure(dependency[kind][0], seen)

    reached = set()
    closure("LectorSystem", reached)
    assert reached <= {"LectorSystem", "CLectorSystem"}, "LectorSystem depends on %s" % sorted(reached)
    for name in reached:
        for setting in targets[name].get("settings", []):
            text = json.dumps(setting)
            for library in ("v4l2", "tesseract", "lept", "jpeg"):
                assert library not in text, "%s links %s" % (name, library)


def test_every_syscalls_entry_names_its_c_function():
    missing = []
    for name in sorted(os.listdir(os.path.join(ROOT, SYSTEM))):
        if not name.startswith("Syscalls"):
            continue
        lines = open(os.path.join(ROOT, SYSTEM, name)).read().split("\n")
        for index, line in enumerate(lines):
            match = re.match(r"\s*public static (?:func|var) (\w+)", line)
            if not match or match.group(1) == "injectFault":
                continue
            doc = []
            j = index - 1
            while j >= 0 and lines[j].strip().startswith(("///", "@")):
                doc.append(lines[j])
                j -= 1
            text = " ".join(" ".join(line.strip().lstrip("/").split()) for line in reversed(doc))
            if "The corresponding C function" not in text:
                missing.append("%s: %s" % (name, match.group(1)))
    assert not missing, "no \"The corresponding C function is\" in the doc comment of:\n  " + "\n  ".join(missing)


def test_fault_injection_only_in_debug_builds():
    text = open(os.path.join(ROOT, SYSTEM, "Syscalls.swift")).read()
    guarded = re.search(r"#if DEBUG\n(.*?)#else\n(.*?)#endif", text, re.S)
    assert guarded and "func injectFault" in guarded.group(1), "injectFault is not inside #if DEBUG"
    assert "injectFault" not in guarded.group(2), "the release half defines injectFault"
    elsewhere = text[:guarded.start()] + text[guarded.end():]
    assert "injectFault" not in elsewhere.replace("``injectFault(", ""), "injectFault outside #if DEBUG"
    # The built binaries, when present: the symbol is in debug builds only.
    for configuration, expected in (("debug", True), ("release", False)):
        binary = os.path.join(ROOT, ".build", configuration, "lectord")
        if not os.path.exists(binary):
            continue
        symbols = subprocess.run(["nm", binary], capture_output=True, text=True).stdout
        present = "11injectFault" in symbols
        assert present == expected, "%s lectord %s injectFault" % (configuration, "has" if present else "lacks")


suite = Suite("seam", timed=False)
for function in (
    test_no_direct_libc_outside_the_system_target,
    test_planted_violations_are_found,
    test_lookalikes_are_not_violations,
    test_allow_list_is_short_and_current,
    test_system_target_links_no_camera_ocr_or_image_library,
    test_every_syscalls_entry_names_its_c_function,
    test_fault_injection_only_in_debug_builds,
):
    suite.test(function)


if __name__ == "__main__":
    sys.exit(suite.main())
