#!/usr/bin/env python3
"""The Python client module (clients/python/lector) against a real lectord (see run)."""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from lectortest import ENV, ROOT, Daemon, SkipTest, Suite, serve_lines, workdir  # noqa: E402

CLIENT = os.path.join(ROOT, "clients/python")
sys.path.insert(0, CLIENT)
import lector  # noqa: E402

suite = Suite("python")
test = suite.test
check = suite.check


@test
def watch_yields_typed_text():
    with Daemon() as d:
        stream = lector.watch(socket=d.path)
        # The first page's heading, read whole: a loaded machine may publish partial reads
        # first (text.partial: the deadline came before every line).
        seen = []
        for text in stream:
            seen.append(text)
            if "LECTOR READS TEXT" in text.text and not text.partial or len(seen) >= 30:
                break
        check("watch: Text objects with the whole text (%d read, %d partial)" % (len(seen), sum(t.partial for t in seen)),
              all(isinstance(t, lector.Text) and t.device == "demo" for t in seen) and "LECTOR READS TEXT" in text.text,
              repr(seen)[:600])
        lines = text.lines
        check("watch: .lines are Lines, in reading order, joined they make .text",
              lines and all(isinstance(l, lector.Line) for l in lines)
              and [l.text for l in lines] == [t for t in text.text.split("\n") if t], [l.text for l in lines])
        words = [w for l in lines for w in l.words]
        check("watch: words with boxes inside the frame and confidences 0-1",
              words and all(isinstance(w.box, lector.Box) and 0 <= w.box.x < text.width and 0 < w.box.width
                            and 0 <= w.confidence <= 1 for w in words), repr(words[:2]))
        check("watch: lines carry their track and language", all(l.track and l.language == "eng" for l in lines),
              repr(lines[:1]))
        stream.close()
        settled = next(t for t in lector.tracks(device="demo", socket=d.path) if t.event == "new")
        check("tracks: a Track that settled", isinstance(settled, lector.Track) and settled.text and settled.box.width > 0,
              repr(settled))
        with lector.Client(d.path) as client:
            check("Client: VERSION on connect, DEVICES typed as dicts", client.version["proto_major"] == 1
                  and client.devices()[0]["path"] == "demo", client.version)
            jpeg = client.snapshot("demo", max_width=64)
            check("Client: a snapshot is a JPEG", jpeg[:2] == b"\xff\xd8" and jpeg[-2:] == b"\xff\xd9", jpeg[:4])
            try:
                next(client.stream(device="nope"))
                check("an unknown device: ErrorReply", False)
            except lector.ErrorReply as error:
                check("an unknown device: ErrorReply with lectord's message", "unknown device" in str(error), str(error))


