#!/usr/bin/env python3
"""lector-http end to end: a real lectord replaying a frame with known text, a real
lector-http, a real headless Chromium over WebDriver (chromium-driver, driven with
urllib + json), and hostile clients on raw sockets. Prints one line per check and a
closing line "N passed, N failed". Saves the page's screenshot to
.build/tests/lector-http.png (untracked); --update-screenshot writes it to
docs/images/lector-http.png instead, for the README.

Usage: tests/http/run [--update-screenshot] [NAME...]   (LECTORD / LECTOR_HTTP select the
binaries; default .build/debug/lectord and .build/debug/lector-http)
"""
import base64
import json
import math
import os
import re
import select
import shutil
import shlex
import subprocess
import sys
import tempfile
import socket
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import (ENV, FIXTURES, LECTOR_HTTP, ROOT, STARTUP_SECONDS, Client, Daemon, Process, Suite,  # noqa: E402
                        free_port, real_time, wait_for, workdir)

FIXTURE = os.path.join(FIXTURES, "hello-640x480.png")
KNOWN = [line.strip() for line in open(FIXTURE[:-4] + ".txt") if line.strip()]
# The page's screenshot: an untracked file unless --update-screenshot asks for the README's.
SCREENSHOT = os.path.join(ROOT, ".build/tests/lector-http.png")
README_SCREENSHOT = os.path.join(ROOT, "docs/images/lector-http.png")
IDLE_TIMEOUT = 3
PREVIEW_FPS = 5

suite = Suite("http")
test = suite.test


class Lector(Daemon):
    """A lectord on a temporary socket, replaying the fixture at 5 fps."""

    def __init__(self):
        # lectord's default layout (the text-line detector once its model is installed);
        # LECTOR_HTTP_LAYOUT_ARGS="--layout tesseract" runs the suite with Tesseract's.
        super().__init__("--replay", FIXTURE, "--loop", "--fps", "5", *shlex.split(os.environ.get("LECTOR_HTTP_LAYOUT_ARGS", "")))
        self.start()

    def request(self, obj, timeout=10):
        """One request on a connection of its own: its reply, or an ERROR."""
        with Client(self.path, timeout=timeout) as client:
            client.read()  # VERSION
            return client.request(obj)


