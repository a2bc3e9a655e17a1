"""Network cameras (issue 38) on real servers, all on 127.0.0.1 at ports picked here.

- refused_at_configuration: a bad --url (scheme, host, port, spaces), a url_password_file
  without a user in the URL: lectord exits 2 with the reason, the password in no output.
- reads_like_replay (rtsp, rtsp H.265, mjpeg, snapshot): the known words' recall over the
  TEXTs of 20 s of each camera (10 s of H.265) within 0.05 of the same frames replayed
  from files (the frames the RTSP server encodes, rendered again; the JPEGs the HTTP
  camera served, as served).
- https_mjpeg_reads: an MJPEG stream over HTTPS (a self-signed certificate) is read.
- latency_third_of_a_core: lectord in a third of a core (scripts/cpuquota.py) with
  --deadline-ms 10000 on a 10 fps RTSP stream for LATENCY_SECONDS: the frame number read
  (the counter in the picture) is never more than one recognition (lectord's time on the
  frame: its FRAME's recognize_ms + overhead_ms) plus two frame intervals (the server's
  own) behind the frame the server's encoder put out when lectord published the TEXT
  (see lag_rows); the lag does not grow (last third against first third) and the
  resident memory stays flat. Skipped without a writable cgroup cpu controller.
  NETCAM_LATENCY_SECONDS=300 is the 5-minute run of docs/PERFORMANCE.md.
- restarts (rtsp three times, mjpeg, snapshot): the server killed (SIGKILL) and started
  again: lectord never exits, streams again within 10 s of the server's return, and
  logs each cause once per outage; paused (SIGSTOP) and resumed: lost, then back.
- wrong_password (rtsp, mjpeg): one error line naming 401 over 8 s of retries; the right
  password from url_password_file streams; the password and user in no log line,
  STATUS, DEVICES, TEXT, nor in what lector-http serves (the page, its devices and status).
- mjpeg_cpu_per_frame: lectord's CPU per recognized frame on the MJPEG stream within
  1.2x of --replay of the same JPEGs at the same rate (one run, both measured alike).
- rtsp_behind_decodes_key_frames: a 1080p 25 fps stream of noisy frames (costly to
  decode) read in a tenth of a core: lectord says once that it decodes key frames only
  while behind, and no backlog grows: the frame read stays under 10 s (250 frames)
  behind, and the last third's mean lag is within two key frame intervals (50 frames)
  of the first third's (decoding every frame there, it would fall minutes behind).
- rtsp_4k_third_of_a_core: a 3840x2160 H.264 stream read in a third of a core: TEXTs with
  the words come, and the frame number read keeps up (bounded as above, plus the key
  frame interval: decoding falls back to key frames while behind).
- rtsp_still_decodes_key_frames (issue 47): a still 1080p25 stream with 2 s key frames:
  lectord's CPU <= 0.25x FFmpeg decoding the same stream alone (ffmpeg -threads 1), its
  refreshes included.
- rtsp_changes_read_within_a_key_frame (issue 47): the scene changes every 5 s: each
  change's first TEXT within 2.5 s (or the server's own key frame interval + 0.5 s);
  lectord's CPU besides reading <= 1.15x FFmpeg's; hwdecode auto falls back, said once.
- hostile_http_camera_bounded (issue 45): a 2 GB MJPEG part, a part without a boundary,
  a header flood: <= 100 MB more memory, little CPU, "floods" said; ffconcat: "playlist".
"""
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from lectortest import ENV, LECTOR_HTTP, LECTORD, Client, Process, SkipTest, Suite, free_port, real_time, recall, wait_for, workdir, write  # noqa: E402
from cpuquota import CPUQuota, Unavailable  # noqa: E402

sys.path.insert(0, HERE)
from frames import WORDS, frame_text  # noqa: E402

suite = Suite("netcam")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-gi and python3-pil
FPS = 10
RECALL_TOLERANCE = 0.05
RECONNECT_SECONDS = 10
CPU_RATIO = 1.2
FOUR_K_FPS = 5  # what this machine's x264 encodes at 3840x2160 beside the rest
LATENCY_SECONDS = float(os.environ.get("NETCAM_LATENCY_SECONDS", "40"))
READER_SECONDS = 0.02  # the stream's reader: wake, read, decode a 640x480 frame (2-8 ms measured)
COMMON = ["--layout", "tesseract", "--log-level", "info"]
COUNTER = re.compile(r"FRAME\s*0*(\d+)")
PASSWORD = "Sup3rS3cretPw"
USER = "gateuser"
WORK = workdir("lector-netcam-")


def lectord():
    return os.environ.get("LECTORD", LECTORD)