@test
def clean_errors_and_socket_discovery():
    missing = os.path.join(workdir("lector-python-"), "none.sock")
    try:
        next(lector.watch(socket=missing))
        check("lectord not running: NotRunning", False)
    except lector.NotRunning as error:
        check("lectord not running: NotRunning naming the socket and how to start lectord",
              error.path == missing and missing in str(error) and "lectord is not running" in str(error)
              and isinstance(error, lector.LectorError), str(error))
    cases = [
        ({"LECTOR_SOCKET": "/x/y.sock", "XDG_RUNTIME_DIR": "/run/user/5"}, 1000, "/x/y.sock"),
        ({"RUNTIME_DIRECTORY": "/run/a:/run/b"}, 1000, "/run/a/lector.sock"),
        ({"XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/run/user/1000/lector.sock"),
        ({}, 1000, "/tmp/lector-1000/lector.sock"),
        ({"XDG_RUNTIME_DIR": "/run/user/0"}, 0, "/run/lector/lector.sock"),
    ]
    system = os.path.exists(lector.sockets.SYSTEM_SOCKET)
    for environ, uid, expected in cases:
        got = lector.default_socket_path(environ, uid)
        if system and "LECTOR_SOCKET" not in environ:
            expected = lector.sockets.SYSTEM_SOCKET
        check("socket path %r uid %d: %s" % (environ, uid, expected), got == expected, got)
    with Daemon() as d:
        # The default path through LECTOR_SOCKET, as `lector` finds it.
        env = dict(ENV, LECTOR_SOCKET=d.path, PYTHONPATH=CLIENT)
        out = subprocess.run([sys.executable, "-c", "import lector; t = next(lector.watch()); print(t.device, len(t.lines))"],
                             capture_output=True, text=True, timeout=60, env=env)
        check("LECTOR_SOCKET finds lectord", out.returncode == 0 and out.stdout.startswith("demo "), out.stdout + out.stderr)
        d.stop()
        env = dict(env, LECTOR_SOCKET=d.path)
        out = subprocess.run([sys.executable, "-c", "import lector; next(lector.watch())"], capture_output=True, text=True,
                             timeout=60, env=env)
        check("a stopped lectord: one clear line, no socket trace", out.returncode == 1
              and "lector.errors.NotRunning: lectord is not running" in out.stderr and "socket.py" not in out.stderr,
              out.stderr[-600:])


# Lines a hostile or broken server could send after VERSION (issue 39): each must raise
# lector.LectorError from read(), stream() and request(), never another exception.
HOSTILE_LINES = [
    ("a 100,000-deep array", b"[" * 100_000 + b"]" * 100_000),
    ("a 100,000-deep object in a TEXT", b'{"class":"TEXT","device":"d","text":"t","x":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"}"),
    ("blocks a string", b'{"class":"TEXT","device":"d","text":"t","blocks":"str"}'),
    ("blocks a list of numbers", b'{"class":"TEXT","device":"d","text":"t","blocks":[5]}'),
    ("lines an object", b'{"class":"TEXT","device":"d","text":"t","blocks":[{"text":"b","box":{"x":0,"y":0,"width":1,"height":1},"lines":{}}]}'),
    ("groups a number", b'{"class":"MATCH","device":"d","rule":"r","text":"t","groups":5}'),
    ("groups of numbers", b'{"class":"MATCH","device":"d","rule":"r","text":"t","groups":[1,2]}'),
    ("known a string", b'{"class":"MATCH","device":"d","rule":"r","text":"t","known":"AB123"}'),
    ("known without its text", b'{"class":"MATCH","device":"d","rule":"r","text":"t","known":{"distance":0}}'),
    ("evidence a list", b'{"class":"MATCH","device":"d","rule":"r","text":"t","evidence":["a","b"]}'),
    ("corrections a string", b'{"class":"MATCH","device":"d","rule":"r","text":"t","corrections":"1"}'),
    ("a box of 1e400", b'{"class":"TRACK","device":"d","id":"1","event":"new","text":"t","box":{"x":1e400,"y":0,"width":1,"height":1}}'),
    ("seq NaN", b'{"class":"TEXT","device":"d","text":"t","seq":"NaN"}'),
    ("seq a list", b'{"class":"TEXT","device":"d","text":"t","seq":[1]}'),
    ("corners of one number", b'{"class":"TEXT","device":"d","text":"t","blocks":[{"text":"b","box":{"x":0,"y":0,"width":1,"height":1},'
                              b'"lines":[{"text":"l","box":{"x":0,"y":0,"width":1,"height":1},"corners":[[1]]}]}]}'),
    ("orientation a number", b'{"class":"TEXT","device":"d","text":"t","orientation":5}'),
    ("confidence a string", b'{"class":"TRACK","device":"d","id":"1","event":"new","text":"t","box":{"x":0,"y":0,"width":1,"height":1},"confidence":"hi"}'),
    ("class a list", b'{"class":["TEXT"]}'),
    ("not JSON", b'{"class":"TEXT",'),
    ("not UTF-8", b'{"class":"TEXT","device":"\xff\xfe","text":"t"}'),
    ("a top-level number", b"5"),
]


@test
def hostile_lines_raise_lector_error():
    folder = workdir("lector-python-hostile-")
    leaked = []
    for index, (name, line) in enumerate(HOSTILE_LINES):
        for way in ("read", "stream"):
            path = os.path.join(folder, "%d-%s.sock" % (index, way))
            thread = serve_lines(path, [line])
            try:
                with lector.Client(socket=path, timeout=5) as client:
                    if way == "read":
                        client.read()
                    else:
                        # stream() sends its WATCH first; the hostile line is its reply.
                        next(client.stream())
                leaked.append((name, way, "no exception"))
            except lector.LectorError:
                pass
            except BaseException as error:  # noqa: BLE001 - what the check is about
                leaked.append((name, way, "%s: %s" % (type(error).__name__, str(error)[:80])))
            thread.join()
    check("%d hostile lines, read and streamed: every one raises lector.LectorError" % len(HOSTILE_LINES), not leaked, leaked)
    path = os.path.join(folder, "silent.sock")
    thread = serve_lines(path, [])
    try:
        with lector.Client(socket=path, timeout=5) as client:
            client.read(timeout=0.5)
        outcome = "no exception"
    except lector.TimedOut as error:
        outcome = "TimedOut, a LectorError and a TimeoutError" if isinstance(error, TimeoutError) else "not a TimeoutError"
    except BaseException as error:  # noqa: BLE001
        outcome = type(error).__name__
    thread.join()
    check("no message within the timeout: %s" % outcome, outcome.startswith("TimedOut,"), outcome)


@test
def socket_of_another_user():
    """A user outside the socket's group: NoPermission, saying which group to join."""
    if os.getuid() != 0 or not shutil.which("setpriv") or not os.path.exists("/usr/bin/python3"):
        raise SkipTest("needs root and setpriv to run as another user")
    with Daemon() as d:
        os.chmod(os.path.dirname(d.path), 0o755)
        code = "import lector\ntry:\n lector.Client(%r)\nexcept lector.NoPermission as e:\n print(type(e).__name__, e)" % d.path
        out = subprocess.run(["setpriv", "--reuid=64997", "--regid=64997", "--clear-groups", "/usr/bin/env",
                              "PYTHONPATH=" + CLIENT, "/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=60)
        check("a socket this user may not open: NoPermission naming the group to join",
              out.stdout.startswith("NoPermission cannot connect to") and "join its group" in out.stdout,
              out.stdout + out.stderr[-500:])


def examples(path):
    with open(path) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


@test
def documented_examples_run():
    with Daemon() as d:
        env = dict(ENV, LECTOR_SOCKET=d.path, PYTHONPATH=CLIENT)
        for path in (os.path.join(CLIENT, "README.md"), os.path.join(ROOT, "docs/python.md")):
            found = examples(path)
            check("%s has examples" % os.path.relpath(path, ROOT), found, path)
            for index, code in enumerate(found):
                out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
                check("%s example %d runs and prints what lectord read" % (os.path.relpath(path, ROOT), index + 1),
                      out.returncode == 0 and "demo" in out.stdout, out.stdout[-400:] + out.stderr[-800:])


if __name__ == "__main__":
    sys.exit(suite.main())