class Watcher:
    """The test's own watching client: every TEXT by seq, as lectord sent it."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.sock.sendall(b'{"class":"WATCH","text":true,"frame":false,"level":"word"}\n')
        self.buffer = b""
        self.texts = {}

    def pump(self, seconds=0.0):
        deadline = time.time() + seconds
        while True:
            ready, _, _ = select.select([self.sock], [], [], max(0, deadline - time.time()))
            if not ready:
                return
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                return
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if message.get("class") == "TEXT":
                    self.texts[message["seq"]] = message

    def text(self, seq, timeout=5):
        """The TEXT of frame `seq`; for a frame the change gate skipped (a colour preview
        follows the newest captured frame), which has none, the latest TEXT before it:
        what the page draws."""
        deadline = time.time() + timeout
        while seq not in self.texts and time.time() < deadline:
            self.pump(0.2)
        if seq in self.texts:
            return self.texts[seq]
        earlier = [s for s in self.texts if s <= seq]
        return self.texts[max(earlier)] if earlier else None

    def latest(self, predicate, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.pump(0.2)
            matching = [t for s, t in sorted(self.texts.items()) if predicate(t)]
            if matching:
                return matching[-1]
        return None


class Bridge(Process):
    """A lector-http on a free loopback port (or as told)."""

    def __init__(self, socket_path, *args, env=None, port=None):
        self.port = port or free_port()
        self.dir = workdir("lector-http-bridge-")
        listen = [] if any(a.startswith("--listen") for a in args) else ["--listen", "127.0.0.1:%d" % self.port]
        # A password, or --no-auth (the tests' loopback bridges) must be chosen.
        password = any(a == "--password-file" for a in args) or "CREDENTIALS_DIRECTORY" in (env or {})
        auth = [] if password or "--no-auth" in args else ["--no-auth"]
        super().__init__([LECTOR_HTTP, "--socket", socket_path] + listen + auth + list(args),
                         os.path.join(self.dir, "lector-http.log"), env, stdout=subprocess.DEVNULL)
        self.start()

    def wait_listening(self):
        self.wait_port(self.port, "lector-http")
        return self

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)


def http(url, method="GET", headers=None, timeout=15):
    """(status, headers, body) of one request with urllib (errors are answers too)."""
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def raw(port, data, timeout=5):
    """Sends raw bytes; returns the status code of the answer, or None if closed without one."""
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(data)
        answer = b""
        try:
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except (ConnectionResetError, socket.timeout):
            pass
    match = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
    return int(match.group(1)) if match else None


class WebDriver:
    """Headless Chromium through chromedriver's W3C WebDriver endpoint. Requests to
    anything but loopback go to a dead proxy, so one would show as a console error."""

    ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

    def __init__(self):
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="lector-http-chromium-")
        self.proc = subprocess.Popen(["chromedriver", "--port=%d" % self.port], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_for(lambda: self._ready(), STARTUP_SECONDS, "chromedriver")
        capabilities = {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": shutil.which("chromium") or "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,1000", "--user-data-dir=" + self.profile, "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--disable-extensions", "--proxy-server=127.0.0.1:9", "--hide-scrollbars"],
            },
        }
        reply = self.call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = reply["sessionId"]

    def _ready(self):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/status" % self.port, timeout=1) as r:
                return json.load(r)["value"]["ready"]
        except OSError:
            return False

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as error:
            raise AssertionError("WebDriver %s %s: %s" % (method, path, error.read()[:500]))

    def s(self, path):
        return "/session/%s%s" % (self.session, path)

    def go(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def script(self, source, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": source, "args": list(args)})

    def click(self, css):
        element = self.call("POST", self.s("/element"), {"using": "css selector", "value": css})[self.ELEMENT]
        self.call("POST", self.s("/element/%s/click" % element), {})

    def logs(self):
        return self.call("POST", self.s("/se/log"), {"type": "browser"})

    def screenshot(self):
        return base64.b64decode(self.call("GET", self.s("/screenshot")))

    def quit(self):
        try:
            self.call("DELETE", self.s(""))
        except Exception:
            pass
        self.proc.terminate()
        self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)


class World:
    lector = None
    bridge = None
    browser = None
    watcher = None
    failures = 0


W = World()


def device():
    return FIXTURE


# ---------------------------------------------------------------- build and unit

@test
def links_no_ocr_engine():
    found = [p for p in (os.path.join(ROOT, ".build/release/lector-http"), LECTOR_HTTP) if os.path.exists(p)]
    assert found, "no lector-http binary"
    for path in found:
        out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        bad = [l.strip() for l in out.splitlines() if re.search(r"tesseract|lept|v4l|jpeg|gomp|curl", l)]
        assert not bad, "%s links %s" % (path, bad)
        assert "libmicrohttpd" in out, out
    print("     ldd checked: %s" % ", ".join(os.path.relpath(p, ROOT) for p in found))


@test
def systemd_unit_hardened():
    unit = os.path.join(ROOT, "systemd/lector-http.service")
    out = subprocess.run(["systemd-analyze", "security", "--offline=yes", unit], capture_output=True, text=True)
    match = re.search(r"Overall exposure level for lector-http.service: ([0-9.]+)", out.stdout + out.stderr)
    assert match, out.stdout[-500:] + out.stderr[-500:]
    assert float(match.group(1)) <= 1.5, "exposure %s" % match.group(1)
    print("     systemd-analyze security --offline=yes: %s" % match.group(1))


# ---------------------------------------------------------------- the page in Chromium

PAGE_STATE = r"""
const cards = document.querySelectorAll('.camera');
const card = cards[0];
if (!card) return {cards: 0};
const view = card.querySelector('.view'), img = card.querySelector('img.frame'), svg = card.querySelector('svg.boxes');
const ir = img.getBoundingClientRect();
const sx = img.naturalWidth / ir.width, sy = img.naturalHeight / ir.height;
const vb = svg.viewBox.baseVal;
return {
  cards: cards.length,
  device: card.dataset.device,
  seq: view.dataset.seq === undefined ? null : Number(view.dataset.seq),
  space: view.dataset.space,
  boxesSeq: svg.dataset.seq === undefined ? null : Number(svg.dataset.seq),
  textSeq: svg.dataset.textSeq === undefined ? null : Number(svg.dataset.textSeq),
  natural: [img.naturalWidth, img.naturalHeight],
  viewBox: vb ? [vb.width, vb.height] : null,
  text: card.querySelector('pre.text').textContent,
  orientation: card.querySelector('.orientation').textContent,
  state: card.querySelector('.state').textContent,
  captureFps: card.querySelector('.capture-fps').textContent,
  sharpness: card.querySelector('.sharpness').textContent,
  charHeight: card.querySelector('.char-height').textContent,
  hint: card.querySelector('.hint').hidden ? '' : card.querySelector('.hint').textContent,
  words: [...svg.querySelectorAll('polygon')].map(p => { const r = p.getBoundingClientRect();
    return {text: p.dataset.text, x: (r.left - ir.left) * sx, y: (r.top - ir.top) * sy, w: r.width * sx, h: r.height * sy}; }),
  resources: performance.getEntriesByType('resource').map(e => e.name),
  origin: location.origin,
};
"""


def page_state():
    return W.browser.script(PAGE_STATE)


@test
def page_loads_without_errors_or_outside_requests():
    status, headers, body = http(W.bridge.url("/"))
    assert status == 200 and b"<title>Lector</title>" in body, status
    csp = headers.get("Content-Security-Policy", "")
    assert "default-src 'self'" in csp, csp
    W.browser.go(W.bridge.url("/"))
    state = wait_for(lambda: (lambda s: s if s["cards"] == 1 and s["words"] else None)(page_state()), 30, "the page's camera and boxes")
    assert state["device"] == device(), state["device"]
    outside = [r for r in state["resources"] if not r.startswith(state["origin"] + "/") and not r.startswith("blob:")]
    assert not outside, "requests leaving the page's origin: %s" % outside
    errors = [e for e in W.browser.logs() if e.get("level") == "SEVERE"]
    assert not errors, "console errors: %s" % errors
    print("     %d resources, all from %s; no console errors" % (len(state["resources"]), state["origin"]))


@test
def text_panel_shows_known_text():
    state = wait_for(lambda: (lambda s: s if all(k in s["text"] for k in KNOWN) else None)(page_state()), 20, "the known text")
    print("     text panel: %r" % state["text"])


@test
def focus_and_character_height_shown():
    state = wait_for(lambda: (lambda s: s if re.match(r"\d+ px", s["charHeight"]) and re.match(r"\d", s["sharpness"]) else None)(page_state()),
                     10, "the focus figure and character height")
    frame = W.lector.request({"class": "POLL"})["frames"][0]
    assert frame["sharpness"] > 0 and frame["char_height"] >= 16, frame
    # The page rounds as JavaScript's Math.round does (28.5 → 29; Python's round gives 28).
    assert state["charHeight"] == "%d px" % math.floor(frame["char_height"] + 0.5), (state["charHeight"], frame["char_height"])
    assert state["hint"] == "", "no small-text hint at %s px: %r" % (frame["char_height"], state["hint"])
    # The hint's wording when a FRAME reports small text (9 px), through the page's own handler.
    hint = W.browser.script("const cam = cameras.values().next().value; showFocus(cam, {char_height: 9});"
                            "const h = cam.card.querySelector('.hint'); return h.hidden ? '' : h.textContent;")
    assert "9 px per character" in hint and "16 px" in hint, hint
    print("     focus %s, character height %s (FRAME sharpness %.1f, char_height %s); at 9 px: %r"
          % (state["sharpness"], state["charHeight"], frame["sharpness"], frame["char_height"], hint[:60]))


def drawn_boxes_match(state, text):
    """The page's polygons against the TEXT's words: `corners` (their bounding box) on a
    captured-frame preview, `box` on an upright one. Returns the largest deviation."""
    words = [w for b in text["blocks"] for l in b["lines"] for w in l.get("words", [])]
    assert len(words) == len(state["words"]), (len(words), len(state["words"]))
    worst = 0.0
    for expected, drawn in zip(words, state["words"]):
        assert expected["text"] == drawn["text"], (expected["text"], drawn["text"])
        if state["space"] == "captured":
            xs = [p[0] for p in expected["corners"]]
            ys = [p[1] for p in expected["corners"]]
            box = {"x": min(xs), "y": min(ys), "width": max(xs) - min(xs), "height": max(ys) - min(ys)}
        else:
            box = expected["box"]
        for key, value in (("x", box["x"]), ("y", box["y"]), ("w", box["width"]), ("h", box["height"])):
            worst = max(worst, abs(drawn[key] - value))
            assert abs(drawn[key] - value) <= 3, "%s: drawn %s=%.1f, TEXT %s" % (expected["text"], key, drawn[key], value)
    return worst


def boxes_drawn():
    # Drawn on a frame the browser has decoded: a loaded machine (CI beside other work)
    # can show the boxes of a frame whose image is still loading (natural size 0×0).
    return wait_for(lambda: (lambda s: s if s["words"] and s["seq"] is not None and s["seq"] == s["boxesSeq"]
                             and s["natural"] != [0, 0] else None)(page_state()),
                    20, "boxes drawn")


@test
def boxes_lie_on_the_words():
    worst = 0.0
    for _ in range(3):
        state = boxes_drawn()
        text = W.watcher.text(state["textSeq"])
        assert text and text["seq"] == state["textSeq"] <= state["seq"], \
            "lectord's TEXT seq %s (drawn on frame %s) not seen by the test's own client" % (state["textSeq"], state["seq"])
        expected_size = [text["width"], text["height"]] if state["space"] != "captured" else [640, 480]
        assert state["natural"] == expected_size, (state["natural"], expected_size, state["space"])
        worst = max(worst, drawn_boxes_match(state, text))
        time.sleep(0.5)
    print("     %d words, worst deviation %.2f px (frame pixels, %s preview)" % (len(state["words"]), worst, state["space"]))


@test
def orientation_button_changes_text():
    try:
        check_orientation_buttons()
    finally:
        # Upright again whatever failed above: the checks after this one read upright text.
        W.lector.request({"class": "ORIENTATION", "rotation": 0, "mirror": False})


def check_orientation_buttons():
    W.watcher.pump(0)
    before = max(W.watcher.texts)
    W.browser.click(".camera button.rotate")
    # The gate reads a still scene again at once after an orientation change (not at its
    # 10 s refresh): the bound is well below that.
    rotated = W.watcher.latest(lambda t: t["seq"] > before and t["orientation"]["exif"] == 6, real_time(5))
    assert rotated, "no TEXT with orientation 6 (right) within %.0f s of the rotate button" % real_time(5)
    assert (rotated["width"], rotated["height"]) == (480, 640), (rotated["width"], rotated["height"])
    wait_for(lambda: "right" in page_state()["orientation"], 10, "the page to show orientation right")
    # The live view shows the frame of a TEXT at orientation 6: a captured-frame preview
    # stays 640x480 with the boxes from `corners`; an upright one turns 480x640. (Waited
    # for until its image has loaded: under load the boxes were drawn while the new image
    # still had no size, natural 0x0, in one CI run.)
    state = wait_for(lambda: (lambda s: s if s["textSeq"] is not None and s["textSeq"] >= rotated["seq"] and s["seq"] == s["boxesSeq"] and s["words"]
                              and s["natural"] != [0, 0] else None)(page_state()),
                     15, "the live view of a rotated frame")
    text = W.watcher.text(state["textSeq"])
    assert text and text["seq"] == state["textSeq"] and text["orientation"]["exif"] == 6, text and text["orientation"]
    assert state["natural"] == ([640, 480] if state["space"] == "captured" else [480, 640]), (state["natural"], state["space"])
    rotated_worst = drawn_boxes_match(state, text)
    W.browser.click(".camera button.mirror")
    mirrored = W.watcher.latest(lambda t: t["orientation"]["exif"] == 5, 15)
    assert mirrored, "no TEXT with orientation 5 after the mirror button"
    status, _, body = http(W.bridge.url("/api/orientation?rotation=auto"), method="POST")
    assert status == 200 and json.loads(body)["orientation"].get("auto") is True, ("rotation=auto", status, body)
    status, _, body = http(W.bridge.url("/api/orientation?rotation=0&mirror=false"), method="POST")
    assert status == 200 and json.loads(body)["orientation"]["exif"] == 1 and "auto" not in json.loads(body)["orientation"], (status, body)
    # Upright again and read whole (under load the first upright frame's reading can stop
    # at its deadline with a line left out: a later frame reads it).
    upright = W.watcher.latest(lambda t: t["orientation"]["exif"] == 1 and t["seq"] > mirrored["seq"]
                               and all(k in t["text"] for k in KNOWN[:1]), real_time(15))
    assert upright, "no upright TEXT with %r after the orientation was set back" % KNOWN[0]
    print("     TEXT orientation 1 -> 6 (480x640) -> 5 -> auto -> 1; rotated: %d boxes on the %s view within %.2f px"
          % (len(state["words"]), state["space"], rotated_worst))


@test
def screenshot_for_the_readme():
    W.browser.go(W.bridge.url("/"))  # a fresh page: no button left hovered
    wait_for(lambda: (lambda s: s if all(k in s["text"] for k in KNOWN) and s["natural"] == [640, 480]
                      and s["words"] and s["seq"] == s["boxesSeq"] and "fps" in s["captureFps"] else None)(page_state()),
             20, "the page upright with text and boxes")
    time.sleep(2.5)  # let STATUS figures fill in
    png = W.browser.screenshot()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, len(png)
    path = README_SCREENSHOT if UPDATE_SCREENSHOT else SCREENSHOT
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(png)
    errors = [e for e in W.browser.logs() if e.get("level") == "SEVERE"]
    assert not errors, "console errors: %s" % errors
    print("     saved %s (%d bytes)" % (os.path.relpath(path, ROOT), len(png)))


# ---------------------------------------------------------------- streams and API

def stream(request, seconds):
    """Sends `request` to the bridge: what came back within `seconds` (or until it closed)."""
    data = b""
    with socket.create_connection(("127.0.0.1", W.bridge.port), 10) as s:
        s.sendall(request)
        deadline = time.time() + seconds
        while time.time() < deadline:
            ready, _, _ = select.select([s], [], [], 0.2)
            if ready:
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
    return data


@test
def mjpeg_stream_delivers_at_most_preview_fps():
    seconds = 3.0
    # In colour: the camera's newest frames, also those the change gate does not read
    # again (the replay loops one still frame). A gray stream shows recognized frames.
    data = stream(b"GET /api/stream.mjpeg?color=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", seconds + 1.5)
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"multipart/x-mixed-replace; boundary=lectorframe" in head, head
    frames = 0
    for part in body.split(b"--lectorframe\r\n")[1:]:
        headers, _, rest = part.partition(b"\r\n\r\n")
        match = re.search(rb"Content-Length: (\d+)", headers)
        if match and len(rest) >= int(match.group(1)):
            jpeg = rest[:int(match.group(1))]
            assert jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9", "part is not a whole JPEG"
            frames += 1
    assert frames >= 3, "only %d frames in %.1f s" % (frames, seconds + 1.5)
    assert frames <= PREVIEW_FPS * (seconds + 1.5) + 2, "%d frames in %.1f s beyond --preview-fps %d" % (frames, seconds + 1.5, PREVIEW_FPS)
    print("     %d whole JPEG parts in %.1f s (--preview-fps %d)" % (frames, seconds + 1.5, PREVIEW_FPS))


@test
def sse_carries_lectord_lines():
    classes = {}
    data = stream(b"GET /api/events?device=" + urllib.request.quote(device()).encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 3)
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"text/event-stream" in head, head
    for match in re.finditer(rb"data: (\{.*?\})\n\n", body):
        message = json.loads(match.group(1))
        classes.setdefault(message["class"], message)
    assert {"DEVICES", "TEXT", "FRAME"} <= set(classes), sorted(classes)
    assert classes["TEXT"]["device"] == device() and KNOWN[0] in classes["TEXT"]["text"], classes["TEXT"]["text"]
    print("     classes: %s" % ", ".join(sorted(classes)))


@test
def api_devices_status_snapshot():
    status, headers, body = http(W.bridge.url("/api/devices"))
    assert status == 200 and json.loads(body)["devices"][0]["path"] == device(), body[:200]
    status, headers, body = http(W.bridge.url("/api/status"))
    assert status == 200 and json.loads(body)["class"] == "STATUS", body[:200]
    status, headers, body = http(W.bridge.url("/api/snapshot.jpg?boxes=1&max_width=320"))
    assert status == 200 and headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8", (status, body[:20])
    assert headers["X-Lector-Width"] == "320", headers["X-Lector-Width"]
    status, _, _ = http(W.bridge.url("/api/snapshot.jpg?device=nope"))
    assert status == 404, status
    status, _, _ = http(W.bridge.url("/api/snapshot.jpg?max_width=5"))
    assert status == 400, status


# ---------------------------------------------------------------- hostile clients

@test
def bad_paths_and_methods_get_4xx():
    port = W.bridge.port
    cases = [
        (b"GET /../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /api/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /..%2fetc%2fpasswd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"GET /nothing-here.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404),
        (b"GET //etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400),
        (b"DELETE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 405),
        (b"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 405),
        (b"GET /api/orientation HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 405),
        (b"POST /api/orientation?rotation=90 HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Length: 0\r\n\r\n", 403),
        (b"POST /api/orientation?rotation=45 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", 400),
    ]
    for request, expected in cases:
        got = raw(port, request)
        assert got == expected, "%r: got %s, expected %s" % (request[:60], got, expected)
    for request in (b"\x00\x01\x02 garbage\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n"):
        got = raw(port, request)
        assert got is None or 400 <= got < 600 and got != 500, "%r: %s" % (request, got)
    exif = W.lector.request({"class": "DEVICES"})["devices"][0]["orientation"]["exif"]
    assert exif == 1, "a refused cross-origin POST changed the orientation (%s)" % exif


@test
def huge_headers_refused():
    port = W.bridge.port
    big = raw(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
    assert big is None or 400 <= big < 500, big
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"b" * 100) for i in range(2000))
    lines = raw(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")
    assert lines is None or 400 <= lines < 500, lines
    print("     100 kB header: %s; 2,000 header lines: %s" % (big or "closed", lines or "closed"))
    assert http(W.bridge.url("/api/status"))[0] == 200


@test
def slow_client_is_closed():
    with socket.create_connection(("127.0.0.1", W.bridge.port), 10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finishes its headers
        started = time.time()
        assert http(W.bridge.url("/api/status"))[0] == 200, "bridge blocked by a slow client"
        s.settimeout(IDLE_TIMEOUT + 10)
        try:
            data = s.recv(4096)
        except ConnectionResetError:
            data = b""
        waited = time.time() - started
    assert data == b"" or data.startswith(b"HTTP/1.1 4"), data[:50]
    assert waited < IDLE_TIMEOUT + 8, waited
    print("     closed after %.1f s (--idle-timeout %d)" % (waited, IDLE_TIMEOUT))


@test
def five_hundred_idle_connections():
    sockets = []
    try:
        for index in range(500):
            s = socket.socket()
            s.settimeout(5)
            # From 20 loopback addresses: one address may hold 32 connections at most.
            s.bind(("127.0.0.%d" % (2 + index % 20), 0))
            s.connect(("127.0.0.1", W.bridge.port))
            sockets.append(s)
        started = time.time()
        status, _, body = http(W.bridge.url("/api/status"), timeout=5)
        assert status == 200, "bridge did not answer with 500 idle connections open"
        assert W.lector.request({"class": "STATUS"})["class"] == "STATUS"
        deadline = time.time() + IDLE_TIMEOUT + 10
        open_ = set(range(len(sockets)))
        while open_ and time.time() < deadline:
            ready, _, _ = select.select([sockets[i] for i in open_], [], [], 0.5)
            for s in ready:
                try:
                    data = s.recv(1)
                except OSError:
                    data = b""
                if data == b"":
                    open_.discard(sockets.index(s))
        assert not open_, "%d of 500 idle connections still open after %.0f s" % (len(open_), time.time() - started)
        print("     all 500 closed by the bridge within %.1f s; it answered meanwhile" % (time.time() - started))
    finally:
        for s in sockets:
            s.close()
    assert W.bridge.proc.poll() is None and W.lector.proc.poll() is None
    assert http(W.bridge.url("/api/devices"))[0] == 200


@test
def idle_bridge_leaves_lectord_unwatched():
    W.watcher.sock.close()  # the test's own watcher is done: only the bridge may watch now
    W.browser.go(W.bridge.url("/"))
    wait_for(lambda: page_state().get("words"), 20, "the page's boxes")  # {cards: 0} until the first DEVICES
    wait_for(lambda: W.lector.request({"class": "STATUS"})["watchers"] == 1, 5, "the bridge watching with the page open")
    W.browser.go("about:blank")
    started = time.time()
    seen = []

    def unwatched():
        status = W.lector.request({"class": "STATUS"})
        seen.append((round(time.time() - started, 1), status["clients"], status["watchers"]))
        return status["watchers"] == 0
    try:
        wait_for(unwatched, 25, "lectord unwatched once the page closed")
    except AssertionError:
        raise AssertionError("(seconds, clients, watchers): %s; bridge log: %s" % (seen[::10], W.bridge.logtext()[-1500:]))
    print("     lectord watchers 1 -> 0 %.1f s after the page closed" % (time.time() - started))


# ---------------------------------------------------------------- listening and auth

@test
def beyond_loopback_needs_a_password():
    out = subprocess.run([LECTOR_HTTP, "--socket", W.lector.path, "--listen", "0.0.0.0:%d" % free_port()],
                         capture_output=True, text=True, timeout=10, env=ENV)
    assert out.returncode == 2 and "needs a password" in out.stderr, (out.returncode, out.stderr)
    out = subprocess.run([LECTOR_HTTP, "--password", "secret"], capture_output=True, text=True, timeout=10, env=ENV)
    assert out.returncode == 2 and "--password-file" in out.stderr, (out.returncode, out.stderr)
    # --no-auth does not open a public address either.
    out = subprocess.run([LECTOR_HTTP, "--socket", W.lector.path, "--listen", "0.0.0.0:%d" % free_port(), "--no-auth"],
                         capture_output=True, text=True, timeout=10, env=ENV)
    assert out.returncode == 2 and "needs a password" in out.stderr, (out.returncode, out.stderr)


@test
def basic_auth_from_file_and_credential():
    directory = tempfile.mkdtemp(prefix="lector-http-auth-")
    password_file = os.path.join(directory, "lector-http.password")
    with open(password_file, "w") as f:
        f.write("s3cret pass\n")
    # A password file every user can read is refused (issue 39), through a symbolic link too.
    os.chmod(password_file, 0o644)
    link = os.path.join(directory, "link-to-password")
    os.symlink(password_file, link)
    for path in (password_file, link):
        out = subprocess.run([LECTOR_HTTP, "--socket", W.lector.path, "--password-file", path],
                             capture_output=True, text=True, timeout=10, env=ENV)
        assert out.returncode == 2 and "every user can read the password file" in out.stderr and "chmod o-r" in out.stderr, \
            (out.returncode, out.stderr)
    os.chmod(password_file, 0o640)
    good = "Basic " + base64.b64encode(b"lector:s3cret pass").decode()
    bad = "Basic " + base64.b64encode(b"lector:wrong").decode()
    for args, env in ((["--password-file", password_file], ENV), ([], dict(ENV, CREDENTIALS_DIRECTORY=directory))):
        port = free_port()
        bridge = Bridge(W.lector.path, "--listen", "0.0.0.0:%d" % port, *args, env=env, port=port)
        try:
            bridge.wait_listening()
            status, headers, _ = http(bridge.url("/"))
            assert status == 401 and headers["WWW-Authenticate"].startswith("Basic"), status
            assert http(bridge.url("/api/status"), headers={"Authorization": bad})[0] == 401
            assert http(bridge.url("/api/status"), headers={"Authorization": good})[0] == 200
        finally:
            bridge.stop()


@test
def unix_socket_listen():
    path = os.path.join(W.lector.dir, "http.sock")
    bridge = Bridge(W.lector.path, "--listen-unix", path)
    try:
        wait_for(lambda: os.path.exists(path), STARTUP_SECONDS, "the Unix socket")
        assert oct(os.stat(path).st_mode & 0o777) == "0o660", oct(os.stat(path).st_mode)
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(path)
            s.sendall(b"GET /api/devices HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        assert data.startswith(b"HTTP/1.1 200") and b'"class":"DEVICES"' in data, data[:200]
    finally:
        bridge.stop()
    assert bridge.proc.returncode == 0, bridge.proc.returncode
    assert not os.path.exists(path), "the Unix socket is left behind"


@test
def lectord_restart_is_survived():
    W.lector.stop()
    status, _, body = http(W.bridge.url("/api/status"))
    assert status == 502 and b"lectord" in body, (status, body[:200])
    assert W.bridge.proc.poll() is None, "lector-http died with lectord"
    W.lector.start()
    wait_for(lambda: http(W.bridge.url("/api/status"))[0] == 200, 10, "the bridge to reach the new lectord")
    # A lectord that has just started its camera may take longer than the bridge's 5 s
    # request timeout under load: 503 (busy) then, 200 once it answers.
    answers = []
    snapshot = lambda: (lambda a: answers.append(a[0]) or (a if a[0] == 200 else None))(http(W.bridge.url("/api/snapshot.jpg")))
    status, headers, body = wait_for(snapshot, real_time(30), "a snapshot from the new lectord")
    assert body[:2] == b"\xff\xd8" and set(answers) <= {200, 503}, answers
    print("     502 while lectord was away, 200 and a snapshot once it was back")


@test
def codes_on_the_page():
    """A second lectord reading a QR code (away 1 s, shown 3 s, in a loop; scripts/make-code-scenes.py)
    behind a second lector-http: /api/events carries its CODE and the page lists the code
    (format and text) in the camera's Codes."""
    frames = os.path.join(workdir("lector-http-codes-"), "frames")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-code-scenes.py"), frames, "--sequence", "qr:0,1,3",
                    "--fps", "5", "--seed", "8"], check=True, capture_output=True, timeout=300)
    truth = json.load(open(os.path.join(frames, "truth.json")))
    lector = Daemon("--replay", frames, "--loop", "--fps", "5", "--codes", "qr", "--codes-repeat-after", "1").start()
    bridge = Bridge(lector.path, "--log-level", "debug").wait_listening()
    try:
        data = b""
        W.browser.go(bridge.url("/"))

        def listed():
            return W.browser.script("return [...document.querySelectorAll('ul.codes li')].map(li => "
                                    "[...li.querySelectorAll('span')].map(span => span.textContent))") or None
        items = wait_for(lambda: (lambda l: l if l and l[0][-1:] == [truth["text"]] else None)(listed()), real_time(60),
                         "the page to list the code")
        assert re.fullmatch(r"\d\d:\d\d:\d\d qr", items[0][0]), items
        events = []
        with socket.create_connection(("127.0.0.1", bridge.port), 10) as s:
            s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            deadline = time.time() + real_time(20)
            while time.time() < deadline and not events:
                ready, _, _ = select.select([s], [], [], 0.2)
                if ready:
                    data += s.recv(1 << 16)
                events = [json.loads(m.group(1)) for m in re.finditer(rb"data: (\{.*?\})\n\n", data)
                          if b'"class":"CODE"' in m.group(1)]
        assert events and events[0]["text"] == truth["text"] and events[0]["format"] == "qr", events
        errors = [e for e in W.browser.logs() if e.get("level") == "SEVERE"]
        assert not errors, "console errors: %s" % errors
        print("     /api/events: CODE %s %r; the page lists %r" % (events[0]["format"], events[0]["text"], items[0]))
    finally:
        bridge.stop()
        lector.stop()


