"""The Python test harness every suite under tests/ shares: the binaries and fixtures,
lectord started on a socket of its own, a client of that socket, free ports, and one
way to run checks and end with the closing line "N passed, N failed" (CI reads it).

A suite imports it after putting tests/ on its path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from lectortest import Daemon, Client, Suite

and registers tests on a Suite:

    suite = Suite("clients")

    @suite.test
    def version_requests_and_errors():
        with Daemon() as d:
            ...
            suite.check("what is checked", ok, detail)   # or plain `assert`

    if __name__ == "__main__":
        sys.exit(suite.main())

A test passes when it returns. It may also record named checks: then the suite counts
its checks (and a FAIL more if it raised), not the test. A test that raises SkipTest
counts neither way. `tests/SUITE/run NAME...` runs only the named tests.
"""
import collections
import json
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LECTORD = os.environ.get("LECTORD", os.path.join(ROOT, ".build/debug/lectord"))
LECTOR = os.environ.get("LECTOR", os.path.join(ROOT, ".build/debug/lector"))
LECTOR_HTTP = os.environ.get("LECTOR_HTTP", os.path.join(ROOT, ".build/debug/lector-http"))
LECTOR_MQTT = os.environ.get("LECTOR_MQTT", os.path.join(ROOT, ".build/debug/lector-mqtt"))
FIXTURES = os.path.join(ROOT, "Tests/Fixtures")
# The demo frames from the source tree (whatever the resource bundle is called).
DEMO_DIR = os.path.join(ROOT, "Sources/LectorCapture/Resources/demo")
# The demo frames' texts, page by page: tests/pi/demo-words.txt, the file tests/pi and
# tests/packages score against (pages apart by a blank line; scripts/make-fixtures.py
# draws them).
with open(os.path.join(ROOT, "tests/pi/demo-words.txt")) as _words:
    DEMO = [page.splitlines() for page in _words.read().strip().split("\n\n")]
# One OpenMP thread for Tesseract: 3.5-5x faster on small machines (see README).
ENV = dict(os.environ, OMP_THREAD_LIMIT=os.environ.get("OMP_THREAD_LIMIT", "1"))

# How long a started lectord, lector-http or broker may take to listen. A debug lectord
# loads Tesseract's model (and the text-line detector's network) before it serves; on a
# 2-core machine shared with swift builds that took over 20 s, so the suites, which had
# waited 20 s here and 30 s there, all wait this long. A healthy start takes well under
# a second; the bound only decides how long a broken one is waited for.
STARTUP_SECONDS = 60


class SkipTest(Exception):
    """Raised by a test that cannot run here (it is then counted neither way)."""


# ---------------------------------------------------------------- work folders, waiting

_WORKDIRS = []


def workdir(prefix="lector-test-"):
    """A temporary folder, removed at the end when every check passed (kept to look at otherwise)."""
    path = tempfile.mkdtemp(prefix=prefix)
    _WORKDIRS.append(path)
    return path


def write(path, text, mode=None):
    """Writes `text` to `path` (and gives it `mode` when given): the path."""
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port, timeout=0.5):
    """True when something accepts a TCP connection on 127.0.0.1:`port`."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout).close()
        return True
    except OSError:
        return False


def wait_for(predicate, timeout, what, interval=0.05):
    """Calls `predicate` until it returns something true, which is returned; AssertionError
    after `timeout` seconds."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out after %s s waiting for %s (last: %r)" % (timeout, what, last))


