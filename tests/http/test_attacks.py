#!/usr/bin/env python3
"""lector-http under attack (issue 29, "Hostile neighbours"): each attack of the
adversarial pass, run against a real lectord and a real lector-http, with the answer it
must get. Prints one line per check and a closing line "N passed, N failed".

Usage: tests/http/run attacks [NAME...]   (or python3 tests/http/test_attacks.py)

Timing bounds go through real_time() (stretched by the load per core), so the suite
holds with a busy loop on every core beside it.
"""
import base64
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import (ENV, FIXTURES, LECTOR_HTTP, Daemon, Process, Suite, free_port, real_time,  # noqa: E402
                        wait_for, workdir, write)

FIXTURE = os.path.join(FIXTURES, "hello-640x480.png")
IDLE_TIMEOUT = 3
PER_ADDRESS = 32
ALLOWED = "camera.example"
H = b"Host: 127.0.0.1\r\n"

suite = Suite("http attacks")
test = suite.test


class World:
    lector = None
    bridge = None


W = World()


class Bridge(Process):
    """A lector-http on a free loopback port."""

    def __init__(self, socket_path, *args, env=None):
        self.port = free_port()
        self.dir = workdir("lector-http-attacks-")
        super().__init__([LECTOR_HTTP, "--socket", socket_path, "--listen", "127.0.0.1:%d" % self.port] + list(args),
                         os.path.join(self.dir, "lector-http.log"), env, stdout=subprocess.DEVNULL)
        self.start()
        self.wait_port(self.port, "lector-http")

    def threads(self):
        return len(os.listdir("/proc/%d/task" % self.proc.pid))


def exchange(port, data, timeout=None, source="127.0.0.1"):
    """Sends raw bytes and reads until the server closes (or `timeout`): (every status
    line's code, whether the server closed, the bytes)."""
    timeout = timeout or real_time(5)
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    s.sendall(data)
    answer, closed = b"", False
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                closed = True
                break
            answer += chunk
    except (socket.timeout, ConnectionResetError):
        closed = closed or False
    s.close()
    return [int(c) for c in re.findall(rb"(?m)^HTTP/1\.[01] (\d{3})", answer)], closed, answer


def http(port, path, headers=None, method="GET", source=None):
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=real_time(15)) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


HIDDEN = b"GET /api/status HTTP/1.1\r\n" + H + b"\r\n"
ARGS_455 = b"&".join(b"a%d=1" % i for i in range(455))