def setup():
    W.lector = Lector()
    W.watcher = Watcher(W.lector.path)
    W.bridge = Bridge(W.lector.path, "--idle-timeout", str(IDLE_TIMEOUT), "--preview-fps", str(PREVIEW_FPS),
                      "--log-level", "debug").wait_listening()
    W.browser = WebDriver()


def after_each():
    """LECTOR_HTTP_GDB=1: the bridge's threads after each failed test."""
    if os.environ.get("LECTOR_HTTP_GDB") and suite.failed > W.failures:
        print(subprocess.run(["gdb", "-p", str(W.bridge.proc.pid), "-batch", "-ex", "thread apply all bt 12"],
                             capture_output=True, text=True).stdout)
    W.failures = suite.failed


def teardown():
    try:
        if W.browser:  # the tests ran: both daemons outlived them
            assert W.bridge.alive(), "lector-http died"
            assert W.lector.alive(), "lectord died"
    finally:
        if W.browser:
            W.browser.quit()
        for process in (W.bridge, W.lector):
            if process:
                process.stop()
        if suite.failed and W.bridge:
            print("--- lector-http log\n" + W.bridge.logtext()[-3000:])


UPDATE_SCREENSHOT = "--update-screenshot" in sys.argv[1:]

if __name__ == "__main__":
    sys.exit(suite.main([a for a in sys.argv[1:] if a != "--update-screenshot"], setup=setup, teardown=teardown,
                        after_each=after_each))