def real_time(seconds):
    """A bound on a real-time promise (exit within 1 s of SIGTERM, a late read ended within
    3 s), stretched by how loaded the machine is: `seconds` times the load per core, at
    least 1. The promise is the daemon's on its own machine; CI runs beside other work
    (the issue's check: a busy loop on every core), where every thread waits its turn for
    a core, so the same promise takes proportionally longer in wall-clock time."""
    return seconds * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def cpu_seconds(pid):
    """User + system CPU time of a process, from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(*command, timeout=60, env=None, **kw):
    """Runs a command to its end: (status, stdout, stderr) as text."""
    result = subprocess.run(list(command), capture_output=True, timeout=timeout, env=env or ENV, **kw)
    return result.returncode, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")


def lector(*args, timeout=30, env=None, input=None):
    """Runs lector: (status, stdout, stderr)."""
    return run(LECTOR, *args, timeout=timeout, env=env, input=input)


def lectord(*args, timeout=60, env=None):
    """Runs lectord to its end: (status, stdout, stderr)."""
    return run(LECTORD, *args, timeout=timeout, env=env)


# ---------------------------------------------------------------- processes

class Process:
    """A child process with its output in a log file; `with` starts and stops it."""

    started = []  # every Process started since the last stop_all()

    def __init__(self, args, log_path, env=None, stdout="log"):
        self.args = list(args)
        self.log_path = log_path
        self.env = env or ENV
        self.stdout = stdout
        self.proc = None

    def start(self):
        self.log = open(self.log_path, "a")
        out = self.log if self.stdout == "log" else self.stdout
        self.proc = subprocess.Popen(self.args, stdout=out, stderr=self.log, env=self.env)
        Process.started.append(self)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def send(self, number):
        if self.alive():
            self.proc.send_signal(number)

    def stop(self, number=signal.SIGTERM, timeout=10):
        """Sends `number` (SIGKILL after `timeout` s); returns the exit status."""
        if self.alive():
            self.proc.send_signal(number)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None:
            self.log.close()
        return self.proc.returncode if self.proc else None

    def wait_port(self, port, what, timeout=STARTUP_SECONDS):
        """Returns once 127.0.0.1:`port` accepts a connection; AssertionError with the log
        when the process (`what`) exits first, or after `timeout` s."""
        def listening():
            if not self.alive():
                raise AssertionError("%s exited %s: %s" % (what, self.proc.returncode, self.logtext()))
            return port_open(port)
        wait_for(listening, timeout, what + " to listen")

    def logtext(self):
        if self.proc is not None and not self.log.closed:
            self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class NamedProcess(Process):
    """A child process named `name`, its output in `name`.log in the subclass's `work`
    folder (a suite's WORK)."""

    work = None

    def __init__(self, name, args):
        self.name = name
        super().__init__(args, os.path.join(self.work, "%s.log" % name))


def stop_all(number=signal.SIGKILL):
    """Stops every Process started since the last call that still runs (a test's leftovers)."""
    for process in Process.started:
        process.stop(number, timeout=5)
    Process.started.clear()


class Daemon(Process):
    """A lectord on a socket of its own (a temporary one unless given), by default on the
    demo frames at 5 fps; its log (stderr) in its folder. `start` (or `with`) returns once
    a client can connect."""

    def __init__(self, *args, socket_path=None, env=None, wait=True, log_path=None, binary=None):
        # A folder of its own for what is not given.
        self.dir = workdir("lector-daemon-") if socket_path is None or log_path is None else os.path.dirname(log_path)
        self.path = socket_path or os.path.join(self.dir, "lector.sock")
        super().__init__([binary or LECTORD, "--socket", self.path] + list(args or ["--demo", "--fps", "5"]),
                         log_path or os.path.join(self.dir, "lectord.log"), env, stdout=subprocess.DEVNULL)
        self.wait = wait

    def start(self):
        super().start()
        if self.wait:
            self.wait_listening()
        return self

    def reload(self, config, text):
        """Writes `text` to the configuration file `config` and sends SIGHUP."""
        write(config, text)
        self.send(signal.SIGHUP)

    def wait_listening(self, timeout=STARTUP_SECONDS):
        def listening():
            if not self.alive():
                raise AssertionError("lectord exited %s: %s" % (self.proc.returncode, self.logtext()[-2000:]))
            try:
                Client(self.path).close()
                return True
            except OSError:
                return False
        wait_for(listening, timeout, "lectord to listen on " + self.path)


# ---------------------------------------------------------------- lectord's socket

STREAM = ("TEXT", "FRAME", "OVERFLOW", "TRACK", "MATCH", "CODE")


def no_nulls(value):
    """True when no member or element anywhere in `value` is null (the protocol sends none)."""
    if value is None:
        return False
    if isinstance(value, dict):
        return all(no_nulls(v) for v in value.values())
    if isinstance(value, list):
        return all(no_nulls(v) for v in value)
    return True


class Client:
    """A client of lectord's socket: stdlib socket + json, one JSON object per line.
    `strict` checks every message read: a class, and no null anywhere."""

    def __init__(self, path, timeout=15, read_version=False, strict=False):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.strict = strict
        if read_version:
            version = self.read()
            assert version["class"] == "VERSION", version
            assert version["proto_major"] == 1, version

    def send(self, obj):
        self.sock.sendall((obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n")

    def readline(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def read(self):
        message = json.loads(self.readline())
        if self.strict:
            assert "class" in message, message
            assert no_nulls(message), message
        return message

    def read_class(self, name, timeout=30, where=lambda message: True):
        """The next message of class `name` (for which `where` holds), within `timeout` s."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            message = self.read()
            if message["class"] == name and where(message):
                return message
        raise AssertionError("no %s within %s s" % (name, timeout))

    def reply(self, skip=STREAM + ("VERSION",)):
        """The next message that is not a stream message (nor VERSION)."""
        while True:
            message = self.read()
            if message["class"] not in skip:
                return message

    def request(self, obj):
        """Sends `obj` and returns the first reply of its class, or an ERROR."""
        self.send(obj)
        while True:
            message = self.read()
            if message["class"] in (obj["class"], "ERROR"):
                return message

    def drain(self):
        """Reads until the server closes the connection (EOF or reset)."""
        try:
            while True:
                self.readline()
        except (EOFError, ConnectionResetError):
            pass

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def serve_lines(path, lines, linger=2):
    """A server on a real Unix socket at `path` (this user's, so clients trust it) for
    one connection: greets with VERSION, sends `lines` (bytes as they are, anything else
    as JSON), then waits up to `linger` seconds for the client to close. A stand-in for a
    hostile or broken lectord. Returns its thread (join it)."""
    import threading
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)

    def answer():
        connection, _ = server.accept()
        with connection:
            connection.sendall(b'{"class":"VERSION","release":"test","proto_major":1,"proto_minor":10}\n')
            connection.settimeout(linger)
            try:
                for line in lines:
                    connection.sendall((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n")
                while connection.recv(65536):
                    pass
            except OSError:
                pass
        server.close()

    thread = threading.Thread(target=answer)
    thread.start()
    return thread


# ---------------------------------------------------------------- reading known text

WORD = re.compile(r"[A-Za-z0-9]+")


def jpeg_colour(path):
    """What libjpeg's djpeg makes of a JPEG file: (components, chroma, width, height);
    components is 0 when it does not decode. chroma is the mean over the pixels of
    max(R, G, B) - min(R, G, B) (0 for gray; a few units for a colour photo's mostly gray
    parts, far more for a car's paint or a sign)."""
    result = subprocess.run(["djpeg", "-pnm", path], capture_output=True, timeout=30)
    if result.returncode != 0 or result.stderr:
        return 0, 0.0, 0, 0
    magic, size, _, pixels = result.stdout.split(b"\n", 3)
    width, height = (int(v) for v in size.split())
    if magic == b"P5":
        return 1, 0.0, width, height
    spread = sum(max(pixels[i:i + 3]) - min(pixels[i:i + 3]) for i in range(0, 3 * width * height, 3))
    return 3, spread / (width * height), width, height


def words(text):
    """The words of `text` as the suites score them: runs of letters and digits, lower case."""
    return [w.lower() for w in WORD.findall(text)]


def recall(truth_words, text):
    """Fraction of the known words (as a multiset) found in `text`."""
    want = collections.Counter(truth_words)
    have = collections.Counter(words(text))
    found = sum(min(n, have[w]) for w, n in want.items())
    return found / max(1, sum(want.values()))


def replay_to_end(lectord, paths, args):
    """Runs `lectord --stdout` on the recorded sources `paths` (one --replay each) to their
    end; returns [(arrival, message)]. Exits the suite if lectord fails."""
    command = [lectord, "--stdout", "--log-level", "warning"] + args
    for path in paths:
        command += ["--replay", path]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=ENV,
                               text=True, bufsize=1)
    lines = []
    for line in process.stdout:
        lines.append((time.time(), json.loads(line)))
    process.wait()
    if process.returncode != 0:
        sys.exit(f"lectord exited with {process.returncode}: {' '.join(map(shlex.quote, command))}")
    return lines


class Streamed:
    """lectord ARGS --stdout (optionally in a CPU quota: a scripts/cpuquota.py CPUQuota),
    its messages with the wall-clock time each arrived (`_arrived`), collected by `run`
    until lectord ends, `deadline` passes or, given `seconds`, that long after its first
    FRAME (`first_frame`); then lectord is stopped with SIGTERM."""

    def __init__(self, args, seconds=None, quota=None):
        popen = quota.popen if quota else subprocess.Popen
        self.process = popen([os.environ.get("LECTORD", LECTORD), *args, "--stdout"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ENV)
        self.seconds = seconds
        self.messages = []
        self.first_frame = None
        self.log = []
        self._lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self._lines.put((time.time(), raw))
        self._lines.put(None)

    def run(self, deadline=150):
        """Collects the messages (see the class), stops lectord; returns self."""
        stop_at = time.time() + deadline
        while True:
            try:
                item = self._lines.get(timeout=max(0.05, stop_at - time.time()))
            except queue.Empty:
                break
            if item is None:
                break
            arrived, raw = item
            if not raw.startswith(b"{"):
                continue
            message = json.loads(raw)
            message["_arrived"] = arrived
            self.messages.append(message)
            if message["class"] == "FRAME" and self.first_frame is None:
                self.first_frame = message
                if self.seconds is not None:
                    stop_at = min(stop_at, arrived + self.seconds)
            if time.time() >= stop_at:
                break
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self

    def of(self, name):
        """The messages of class `name`."""
        return [m for m in self.messages if m["class"] == name]

    def matches(self, rule=None):
        """The MATCH messages (of `rule` when given)."""
        return [m for m in self.of("MATCH") if rule is None or m["rule"] == rule]


def rfc3339(text):
    """Seconds since the epoch of a protocol time (`2026-12-07T08:41:46.123Z`)."""
    import calendar
    date, clock = text.rstrip("Z").split("T")
    whole, _, fraction = clock.partition(".")
    return calendar.timegm(time.strptime(date + "T" + whole, "%Y-%m-%dT%H:%M:%S")) + (float("0." + fraction) if fraction else 0.0)


# ---------------------------------------------------------------- checks and the closing line

class Suite:
    """A suite's tests and checks, and its closing line "N passed, N failed"."""

    def __init__(self, name, timed=True):
        self.name = name
        self.timed = timed
        self.tests = []
        self.passed = self.failed = 0

    def test(self, function):
        """Decorator: registers a test (run in the order registered)."""
        self.tests.append(function)
        return function

    def check(self, name, ok, detail=""):
        """One named check: "ok   NAME" or "FAIL NAME: detail"."""
        if ok:
            self.passed += 1
            print("ok   %s" % name, flush=True)
        else:
            self.failed += 1
            print("FAIL %s%s" % (name, ": " + str(detail)[-1200:] if detail != "" else ""), flush=True)
        return ok

    def run_test(self, function):
        checks = self.passed + self.failed
        started = time.time()
        took = lambda: " (%.1f s)" % (time.time() - started) if self.timed else ""
        try:
            function()
        except SkipTest as skip:
            print("skip %s: %s" % (function.__name__, skip), flush=True)
            return
        except Exception:  # noqa: BLE001 - a test that raised is a failed check
            self.check(function.__name__ + took(), False, traceback.format_exc())
            return
        if self.passed + self.failed == checks:
            self.check(function.__name__ + took(), True)

    def main(self, argv=None, setup=None, teardown=None, after_each=None):
        """Runs the tests named in `argv` (all when none); returns the exit status.
        `setup` runs first (its failure is one failed check and ends the run), `teardown`
        last, `after_each` after every test."""
        names = set(sys.argv[1:] if argv is None else argv)
        unknown = names - {t.__name__ for t in self.tests}
        if unknown:
            print("unknown test: %s (tests: %s)" % (", ".join(sorted(unknown)), ", ".join(t.__name__ for t in self.tests)))
            return self.finish(extra_failed=1)
        try:
            if setup:
                setup()
            for function in self.tests:
                if not names or function.__name__ in names:
                    self.run_test(function)
                    if after_each:
                        after_each()
        except Exception:  # noqa: BLE001 - setup that failed
            self.check("setup", False, traceback.format_exc())
        finally:
            if teardown:
                try:
                    teardown()
                except Exception:  # noqa: BLE001
                    self.check("teardown", False, traceback.format_exc())
        return self.finish()

    def finish(self, extra_failed=0):
        """Prints the closing line; removes the work folders when nothing failed."""
        self.failed += extra_failed
        if self.failed == 0:
            for path in _WORKDIRS:
                shutil.rmtree(path, ignore_errors=True)
        elif _WORKDIRS:
            print("     work folders kept: " + " ".join(_WORKDIRS))
        print("%d passed, %d failed" % (self.passed, self.failed), flush=True)
        return 1 if self.failed else 0