class Server(Process):
    """A test camera server (rtsp_server.py or http_camera.py) on a port of its own; its
    frame log ("NUMBER MONOTONIC") in `frames_log`."""

    def __init__(self, kind, *extra, port=None, fps=FPS, priority=0):
        self.kind = kind
        self.fps = fps
        self.port = port or free_port()
        self.frames_log = os.path.join(WORK, "%s-%d-frames.log" % (kind, self.port))
        script = "rtsp_server.py" if kind == "rtsp" else "http_camera.py"
        nice = ["nice", "-n", str(priority)] if priority else []
        super().__init__(nice + [SYSTEM_PYTHON, os.path.join(HERE, script), "--port", str(self.port), "--fps", str(fps),
                                 "--log", self.frames_log] + list(extra), os.path.join(WORK, "%s-%d.log" % (kind, self.port)))

    def start(self):
        super().start()
        self.wait_port(self.port, self.kind + " server")
        return self

    def url(self, path=None, credentials=""):
        if self.kind == "rtsp":
            return "rtsp://%s127.0.0.1:%d/cam" % (credentials, self.port)
        scheme = "https" if "--tls" in self.args else "http"
        return "%s://%s127.0.0.1:%d/%s" % (scheme, credentials, self.port, path or "stream")

    def sent_times(self):
        """When the server sent each frame: {number: monotonic seconds} (the last time, after a restart)."""
        times = {}
        with open(self.frames_log) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    times[int(parts[0])] = float(parts[1])
        return times


class Reader(Process):
    """lectord --stdout on `args`, with a socket; every stdout message kept with its
    arrival time (time.monotonic())."""

    def __init__(self, *args, name="lectord", quota=None):
        self.dir = workdir("lector-netcam-d-")
        self.path = os.path.join(self.dir, "lector.sock")
        super().__init__([lectord(), "--socket", self.path, "--stdout"] + COMMON + list(args),
                         os.path.join(self.dir, name + ".log"), stdout=subprocess.PIPE)
        self.messages = []
        self.quota = quota

    def start(self):
        self.log = open(self.log_path, "a")
        popen = self.quota.popen if self.quota else subprocess.Popen
        self.proc = popen(self.args, stdout=subprocess.PIPE, stderr=self.log, env=ENV, text=True, bufsize=1)
        Process.started.append(self)
        threading.Thread(target=self._read, daemon=True).start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.messages.append((time.monotonic(), json.loads(line)))
            except ValueError:
                pass

    def texts(self, since=0):
        return [(t, m) for t, m in self.messages if m.get("class") == "TEXT" and t >= since]

    def request(self, name):
        with Client(self.path) as client:
            return client.request({"class": name})


def mean_recall(texts):
    return sum(recall([w.lower() for w in WORDS], m["text"]) for _, m in texts) / max(1, len(texts))


def replay_recall(directory, seconds=20):
    """The words' recall of --replay of `directory` at the cameras' rate, looping."""
    with Reader("--replay", directory, "--fps", str(FPS), "--loop", name="replay") as reader:
        time.sleep(seconds)
        return mean_recall(reader.texts())


# ---------------------------------------------------------------- configuration

@suite.test
def refused_at_configuration():
    bad = {
        "ftp://camera/stream": "must start with",
        "rtsp://": "names no host",
        "rtsp://%s:%s@cam.local:99999/x" % (USER, PASSWORD): "port",
        "http://cam.local/a path": "space",
        "camera.local:554": "must be a URL",
    }
    for url, reason in bad.items():
        status, out, err = run_lectord("--url", url)
        suite.check("--url %r refused at configuration" % url.replace(PASSWORD, "PW"),
                    status == 2 and reason in err and PASSWORD not in err + out, "status %s: %s" % (status, err.strip()[-300:]))
    password_file = write(os.path.join(WORK, "password"), PASSWORD + "\n")
    status, out, err = run_lectord("--url", "rtsp://127.0.0.1:1/x", "--url-password-file", password_file)
    suite.check("url_password_file without a user in the URL refused", status != 0 and "names no user" in err and PASSWORD not in err,
                err.strip()[-300:])
    config = write(os.path.join(WORK, "bad.conf"), "[camera gate]\nurl = rtsp://%s:%s@gate:0/x\n" % (USER, PASSWORD))
    status, out, err = run_lectord("--config", config)
    suite.check("a bad url = in [camera] refused, credentials not shown", status == 2 and "port" in err and PASSWORD not in err + out,
                err.strip()[-300:])
    config = write(os.path.join(WORK, "good.conf"),
                   "[camera gate]\nurl = rtsp://%s@127.0.0.1:1/x\nrtsp_transport = udp\nurl_password_file = %s\n" % (USER, password_file))
    status, out, err = run_lectord("--config", config, "--check-config")
    suite.check("--check-config describes the network camera without credentials",
                status == 0 and "network camera rtsp://***@127.0.0.1:1/x" in out and "udp" in out and PASSWORD not in out + err
                and USER not in out + err, (out + err).strip()[-400:])