# (attack, request, status, the connection closed after the answer with nothing else sent)
ATTACKS = [
    # break 1: DNS rebinding: a page on another name reads frames and turns the camera.
    ("rebinding: colour snapshot for evil.example", b"GET /api/snapshot.jpg?color=1 HTTP/1.1\r\nHost: evil.example:18170\r\n\r\n", 403, False),
    ("rebinding: page for evil.example", b"GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n", 403, False),
    ("rebinding: POST orientation with a matching Origin",
     b"POST /api/orientation?rotation=180 HTTP/1.1\r\nHost: evil.example:18170\r\nOrigin: http://evil.example:18170\r\nContent-Length: 0\r\n\r\n", 403, False),
    ("rebinding: two Host headers", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n", 400, True),
    ("HTTP/1.1 without Host", b"GET / HTTP/1.1\r\n\r\n", 400, True),
    # break 5: request smuggling: what a proxy reads as one request, read as two.
    ("smuggling: Content-Length and Transfer-Encoding",
     b"POST /api/orientation HTTP/1.1\r\n" + H + b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % (5 + len(HIDDEN)) + HIDDEN, 400, True),
    ("smuggling: two different Content-Lengths",
     b"POST /api/orientation HTTP/1.1\r\n" + H + b"Content-Length: 0\r\nContent-Length: %d\r\n\r\n" % len(HIDDEN) + HIDDEN, 400, True),
    ("smuggling: Transfer-Encoding other than chunked",
     b"POST /api/orientation HTTP/1.1\r\n" + H + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + HIDDEN, 400, True),
    # break 10: paths checked after decoding; long queries; Expect.
    ("encoded NUL before ..", b"GET /api/status%00/../../etc/passwd HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("encoded NUL in the file name", b"GET /index.html%00.png HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("encoded .. ", b"GET /%2e%2e/%2E%2E/etc/passwd HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("bad percent escape", b"GET /api/status%zz HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("NUL in a query value", b"GET /api/snapshot.jpg?device=a%00b HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("455 query arguments", b"GET /api/status?" + ARGS_455 + b" HTTP/1.1\r\n" + H + b"\r\n", 414, False),
    ("Expect: 100-continue with 10 GB", b"POST /api/orientation HTTP/1.1\r\n" + H + b"Content-Length: 10000000000\r\nExpect: 100-continue\r\n\r\n", 413, True),
    ("a 10 GB body announced", b"POST /api/orientation HTTP/1.1\r\n" + H + b"Content-Length: 10000000000\r\n\r\n", 413, True),
    ("Expect: something else", b"POST /api/orientation HTTP/1.1\r\n" + H + b"Content-Length: 2\r\nExpect: 200-ok\r\n\r\nab", 417, True),
    # Points that held before (round 2), still holding.
    ("path traversal", b"GET /../etc/passwd HTTP/1.1\r\n" + H + b"\r\n", 400, False),
    ("cross-origin POST", b"POST /api/orientation?rotation=90 HTTP/1.1\r\n" + H + b"Origin: http://evil.example\r\nContent-Length: 0\r\n\r\n", 403, False),
    ("100 kB header", b"GET / HTTP/1.1\r\n" + H + b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n", 431, True),
    ("long URL", b"GET /" + b"a" * 40_000 + b" HTTP/1.1\r\n" + H + b"\r\n", 414, True),
]


@test
def attacks_get_their_answers():
    """Each attack of the table: its status, the connection closed where the framing
    cannot be trusted, and never a second (hidden) response."""
    for name, request, expected, closes in ATTACKS:
        codes, closed, answer = exchange(W.bridge.port, request, timeout=real_time(IDLE_TIMEOUT + 3) if closes else real_time(1.5))
        ok = codes[:1] == [expected] and len(codes) == 1 and (closed or not closes)
        suite.check("%s -> %d%s" % (name, expected, ", closed" if closes else ""), ok,
                    "got %s, closed %s: %r" % (codes, closed, answer[:200]))
    exif = W.lector.request({"class": "DEVICES"})["devices"][0]["orientation"]["exif"]
    suite.check("no refused POST turned the camera", exif == 1, "exif %s" % exif)
    logged = [l for l in W.bridge.logtext().splitlines() if "another host name" in l]
    suite.check("foreign Host names logged once a minute at most", len(logged) == 1, logged)


@test
def allowed_hosts_are_served():
    for host in (b"127.0.0.1:%d" % W.bridge.port, b"localhost:%d" % W.bridge.port, b"LOCALHOST.", ALLOWED.encode(),
                 b"[::1]:8170", b"192.0.2.7"):
        codes, _, _ = exchange(W.bridge.port, b"GET /api/status HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
        suite.check("Host %s -> 200" % host.decode(), codes == [200], codes)
    codes, _, _ = exchange(W.bridge.port, b"GET / HTTP/1.0\r\n\r\n")
    suite.check("HTTP/1.0 without Host -> 200", codes == [200], codes)


@test
def a_password_or_no_auth_is_required():
    out = subprocess.run([LECTOR_HTTP, "--socket", W.lector.path, "--listen", "127.0.0.1:%d" % free_port()],
                         capture_output=True, text=True, timeout=real_time(10), env=ENV)
    suite.check("loopback without a password or --no-auth: exit 2", out.returncode == 2 and "--no-auth" in out.stderr,
                (out.returncode, out.stderr))
    password = write(os.path.join(workdir(), "password"), "pw\n")
    out = subprocess.run([LECTOR_HTTP, "--socket", W.lector.path, "--no-auth", "--password-file", password],
                         capture_output=True, text=True, timeout=real_time(10), env=ENV)
    suite.check("--no-auth with a password: exit 2", out.returncode == 2 and "contradict" in out.stderr, (out.returncode, out.stderr))


@test
def wrong_passwords_are_slowed_and_logged():
    """A guesser on the owner's address (every local user is 127.0.0.1) is slowed: the
    answer to each wrong password after three comes later and later; the owner's right
    password is admitted at once on every try meanwhile (issue 39: it was answered 429)."""
    password = write(os.path.join(workdir(), "password"), "right one\n", mode=0o600)
    bridge = Bridge(W.lector.path, "--password-file", password)
    try:
        bad = {"Authorization": "Basic " + base64.b64encode(b"lector:wrong").decode()}
        good = {"Authorization": "Basic " + base64.b64encode(b"lector:right one").decode()}
        guesses, owner = [], []
        stop = threading.Event()

        def guess():
            while not stop.is_set():
                started = time.time()
                try:
                    status = http(bridge.port, "/api/status", bad)[0]
                except OSError as error:  # a guess delayed past the client's timeout
                    if stop.is_set():
                        return  # asked after the 12 s: its answer is not counted
                    status = repr(error)
                guesses.append((status, time.time() - started))

        guessers = [threading.Thread(target=guess) for _ in range(4)]
        for thread in guessers:
            thread.start()
        ends = time.time() + 12
        while time.time() < ends:
            started = time.time()
            owner.append((http(bridge.port, "/api/status", good)[0], time.time() - started))
            time.sleep(0.5)
        stop.set()
        answered = list(guesses)
        for thread in guessers:
            thread.join()
        slowest_owner = max(took for _, took in owner)
        suite.check("the owner's right password admitted on every try while 4 guessers run: %d of %d, slowest %.2f s"
                    % (sum(1 for status, _ in owner if status == 200), len(owner), slowest_owner),
                    all(status == 200 for status, _ in owner) and slowest_owner <= real_time(2), owner)
        suite.check("the guessers got %d answers in 12 s, every one 401, the last ones delayed (%.1f s)"
                    % (len(answered), max(took for _, took in answered)),
                    all(status == 401 for status, _ in answered) and len(answered) <= 16
                    and max(took for _, took in answered) >= 4, answered)
        # Another address is not slowed (127.0.0.2 through a raw request).
        line = b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + bad["Authorization"].encode() + b"\r\nConnection: close\r\n\r\n"
        started = time.time()
        codes, _, _ = exchange(bridge.port, line, source="127.0.0.2")
        suite.check("a wrong password from another address is answered at once", codes == [401] and time.time() - started < real_time(1),
                    codes)
        logged = [l for l in bridge.logtext().splitlines() if "wrong password" in l]
        suite.check("wrong passwords logged, rate-limited: 1 line, with the count", len(logged) == 1 and "count=1" in logged[0],
                    logged[:3])
        print("     owner: %d of %d admitted, slowest %.2f s; guessers: %d answers in 12 s (delays %s); log: %s"
              % (sum(1 for status, _ in owner if status == 200), len(owner), slowest_owner, len(answered),
                 sorted(round(took, 1) for _, took in answered)[-6:], logged[0][:160] if logged else "-"))
    finally:
        bridge.stop()


@test
def other_sites_cannot_read_the_camera():
    """A page on another site embeds the live stream, a snapshot or the events: 403, and
    an idle camera stays idle; every response says Cross-Origin-Resource-Policy."""
    wait_for(lambda: W.lector.request({"class": "DEVICES"})["devices"][0]["state"] == "idle", real_time(30), "the camera to be idle")
    for path in (b"/api/stream.mjpeg?color=1", b"/api/snapshot.jpg?color=1", b"/api/events", b"/api/status"):
        for site in (b"cross-site", b"same-site"):
            request = b"GET " + path + b" HTTP/1.1\r\n" + H + b"Sec-Fetch-Site: " + site + b"\r\nSec-Fetch-Mode: no-cors\r\n" \
                + b"Sec-Fetch-Dest: image\r\nConnection: close\r\n\r\n"
            codes, _, answer = exchange(W.bridge.port, request, timeout=real_time(3))
            suite.check("%s with Sec-Fetch-Site %s -> 403" % (path.decode(), site.decode()), codes == [403], (codes, answer[:200]))
    time.sleep(real_time(1))
    state = W.lector.request({"class": "DEVICES"})["devices"][0]["state"]
    suite.check("the camera stayed idle: %s" % state, state == "idle", state)
    codes, _, answer = exchange(W.bridge.port, b"GET / HTTP/1.1\r\n" + H + b"Sec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: navigate\r\n"
                                + b"Connection: close\r\n\r\n", timeout=real_time(3))
    suite.check("following another site's link to the page -> 200", codes == [200], codes)
    for path in ("/", "/api/status", "/nothing-here"):
        status, headers, _ = http(W.bridge.port, path)
        suite.check("%s (%d) says Cross-Origin-Resource-Policy: same-origin" % (path, status),
                    headers.get("Cross-Origin-Resource-Policy") == "same-origin", dict(headers))


def trickle(port, count, addresses, seconds, victim_every=0.5):
    """`count` connections from `addresses` loopback addresses sending a request head one
    byte at a time for `seconds`; meanwhile a normal client asks for the page. Returns
    (connections still held at each step, victim results [(time, ok)])."""
    sockets = []
    for index in range(count):
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + index % addresses), 0))
        s.setblocking(True)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET / HTTP/1.1\r\n")
            sockets.append(s)
        except OSError:
            s.close()
    held, victim = [], []
    started = time.time()
    while time.time() - started < seconds:
        for s in list(sockets):
            try:
                s.send(b"X")
                ready, _, _ = select.select([s], [], [], 0)
                if ready and s.recv(1) == b"":
                    raise OSError("closed")
            except OSError:
                sockets.remove(s)
                s.close()
        held.append(len(sockets))
        try:
            codes, _, _ = exchange(port, b"GET / HTTP/1.1\r\n" + H + b"Connection: close\r\n\r\n", timeout=real_time(2))
            victim.append((time.time() - started, codes == [200]))
        except OSError:
            victim.append((time.time() - started, False))
        time.sleep(victim_every)
    for s in sockets:
        s.close()
    return held, victim


def longest_lockout(victim):
    worst, since = 0.0, None
    for at, ok in victim:
        if not ok and since is None:
            since = at
        if ok and since is not None:
            worst, since = max(worst, at - since), None
    return worst if since is None else float("inf")


@test
def slowloris_from_one_address():
    held, victim = trickle(W.bridge.port, 520, 1, real_time(IDLE_TIMEOUT) + 3)
    # From the second look on: at the first, connections the kernel queued but the
    # server has not yet accepted (and will close at once) still look open.
    suite.check("520 slow connections from one address: at most %d held" % PER_ADDRESS, max(held[1:]) <= PER_ADDRESS + 1, held)
    suite.check("a normal client is never locked out", all(ok for _, ok in victim), victim)
    suite.check("the slow ones are ended by the request deadline", held[-1] == 0, held)
    print("     held %s; normal client %d/%d answered" % (held, sum(ok for _, ok in victim), len(victim)))


@test
def slowloris_from_many_addresses():
    held, victim = trickle(W.bridge.port, 520, 20, real_time(IDLE_TIMEOUT) * 2 + 4)
    worst = longest_lockout(victim)
    suite.check("520 slow connections from 20 addresses: all ended by the request deadline", held[-1] == 0, held)
    suite.check("a normal client locked out at most about the deadline (%d s), not for ever" % IDLE_TIMEOUT,
                worst <= real_time(IDLE_TIMEOUT + 2), "%.1f s; %s" % (worst, victim))
    print("     held %s; longest lockout %.1f s (--idle-timeout %d)" % (held[:3] + ["..."] + held[-2:], worst, IDLE_TIMEOUT))


@test
def five_hundred_mjpeg_urls_share_bounded_pumps():
    before = W.bridge.threads()
    sockets = []
    try:
        for index in range(500):
            s = socket.socket()
            s.bind(("127.0.0.%d" % (2 + index % 20), 0))
            s.connect(("127.0.0.1", W.bridge.port))
            s.sendall(b"GET /api/stream.mjpeg?max_width=%d HTTP/1.1\r\n" % (16 + index * 7) + H + b"\r\n")
            sockets.append(s)
        time.sleep(real_time(2))
        during = W.bridge.threads()
        started = time.time()
        status = http(W.bridge.port, "/api/status")[0]
        took = time.time() - started
        answered = 0
        for s in sockets:
            s.settimeout(real_time(5))
            try:
                answered += s.recv(12).startswith(b"HTTP/1.1 200")
            except OSError:
                pass
        suite.check("500 MJPEG clients with 500 widths: threads grow by at most the size classes (5)", during - before <= 5 + 2,
                    "%d threads before, %d during" % (before, during))
        suite.check("all 500 served", answered == 500, answered)
        suite.check("/api/status still answers", status == 200, status)
        print("     threads %d -> %d with 500 MJPEG clients (500 widths); /api/status %d in %.3f s" % (before, during, status, took))
    finally:
        for s in sockets:
            s.close()


@test
def idle_link_reconnects_quietly():
    """lectord closes an idle client (here after 2 s): an idle lector-http's link comes
    back without a warning (it logged one every minute)."""
    lector = Daemon("--replay", FIXTURE, "--loop", "--fps", "5", "--idle-timeout", "2").start()
    bridge = Bridge(lector.path, "--no-auth")
    try:
        time.sleep(7)  # lectord closes an idle client every 2 s: several times over
        warnings = [l for l in bridge.logtext().splitlines() if "lost lectord" in l or "warning" in l.lower()]
        suite.check("no warning from an idle bridge whose link lectord closed", not warnings, warnings)
        suite.check("and it still answers", http(bridge.port, "/api/devices")[0] == 200)
    finally:
        bridge.stop()
        lector.stop()


def all_threads_stopped(pid):
    """Whether every thread of `pid` is stopped: SIGSTOP stops a process once the thread
    the kernel picked runs again, and on a loaded machine the server thread can answer a
    request before that."""
    tasks = os.listdir("/proc/%d/task" % pid)
    states = []
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, task)) as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return all(state in ("T", "t") for state in states)


@test
def frozen_lectord_gets_503_and_the_page_still_loads():
    pid = W.lector.proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        wait_for(lambda: all_threads_stopped(pid), 30, "every thread of lectord stopped")
        results = []

        def ask():
            started = time.time()
            status = http(W.bridge.port, "/api/status")[0]
            results.append((status, time.time() - started))
        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
            time.sleep(0.1)
        started = time.time()
        page = http(W.bridge.port, "/")[0]
        page_took = time.time() - started
        for thread in threads:
            thread.join()
        worst = max(took for _, took in results)
        suite.check("8 API calls to a stopped lectord: all 503", [s for s, _ in results] == [503] * 8, results)
        suite.check("each within the request timeout (5 s), not queued behind each other", worst <= real_time(8.5), results)
        suite.check("the page loads meanwhile", page == 200 and page_took <= real_time(1.5), (page, page_took))
        print("     /api/status: 503 after %.1f-%.1f s; GET / %d in %.3f s" % (min(t for _, t in results), worst, page, page_took))
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_for(lambda: http(W.bridge.port, "/api/status")[0] == 200, real_time(15), "the bridge to reach lectord again")


class Lector(Daemon):
    def __init__(self):
        super().__init__("--replay", FIXTURE, "--loop", "--fps", "5")
        self.start()

    def request(self, obj, timeout=10):
        from lectortest import Client
        with Client(self.path, timeout=timeout) as client:
            client.read()
            return client.request(obj)


def setup():
    W.lector = Lector()
    W.bridge = Bridge(W.lector.path, "--no-auth", "--idle-timeout", str(IDLE_TIMEOUT), "--allow-host", ALLOWED,
                      "--max-connections-per-address", str(PER_ADDRESS))


def teardown():
    try:
        if W.bridge:
            assert W.bridge.alive(), "lector-http died"
    finally:
        for process in (W.bridge, W.lector):
            if process:
                process.stop()
        if suite.failed and W.bridge:
            print("--- lector-http log\n" + W.bridge.logtext()[-3000:])


if __name__ == "__main__":
    sys.exit(suite.main(setup=setup, teardown=teardown))