def run_lectord(*args):
    result = subprocess.run([lectord(), "--socket", os.path.join(WORK, "never.sock")] + list(args), capture_output=True, text=True,
                            timeout=60, env=ENV)
    return result.returncode, result.stdout, result.stderr


# ---------------------------------------------------------------- reading

def rtsp_frames_dir(count=40):
    """The frames the RTSP server encodes (the first `count`), as PNG files."""
    directory = os.path.join(WORK, "rtsp-frames")
    if not os.path.isdir(directory):
        os.makedirs(directory)
        subprocess.run([SYSTEM_PYTHON, os.path.join(HERE, "frames.py"), directory, str(count), "5"], check=True, env=ENV)
    return directory


REPLAYED = {}  # frames folder -> the words' recall of its replay (the RTSP frames are the same for both codecs)


def reads_like_replay(kind, path=None, codec="h264"):
    frames_dir = os.path.join(WORK, "%s-served" % kind)
    os.makedirs(frames_dir, exist_ok=True)
    extra = ["--codec", codec] if kind == "rtsp" else ["--frames-dir", frames_dir]
    with Server("rtsp" if kind == "rtsp" else "http", *extra) as server:
        args = ["--url", server.url(path)] + (["--fps", "2"] if kind == "snapshot" else [])
        with Reader(*args, name=kind + codec) as reader:
            wait_for(lambda: reader.texts(), 60, "a TEXT from the %s camera" % kind)
            time.sleep(20 if codec == "h264" else 10)
            live = reader.texts()
            stream = mean_recall(live)
            stream_format = reader.request("DEVICES")["devices"][0].get("format", "")
    if kind == "rtsp":
        frames_dir = rtsp_frames_dir()
    else:  # the JPEGs served, at most 40 of them spread over the run
        names = sorted(os.listdir(frames_dir))
        keep = set(names[::max(1, len(names) // 40)])
        for name in names:
            if name not in keep:
                os.remove(os.path.join(frames_dir, name))
    if frames_dir not in REPLAYED:
        REPLAYED[frames_dir] = replay_recall(frames_dir)
    replayed = REPLAYED[frames_dir]
    label = kind if codec == "h264" else "%s %s (%s)" % (kind, codec, stream_format)
    suite.check("%s: the words read (%.3f over %d TEXTs) within %.2f of the same frames replayed (%.3f)"
                % (label, stream, len(live), RECALL_TOLERANCE, replayed), len(live) > 0 and abs(stream - replayed) <= RECALL_TOLERANCE
                and stream > 0.5 and (codec == "h264" or stream_format == "HEVC"), "")


@suite.test
def rtsp_reads_like_replay():
    reads_like_replay("rtsp")


@suite.test
def rtsp_h265_reads_like_replay():
    reads_like_replay("rtsp", codec="h265")


@suite.test
def mjpeg_reads_like_replay():
    reads_like_replay("mjpeg", "stream")


@suite.test
def snapshot_reads_like_replay():
    reads_like_replay("snapshot", "snapshot")


@suite.test
def https_mjpeg_reads():
    """An HTTPS camera (a self-signed certificate, as cameras have): the words are read."""
    pem = os.path.join(WORK, "camera.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=camera.local",
                    "-keyout", pem, "-out", pem + ".crt"], check=True, capture_output=True, timeout=60)
    with open(pem, "a") as key, open(pem + ".crt") as certificate:
        key.write(certificate.read())
    with Server("http", "--tls", pem) as server:
        with Reader("--url", server.url("stream"), name="https") as reader:
            wait_for(lambda: reader.texts(), 60, "a TEXT from the HTTPS camera")
            time.sleep(5)
            texts = reader.texts()
    suite.check("https: an MJPEG stream over TLS is read (%d TEXTs, recall %.3f)" % (len(texts), mean_recall(texts)),
                len(texts) > 0 and mean_recall(texts) > 0.9, "")


# ---------------------------------------------------------------- latency

def lag_rows(server, messages, quota=None):
    """(TEXT's seq, frames behind, bound in frames, how late the frame reached lectord) per
    TEXT whose counter was read, from `messages` (TEXT and FRAME by seq, as WATCH sends
    them). Behind: how long before lectord published the TEXT (its FRAME's capture time
    plus latency_ms, on lectord's own clock: a test reader that wakes late changes
    nothing) the server's encoder put out the frame read, in frame intervals. Bound: one
    recognition (lectord's whole time on the frame: its FRAME's recognize_ms plus
    overhead_ms, the luma and the publishing a quota can stop too) plus two frame
    intervals, the server's own two after the frame (H.264 over RTSP: FFmpeg's parser
    hands a picture out when the next one begins; the newest frame then waits at most
    until the one after replaces it) and READER_SECONDS for the stream's reader to wake,
    read and decode. The allowance is stretched by the load (lectortest.real_time), and
    in a CPU quota by the time the quota stops the whole group once its share of a period
    is spent (67 ms a period at a third of a core), unless the stream's reader and the
    capture loop were moved out of the quota (`quota` None): they then stop as on a
    really slower core, not for the rest of a period."""
    offset = time.time() - time.monotonic()  # CLOCK_REALTIME - CLOCK_MONOTONIC, as lectord's
    sent = server.sent_times()
    stops = quota.stopped_seconds if quota else 0
    rows = []
    for seq, text in sorted(messages["TEXT"].items()):
        frame = messages["FRAME"].get(seq)
        match = COUNTER.search(text["text"].replace("O", "0"))
        number = int(match.group(1)) if match else -1
        if frame is None or number not in sent or number + 2 not in sent:
            continue  # not read, misread, or read at the run's very end
        sent_at = sent[number] + offset
        captured = datetime.datetime.fromisoformat(frame["time"].replace("Z", "+00:00")).timestamp()
        published = captured + frame["latency_ms"] / 1000
        if sent_at > captured:
            continue  # misread as a later frame's number
        recognition = (frame["recognize_ms"] + frame["overhead_ms"]) / 1000
        allowance = real_time(sent[number + 2] - sent[number] + READER_SECONDS) + stops
        rows.append((seq, round((published - sent_at) * server.fps, 2), round((recognition + allowance) * server.fps, 2),
                     round((captured - sent_at) * server.fps, 1)))
    return rows


def watch_texts_and_frames(path, messages):
    """Collects TEXT and FRAME messages of lectord's socket at `path` into `messages`
    ({"TEXT": {seq: message}, "FRAME": {...}}) on a thread, until the socket closes."""
    client = Client(path, timeout=3600)
    client.send({"class": "WATCH", "enable": True, "json": True, "frame": True})

    def collect():
        while True:
            try:
                message = client.read()
            except (OSError, EOFError, ValueError):
                return
            if message.get("class") in messages:
                messages[message["class"]][message["seq"]] = message
    threading.Thread(target=collect, daemon=True).start()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def quota_or_skip(percent=33):
    """A CPU quota of `percent` % of one core, or SkipTest where none can be made."""
    try:
        return CPUQuota(percent)
    except Unavailable as error:
        raise SkipTest("no writable cgroup cpu controller: %s" % error)


@suite.test
def latency_third_of_a_core():
    # The server stands for a camera, which has a processor of its own: it runs ahead of
    # lectord and of the load (nice -10), so that the frame number it logs is the one
    # it sends, not one its own process got round to late on this shared machine.
    with quota_or_skip() as quota, Server("rtsp", priority=-10) as server:
        # The default layout (the text-line detector, the neural line recognizer when
        # installed): recognitions of several hundred ms at a third of a core.
        with Reader("--url", server.url(), "--layout", "auto", "--deadline-ms", "10000", "--stack", "off", name="latency",
                    quota=quota) as reader:
            wait_for(lambda: reader.texts(), 90, "a TEXT at a third of a core")
            # The recognizer is what is slowed: the stream's reader thread and the capture
            # loop (a few ms a frame) leave the quota where cgroup v1 allows it, so the
            # quota's stops do not delay them as no scheduler of a really slow core would.
            released = sum(quota.release_threads(reader.proc.pid, name) for name in ("lector-netcam", "lector-capture"))
            messages = {"TEXT": {}, "FRAME": {}}
            watch_texts_and_frames(reader.path, messages)
            start = time.monotonic()
            memory = [rss_kb(reader.proc.pid)]
            while time.monotonic() - start < LATENCY_SECONDS:
                time.sleep(min(10, LATENCY_SECONDS / 4))
                memory.append(rss_kb(reader.proc.pid))
            rows = lag_rows(server, messages, quota=None if released else quota)
    over = [row for row in rows if row[1] > row[2]]
    worst = max(rows, key=lambda row: row[1] - row[2]) if rows else (0, "-", "-", "-")
    suite.check("latency: the frame number read never more than one recognition + 2 frame intervals behind the server's "
                "(%d TEXTs with the counter read over %.0f s, %d over; the worst: %s frames behind, bound %s, "
                "of which it reached lectord %s late; load %.1f; the stream's reader %s)"
                % (len(rows), LATENCY_SECONDS, len(over), worst[1], worst[2], worst[3], os.getloadavg()[0],
                   "and capture loop outside the quota" if released else "in the quota, its stops allowed for"),
                len(rows) >= 5 and not over, "over (seq, behind, bound, late to lectord): %s" % over[:10])
    third = max(1, len(rows) // 3)
    first = sum(r[1] for r in rows[:third]) / third
    last = sum(r[1] for r in rows[-third:]) / third
    suite.check("latency: no backlog grows (mean lag %.1f frames in the first third, %.1f in the last)" % (first, last),
                last <= first + 2, "")
    growth = (memory[-1] - memory[1]) / 1024 if len(memory) > 1 else 0
    suite.check("latency: memory flat (RSS %s MB, growth %.1f MB after the first sample)"
                % ([round(m / 1024) for m in memory], growth), growth < 20, "")


# ---------------------------------------------------------------- faults

def streaming_lines(reader):
    return reader.logtext().count("camera streaming")


def restart(kind, path=None, times=1):
    server = Server("rtsp" if kind == "rtsp" else "http").start()
    args = ["--url", server.url(path), "--stall-timeout-ms", "2000"] + (["--fps", "2"] if kind == "snapshot" else [])
    with Reader(*args, name="restart-" + kind) as reader:
        wait_for(lambda: reader.texts(), 60, "a TEXT from the %s camera" % kind)
        delays = []
        for _ in range(times):
            seen = streaming_lines(reader)
            server.stop(signal.SIGKILL)
            time.sleep(3)
            server = Server(server.kind, port=server.port).start()
            back = time.monotonic()
            wait_for(lambda: streaming_lines(reader) > seen or not reader.alive(), 30, "the %s camera streaming again" % kind)
            delays.append(time.monotonic() - back)
        # Paused: the server stops sending; lectord reports the stall and comes back.
        seen = streaming_lines(reader)
        server.send(signal.SIGSTOP)
        time.sleep(5)
        server.send(signal.SIGCONT)
        wait_for(lambda: streaming_lines(reader) > seen or not reader.alive(), 30, "the %s camera back after the pause" % kind)
        texts_before = len(reader.texts())
        wait_for(lambda: len(reader.texts()) > texts_before, 30, "a TEXT after the pause")
        alive = reader.alive()
        log = reader.logtext()
    server.stop()
    lost = [line for line in log.splitlines() if "camera lost" in line or "camera not available" in line]
    suite.check("%s: killed and restarted %d times, streaming again within %d s each (%s s), lectord never exited"
                % (kind, times, RECONNECT_SECONDS, [round(d, 1) for d in delays]),
                alive and all(d <= RECONNECT_SECONDS for d in delays), "")
    # Each outage: "closed the stream" (or a stall) then "connection refused": each cause once.
    suite.check("%s: each cause logged once per outage (%d lines for %d outages)" % (kind, len(lost), times + 1),
                len(lost) <= 2 * (times + 1) and len(lost) >= times + 1, "\n".join(lost))


@suite.test
def rtsp_restarts():
    restart("rtsp", times=3)


@suite.test
def mjpeg_restarts():
    restart("mjpeg", "stream")


@suite.test
def snapshot_restarts():
    restart("snapshot", "snapshot")


def wrong_password(kind):
    server = Server("rtsp" if kind == "rtsp" else "http", "--user", USER, "--password", PASSWORD).start()
    try:
        with Reader("--url", server.url(credentials="%s:%s@" % (USER, "wrong" + PASSWORD)), name="wrong-" + kind) as reader:
            time.sleep(8)
            status = json.dumps(reader.request("STATUS"))
            devices = json.dumps(reader.request("DEVICES"))
            log = reader.logtext()
        lines = [line for line in log.splitlines() if "401" in line]
        errors = [line for line in lines if line.startswith("error:")]
        suite.check("%s: a wrong password is one clear error line over 8 s of retries (%d lines name it, none twice)"
                    % (kind, len(lines)), len(errors) == 1 and "password" in errors[0] and len(set(lines)) == len(lines),
                    "\n".join(lines) or log[-500:])
        suite.check("%s: STATUS says why (401)" % kind, "401" in status, status[:500])
        password_file = write(os.path.join(WORK, "password-" + kind), PASSWORD + "\n")
        # Issue 45: a cheap camera's query credentials (videostream.cgi?loginuse=...&loginpas=...) hidden too.
        query = None if kind == "rtsp" else "stream?loginuse=%s&loginpas=%s&passcode=%s&resolution=32" % (USER, PASSWORD, PASSWORD)
        with Reader("--url", server.url(query, credentials=USER + "@"), "--url-password-file", password_file,
                    name="right-" + kind) as reader:
            wait_for(lambda: reader.texts(), 60, "a TEXT with the password from url_password_file")
            status2 = json.dumps(reader.request("STATUS"))
            devices2 = json.dumps(reader.request("DEVICES"))
            page = web_page(reader.path)
            log2 = reader.logtext()
            out = json.dumps([m for _, m in reader.messages])
        shown = log + status + devices + log2 + status2 + devices2 + out + page
        suite.check("%s: url_password_file's password streams; no credential in any log line, STATUS, DEVICES, TEXT or "
                    "the web page (its devices and status, %d bytes)" % (kind, len(page)),
                    PASSWORD not in shown and USER not in shown and "***@127.0.0.1" in page, "")
    finally:
        server.stop()


def web_page(socket_path):
    """What lector-http (on a loopback port, --no-auth) serves of lectord on `socket_path`:
    the page and its devices and status, as text."""
    port = free_port()
    bridge = Process([LECTOR_HTTP, "--socket", socket_path, "--listen", "127.0.0.1:%d" % port, "--no-auth"],
                     os.path.join(WORK, "lector-http-%d.log" % port)).start()
    try:
        bridge.wait_port(port, "lector-http")
        texts = []
        for path in ("/", "/api/devices", "/api/status"):
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=15) as response:
                texts.append(response.read().decode(errors="replace"))
        return "".join(texts)
    finally:
        bridge.stop()


@suite.test
def rtsp_wrong_password():
    wrong_password("rtsp")


@suite.test
def mjpeg_wrong_password():
    wrong_password("mjpeg")


# ---------------------------------------------------------------- cost

def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_frame(reader, seconds=20):
    """CPU seconds of lectord per recognized frame over `seconds` after its first TEXT."""
    wait_for(lambda: reader.texts(), 60, "a first TEXT")
    time.sleep(2)
    cpu0, texts0 = cpu_seconds(reader.proc.pid), len(reader.texts())
    time.sleep(seconds)
    cpu1, texts1 = cpu_seconds(reader.proc.pid), len(reader.texts())
    return (cpu1 - cpu0) / max(1, texts1 - texts0), texts1 - texts0


@suite.test
def mjpeg_cpu_per_frame():
    frames_dir = os.path.join(WORK, "cpu-served")
    os.makedirs(frames_dir, exist_ok=True)
    with Server("http", "--frames-dir", frames_dir) as server:
        with Reader("--url", server.url("stream"), "--gate", "off", name="cpu-network") as reader:
            network, count = cpu_per_frame(reader)
    with Reader("--replay", frames_dir, "--fps", str(FPS), "--loop", "--gate", "off", name="cpu-replay") as reader:
        replay, replay_count = cpu_per_frame(reader)
    ratio = network / max(replay, 1e-9)
    suite.check("MJPEG CPU per frame: network %.1f ms (%d frames), --replay %.1f ms (%d frames): ratio %.2f <= %.1f (load %.1f)"
                % (network * 1000, count, replay * 1000, replay_count, ratio, CPU_RATIO, os.getloadavg()[0]),
                count > 0 and replay_count > 0 and ratio <= CPU_RATIO, "")


@suite.test
def rtsp_behind_decodes_key_frames():
    with quota_or_skip(10) as quota, Server("rtsp", "--size", "1920x1080", "--keyint", "25", "--noise", "80",
                                               "--bitrate", "20000", fps=25) as server:
        with Reader("--url", server.url(), "--stack", "off", name="behind", quota=quota) as reader:
            wait_for(lambda: reader.texts(), 120, "a TEXT from the noisy stream at a tenth of a core")
            messages = {"TEXT": {}, "FRAME": {}}
            watch_texts_and_frames(reader.path, messages)
            time.sleep(30)
            rows = lag_rows(server, messages, quota=quota)
            log = reader.logtext()
    notes = [line for line in log.splitlines() if "key frames only" in line]
    suite.check("behind: decoding key frames only, said once (%d lines)" % len(notes), len(notes) == 1, log[-600:])
    third = max(1, len(rows) // 3)
    first = sum(r[1] for r in rows[:third]) / third
    last = sum(r[1] for r in rows[-third:]) / third
    suite.check("behind: no backlog grows (%d rows, lags %s frames; mean %.0f in the first third, %.0f in the last)"
                % (len(rows), [r[1] for r in rows], first, last),
                len(rows) >= 3 and max(r[1] for r in rows) < 250 and last <= first + 50, "")


@suite.test
def rtsp_4k_third_of_a_core():
    with quota_or_skip() as quota, Server("rtsp", "--size", "3840x2160", "--keyint", "10", fps=FOUR_K_FPS) as server:
        with Reader("--url", server.url(), "--stack", "off", name="4k", quota=quota) as reader:
            wait_for(lambda: reader.texts(), 120, "a TEXT from the 4K stream at a third of a core")
            start = time.monotonic()
            messages = {"TEXT": {}, "FRAME": {}}
            watch_texts_and_frames(reader.path, messages)
            time.sleep(30)
            rows = lag_rows(server, messages, quota=quota)
            texts = reader.texts(start)
            log = reader.logtext()
    best = max((recall([w.lower() for w in WORDS], m["text"]) for _, m in texts), default=0)
    suite.check("4K H.264 at a third of a core: %d TEXTs in 30 s, best recall %.2f" % (len(texts), best),
                len(texts) >= 2 and best >= 0.8, log[-800:])
    # Behind, it decodes key frames only (every 10 frames): one key frame interval more.
    # Frame numbers are as the server sent them (logged out of its encoder).
    over = [(lag, bound) for _, lag, bound, _ in rows if lag > bound + 10]
    suite.check("4K: the frame number read keeps up (%d rows, lags %s)" % (len(rows), [r[1] for r in rows][:12]),
                len(rows) >= 1 and not over, "over: %s" % over[:10])


# ---------------------------------------------------------------- issue 47: idle and busy cameras

STILL_SIZE, STILL_FPS, STILL_KEYINT = "1920x1080", 25, 50  # 2 s key frames
STILL_SERVER = ("--size", STILL_SIZE, "--keyint", str(STILL_KEYINT), "--noise", "40", "--bitrate", "8000")
CHANGE_SECONDS = 2.5  # from a scene change to its first TEXT (one key frame interval more than before)
MEASURE_SECONDS = 30
STILL_RATIO = 0.25  # issue 47: a still camera's CPU against FFmpeg decoding its stream alone


def thread_cpu(pid):
    """CPU seconds of each of a process's threads, summed by name ("lector-netcam": the
    stream's reader, decoding; "lector-capture": hand-over and stacking;
    "lector-recog-0": gate and recognition)."""
    totals = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        totals[name] = totals.get(name, 0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return totals


class Decoder(Process):
    """FFmpeg decoding the stream alone, one thread: the floor a decoder that sees every frame costs."""

    def __init__(self, url):
        super().__init__(["ffmpeg", "-nostdin", "-loglevel", "quiet", "-threads", "1", "-rtsp_transport", "tcp", "-i", url,
                          "-f", "null", "-"], os.path.join(WORK, "ffmpeg-%d.log" % free_port()))


def measured(reader, decoder, seconds):
    """lectord's CPU by thread and FFmpeg's over the same `seconds`."""
    before, ffmpeg0 = thread_cpu(reader.proc.pid), cpu_seconds(decoder.proc.pid)
    time.sleep(seconds)
    after, ffmpeg1 = thread_cpu(reader.proc.pid), cpu_seconds(decoder.proc.pid)
    return {name: after[name] - before.get(name, 0) for name in after}, ffmpeg1 - ffmpeg0


def ffmpeg_or_skip():
    if subprocess.call(["sh", "-c", "command -v ffmpeg"], stdout=subprocess.DEVNULL) != 0:
        raise SkipTest("no ffmpeg (scripts/setup installs it)")


@suite.test
def rtsp_still_decodes_key_frames():
    """A still 1080p25 camera with 2 s key frames: lectord decodes key frames only and
    costs at most STILL_RATIO of FFmpeg decoding the stream alone, everything counted (the
    gate's 10 s refresh reads the still scene only when its pixels changed since the frame
    read: a refresh's read was most of a still camera's cost besides the stream)."""
    ffmpeg_or_skip()
    with Server("rtsp", *STILL_SERVER, "--hold", "100000", fps=STILL_FPS) as server, \
            Reader("--url", server.url(), name="still") as reader, Decoder(server.url()) as decoder:
        wait_for(lambda: reader.texts(), 120, "a first TEXT from the still camera")
        time.sleep(12)  # read, stacked, settled
        threads, ffmpeg = measured(reader, decoder, MEASURE_SECONDS)
    total = sum(threads.values())
    reading = sum(v for k, v in threads.items() if k.startswith("lector-recog"))
    ratio, without = total / max(ffmpeg, 1e-9), (total - reading) / max(ffmpeg, 1e-9)
    # Decoding every frame, lectord cost 1.5x FFmpeg (issue 47); key frames only and a
    # refresh read at each 10 s, 0.25-0.34x; refreshes that compare before they read,
    # 0.16-0.20x (docs/PERFORMANCE.md). Threads by name: the Tesseract engine's thread
    # can show as "lectord".
    suite.check("still 1080p25: lectord %.2f s CPU (%.2f s on the recognizer threads), FFmpeg decoding alone %.2f s in %d s: "
                "ratio %.2f <= %.2f (%.2f without the recognizer threads; load %.1f) %s"
                % (total, reading, ffmpeg, MEASURE_SECONDS, ratio, STILL_RATIO, without, os.getloadavg()[0],
                   {k: round(v, 2) for k, v in threads.items() if v >= 0.01}),
                ffmpeg > 0.3 and ratio <= STILL_RATIO, "")


@suite.test
def rtsp_changes_read_within_a_key_frame():
    """The same camera whose scene changes every 6 s: each change's first TEXT within
    CHANGE_SECONDS of the server sending it; lectord's work besides reading (decoding,
    hand-over, stacking) per frame against FFmpeg's decoding of every frame."""
    ffmpeg_or_skip()
    hold = 5
    with Server("rtsp", *STILL_SERVER, "--hold", str(hold), fps=STILL_FPS) as server, \
            Reader("--url", server.url(), "--hwdecode", "auto", name="changes") as reader, Decoder(server.url()) as decoder:
        wait_for(lambda: reader.texts(), 120, "a first TEXT from the changing camera")
        threads, ffmpeg = measured(reader, decoder, MEASURE_SECONDS)
        time.sleep(CHANGE_SECONDS + 1)
        sent, texts = server.sent_times(), reader.texts()
        log = reader.logtext()
    # No V4L2 decoder or VAAPI device here: software, said once.
    fallback = [line for line in log.splitlines() if "hardware decoding unavailable" in line]
    suite.check("hwdecode auto: falls back to software, one log line (%s)" % fallback, len(fallback) == 1, log[-600:])
    frames = round(hold * STILL_FPS)
    late = []
    for scene in sorted({n // frames for n in sent})[1:-1]:
        start = sent.get(scene * frames)
        if start is None or start > texts[-1][0] - CHANGE_SECONDS:
            continue
        first = min((t for t, m in texts if t >= start and frame_text(scene) in m["text"]), default=None)
        # A loaded machine's server sends fewer than 25 frames a second: its key frames
        # (every STILL_KEYINT frames) then come further apart than 2 s.
        keyint = sent.get(scene * frames + STILL_KEYINT, start + 2) - start
        if texts[0][0] < start:  # lectord was reading before the scene began
            late.append((scene, None if first is None else round(first - start, 2), round(max(CHANGE_SECONDS, keyint + 0.5), 2)))
    slow = [row for row in late if row[1] is None or row[1] > row[2]]
    suite.check("changes every %d s: each scene's first TEXT within %.1f s (or the server's key frame interval + 0.5 s) of "
                "its frame ((scene, lag, bound): %s)" % (hold, CHANGE_SECONDS, late),
                len(late) >= 2 and not slow, "slow: %s" % slow)
    # The stream's path: decoding (lector-netcam) and hand-over and stacking (lector-capture).
    # Threads without a name of their own (the main thread, writers) are shown apart.
    path = threads.get("lector-netcam", 0) + threads.get("lector-capture", 0)
    rest = sum(v for k, v in threads.items() if not k.startswith("lector-recog")) - path
    suite.check("changes every %d s: lectord's decoding, hand-over and stacking %.2f s CPU, FFmpeg decoding every frame %.2f s: "
                "ratio %.2f <= 1.15 (other threads besides reading %.2f s; load %.1f; by thread %s)"
                % (hold, path, ffmpeg, path / max(ffmpeg, 1e-9), rest, os.getloadavg()[0],
                   {k: round(v, 2) for k, v in threads.items() if v >= 0.01}),
                ffmpeg > 0.3 and path <= 1.15 * ffmpeg, "")


# ---------------------------------------------------------------- issue 45: a hostile camera

HOSTILE_SECONDS = 20
HOSTILE_RSS_MB = 100
HOSTILE_CPU_SECONDS = 6  # of HOSTILE_SECONDS (unbounded, 16-20 s: FFmpeg parsing the flood)


def peak_rss_kb(pid, seconds):
    peak, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        peak = max(peak, rss_kb(pid))
        time.sleep(0.1)
    return peak


@suite.test
def hostile_http_camera_bounded():
    """An MJPEG part declaring 2,000,000,000 bytes and a flood, a part without a boundary,
    a flood of headers: lectord's memory grows by HOSTILE_RSS_MB at most, its CPU stays
    low (the camera is backed off like a refused one), the cause is said; an ffconcat
    reply is said as a playlist."""
    for mode in ("huge-part", "no-boundary", "header-flood"):
        with Server("http", "--hostile", mode) as server, Reader("--url", server.url("stream"), name="hostile-" + mode) as reader:
            if mode != "header-flood":
                wait_for(lambda: reader.texts(), 60, "a TEXT of the camera's two good frames")
            else:
                time.sleep(3)  # lectord up, its recognizer ready
            base, cpu0 = rss_kb(reader.proc.pid), cpu_seconds(reader.proc.pid)
            peak = peak_rss_kb(reader.proc.pid, HOSTILE_SECONDS)
            cpu = cpu_seconds(reader.proc.pid) - cpu0
            log = reader.logtext()
        suite.check("hostile camera (%s): RSS %d MB -> peak %d MB (+%d <= %d), CPU %.1f s in %d s (<= %d), 'floods' said"
                    % (mode, base // 1024, peak // 1024, (peak - base) // 1024, HOSTILE_RSS_MB, cpu, HOSTILE_SECONDS,
                       HOSTILE_CPU_SECONDS),
                    peak - base <= HOSTILE_RSS_MB * 1024 and cpu <= HOSTILE_CPU_SECONDS and "floods" in log, log[-800:])
    with Server("http", "--hostile", "ffconcat") as server, Reader("--url", server.url("stream"), name="hostile-ffconcat") as reader:
        wait_for(lambda: "playlist" in reader.logtext(), 20, "the ffconcat reply said as a playlist")
        log = reader.logtext()
    suite.check("hostile camera (ffconcat): said as a playlist, not as a refused connection",
                "playlist" in log and "refused" not in log, log[-600:])


if __name__ == "__main__":
    from lectortest import stop_all  # noqa: E402
    sys.exit(suite.main(after_each=stop_all))
