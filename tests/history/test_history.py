#!/usr/bin/env python3
"""The reading history and evidence through a real lectord (see tests/history/run).

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed"
(tests/lectortest.py).
"""
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import (ENV, LECTOR_HTTP, LECTORD, ROOT, Client, Daemon, Process, SkipTest, Suite, free_port,  # noqa: E402
                        lector, wait_for, workdir)

suite = Suite("history")
check = suite.check
WORK = workdir("lector-history-")
SEQUENCE = os.path.join(WORK, "sequence")
EVIDENCE_MB = 0.3
DATABASE = os.path.join(WORK, "history.sqlite")
EVIDENCE = os.path.join(WORK, "evidence")


def meter_config(path, loop=False):
    with open(path, "w") as f:
        f.write(f"""[camera meter]
replay = {SEQUENCE}/meter.mjpeg
fps = 5
loop = {'true' if loop else 'false'}

[zone meter/reading]
rect = 120,200,400,80
psm = 7
whitelist = digits

[rule meter/reading/any]
match = ^[0-9]{{6,8}}$
""")
    return path


def keep_args(database, evidence, megabytes=EVIDENCE_MB):
    return ["--history", database, "--evidence", evidence, "--evidence-max-mb", str(megabytes)]


def key(match):
    """What names one MATCH across the stream and the history."""
    return (match["device"], match.get("zone"), match["rule"], match["seq"], match["time"], match["text"])


def stdout_run(conf, database, evidence, kill_after=None, megabytes=EVIDENCE_MB):
    """lectord --stdout on the replay: its MATCHes and log. With `kill_after` N, SIGKILL
    right after the Nth MATCH line is read (the writer thread is then writing it)."""
    log_path = os.path.join(WORK, "stdout-run.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([LECTORD, "--config", conf, "--stdout"] + keep_args(database, evidence, megabytes),
                                stdout=subprocess.PIPE, stderr=log, env=ENV)
        matches = []
        for line in proc.stdout:
            if b'"class":"MATCH"' in line:
                matches.append(json.loads(line))
                if kill_after is not None and len(matches) >= kill_after:
                    proc.send_signal(signal.SIGKILL)
                    break
        proc.wait(timeout=240)
    return proc.returncode, matches, open(log_path).read()


def history(*args):
    status, out, err = lector("history", "--json", "--limit", "10000", *args)
    return status, [json.loads(line) for line in out.splitlines() if line.startswith("{")], err


def integrity(database):
    result = subprocess.run(["sqlite3", database, "PRAGMA integrity_check"], capture_output=True, text=True, timeout=60)
    return result.stdout.strip() or result.stderr.strip()


def decodes(path):
    """Whether libjpeg's djpeg decodes `path` to a whole image: (ok, width, height)."""
    result = subprocess.run(["djpeg", "-pnm", path], capture_output=True, timeout=30)
    if result.returncode != 0 or result.stderr:
        return False, 0, 0
    header = result.stdout.split(b"\n", 3)
    width, height = (int(v) for v in header[1].split())
    return True, width, height


@suite.test
def test_every_match_kept_across_restart_and_kill():
    """Three runs into one history (to the end, SIGKILL after a MATCH, restarted): every
    MATCH published is in `lector history --json`, the database is whole, evidence decodes."""
    conf = meter_config(os.path.join(WORK, "meter.conf"))
    database, evidence = DATABASE, EVIDENCE
    status, first, log = stdout_run(conf, database, evidence)
    check(f"run 1 (to its end) exits 0 with MATCHes: {len(first)}", status == 0 and len(first) >= 3, log[-1500:])
    status, killed, log = stdout_run(conf, database, evidence, kill_after=3)
    check(f"run 2 is killed with SIGKILL just after its 3rd MATCH (status {status})", status == -signal.SIGKILL and len(killed) == 3,
          log[-1500:])
    check("sqlite3 PRAGMA integrity_check after the kill: ok", integrity(database) == "ok", integrity(database))
    # Run 3: lectord restarted on the same files, serving its socket until the replay ends.
    daemon = Daemon("--config", conf, "--always-on", *keep_args(database, evidence))
    third = []
    with daemon:
        with Client(daemon.path) as client:
            client.request({"class": "WATCH", "text": False, "frame": True, "matches": True})
            client.sock.settimeout(5)
            deadline, frames = time.time() + 240, 0
            while time.time() < deadline:
                try:
                    message = client.read()
                except socket.timeout:
                    if frames:
                        break  # the replay ended: no frame for 5 s
                    continue
                if message["class"] == "MATCH":
                    third.append(message)
                frames += message["class"] == "FRAME"
        check("the restarted lectord opens the history without an error", "history not kept" not in daemon.logtext(),
              daemon.logtext()[-1500:])
        time.sleep(1)  # the writer thread's last rows
        status, served, err = history("--socket", daemon.path)
        check(f"lector history --json (HISTORY through the socket) answers: {len(served)} MATCHes", status == 0 and served, err)
        status, beside, err = history("--db", database)
        check("lector history --db reads the file while lectord writes it: the same answer",
              status == 0 and [key(m) for m in beside] == [key(m) for m in served], err)
    status, stored, err = history("--db", database)
    check(f"lector history --db reads the file once lectord is gone: {len(stored)} MATCHes", status == 0 and stored, err)
    check("the socket's and the file's answers agree", [key(m) for m in served] == [key(m) for m in stored][:len(served)])
    kept = {key(m) for m in stored}
    lost = lambda run: [m["text"] for m in run if key(m) not in kept]  # noqa: E731
    check(f"every MATCH of run 1 is in the history ({len(first)})", not lost(first), lost(first))
    check(f"run 2's MATCHes are in it but at most the one being written when killed ({len(lost(killed))} lost)",
          not lost(killed[:-1]), lost(killed))
    check(f"every MATCH of the restarted run 3 is in it ({len(third)})", third and not lost(third), lost(third))
    check("the history holds nothing but what was published",
          len(stored) <= len(first) + len(killed) + len(third) and len(stored) >= len(first) + len(killed) - 1 + len(third),
          (len(stored), len(first), len(killed), len(third)))
    check("newest first", [m["time"] for m in stored] == sorted((m["time"] for m in stored), reverse=True))
    check("sqlite3 PRAGMA integrity_check at the end: ok", integrity(database) == "ok", integrity(database))
    # Evidence: the newest MATCHes' files exist and decode; pruning took the oldest first.
    named = [m for m in stored if "evidence" in m]
    check(f"accepted MATCHes name their evidence ({len(named)} of {len(stored)})", len(named) == len(stored))
    present = [m for m in named if os.path.exists(m["evidence"]["crop"]) and os.path.exists(m["evidence"]["frame"])]
    check(f"the newest MATCH's frame and crop exist ({len(present)} of {len(named)} still kept)",
          named and named[0] in present, named[:1])
    bad = []
    for match in present:
        ok, width, height = decodes(match["evidence"]["frame"])
        crop_ok, crop_width, crop_height = decodes(match["evidence"]["crop"])
        box = match["box"]
        if not (ok and (width, height) == (640, 480) and crop_ok and crop_width >= box["width"] and crop_height >= box["height"]):
            bad.append((match["evidence"], ok, width, height, crop_ok, crop_width, crop_height, box))
    check("each kept frame decodes at the camera's size (640x480), each crop holds its line's box", not bad, bad)
    gone_index = [i for i, m in enumerate(named) if m not in present]
    check("pruning deleted the oldest evidence first", not gone_index or min(gone_index) >= len(present), gone_index)
    total = sum(os.path.getsize(os.path.join(evidence, name)) for name in os.listdir(evidence))
    check(f"the evidence stays within --evidence-max-mb {EVIDENCE_MB}: {total} bytes", total <= EVIDENCE_MB * 1048576)
    check("evidence was pruned (the runs made more than the bound)", gone_index, len(named))
    # The filters, on the file.
    since = stored[len(stored) // 2]["time"]
    status, newer, _ = history("--db", database, "--since", since, "--rule", "any", "--device", "meter")
    check("--since, --rule and --device narrow the answer", status == 0 and newer and all(m["time"] >= since for m in newer)
          and len(newer) < len(stored), len(newer))
    status, other, _ = history("--db", database, "--rule", "nothing")
    check("a rule without MATCHes gives none", status == 0 and other == [])
    status, out, _ = lector("history", "--db", database, "--csv", "--limit", "2")
    rows = out.splitlines()
    check("--csv prints a header and a row per MATCH", status == 0 and len(rows) == 3 and rows[0].startswith("time,device,zone,rule"),
          out)


def http(port, path, password=None):
    """(status, body) of a GET to lector-http, with basic auth when `password` is given."""
    headers = {"Authorization": "Basic " + base64.b64encode(b"lector:" + password.encode()).decode()} if password else {}
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@suite.test
def test_web_page_shows_the_last_readings_with_their_crops():
    """lector-http: /api/history and /api/evidence.jpg behind the password (only files a
    HISTORY reply named), and the page's table of readings in a real headless Chromium."""
    if not os.path.exists(DATABASE):
        test_every_match_kept_across_restart_and_kill()
    password = "pw-" + str(os.getpid())
    password_file = os.path.join(WORK, "password")
    with open(os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(password + "\n")
    port = free_port()
    # The demo without rules: the page's WATCH starts it, and it adds no MATCH.
    with Daemon("--demo", "--history", DATABASE) as daemon:
        bridge = Process([LECTOR_HTTP, "--socket", daemon.path, "--listen", "127.0.0.1:%d" % port, "--password-file", password_file],
                         os.path.join(WORK, "lector-http.log"), stdout=subprocess.DEVNULL).start()
        try:
            bridge.wait_port(port, "lector-http")
            status, _ = http(port, "/api/history")
            check("/api/history without the password: 401", status == 401, status)
            status, body = http(port, "/api/history?limit=3", password)
            reply = json.loads(body) if status == 200 else {}
            matches = reply.get("matches", [])
            check(f"/api/history?limit=3 with it: HISTORY, {len(matches)} MATCHes", reply.get("class") == "HISTORY" and len(matches) == 3,
                  body[:300])
            crop = matches[0]["evidence"]["crop"] if matches and "evidence" in matches[0] else ""
            status, body = http(port, "/api/evidence.jpg?" + urllib.parse.urlencode({"path": crop}), password)
            check("/api/evidence.jpg serves a crop HISTORY named, byte for byte", status == 200 and crop and body == open(crop, "rb").read(),
                  (status, crop))
            status, _ = http(port, "/api/evidence.jpg?path=/etc/passwd", password)
            check("/api/evidence.jpg refuses a file no HISTORY named: 404", status == 404, status)
            status, _ = http(port, "/api/evidence.jpg?" + urllib.parse.urlencode({"path": crop}))
            check("/api/evidence.jpg without the password: 401", status == 401, status)
            sys.path.insert(0, os.path.join(ROOT, "tests/http"))
            from test_http import WebDriver  # noqa: E402 - the http suite's headless Chromium
            browser = WebDriver()
            try:
                # The password as a browser that was given it sends it: on every request.
                authorization = "Basic " + base64.b64encode(b"lector:" + password.encode()).decode()
                browser.call("POST", browser.s("/goog/cdp/execute"), {"cmd": "Network.enable", "params": {}})
                browser.call("POST", browser.s("/goog/cdp/execute"),
                             {"cmd": "Network.setExtraHTTPHeaders", "params": {"headers": {"Authorization": authorization}}})
                browser.go("http://127.0.0.1:%d/" % port)
                newest = json.loads(http(port, "/api/history?limit=20", password)[1])["matches"]
                # A crop pruned since (oldest first) cannot load; every other must.
                kept = [os.path.exists(m["evidence"]["crop"]) for m in newest]
                rows = []

                def shown():
                    rows[:] = browser.script("""return [...document.querySelectorAll('#readings tr.reading')].map(r =>
                        [r.cells[3].textContent, r.querySelector('img.crop') ? r.querySelector('img.crop').naturalWidth : -1]);""")
                    return len(rows) == len(newest) and all(width > 0 for (_, width), exists in zip(rows, kept) if exists)
                try:
                    wait_for(shown, 60, "the readings with their crops")
                except AssertionError:
                    pass
                check(f"the page lists the last readings ({len(rows)}, {sum(kept)} crops still kept) newest first, each kept crop shown",
                      rows and [text for text, _ in rows] == [m["text"] for m in newest]
                      and all(width > 0 for (_, width), exists in zip(rows, kept) if exists), (rows[:5], browser.logs()[-5:]))
            finally:
                browser.quit()
        finally:
            bridge.stop()


@suite.test
def test_keep_days_prune_at_start_and_hourly():
    """A reading and an evidence file older than --history-keep-days and
    --evidence-keep-days are deleted when lectord starts (and every hour after)."""
    database = os.path.join(WORK, "old.sqlite")
    evidence = os.path.join(WORK, "old-evidence")
    os.makedirs(evidence, exist_ok=True)
    with Daemon("--demo", "--history", database):
        pass  # makes the database
    row = ("INSERT INTO reading (time, unix_time, device, rule, text, confidence, message) VALUES "
           "('%s', %s, 'old', 'r', '%s', 0.9, '{\"class\":\"MATCH\",\"device\":\"old\",\"rule\":\"r\",\"text\":\"%s\","
           "\"matched\":\"x\",\"groups\":[],\"box\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1},\"corners\":[],"
           "\"confidence\":0.9,\"seq\":1,\"time\":\"%s\"}');")
    now = time.time()
    subprocess.run(["sqlite3", database, row % ("2020-01-01T00:00:00.000Z", 1577836800, "OLD", "OLD", "2020-01-01T00:00:00.000Z")
                    + row % ("2026-12-04T00:00:00.000Z", now - 3600, "NEW", "NEW", "2026-12-04T00:00:00.000Z")], check=True)
    old_file, new_file = os.path.join(evidence, "20200101T000000.000Z-old-1.jpg"), os.path.join(evidence, "20261204T000000.000Z-old-2.jpg")
    for path, age in ((old_file, 3 * 86400), (new_file, 3600)):
        with open(path, "wb") as f:
            f.write(b"\xff\xd8\xff\xd9")
        os.utime(path, (now - age, now - age))
    with Daemon("--demo", "--history", database, "--history-keep-days", "2", "--evidence", evidence, "--evidence-keep-days", "2"):
        wait_for(lambda: not os.path.exists(old_file), 30, "the old evidence to go")
        # The rows are pruned on the history's writer thread, apart from the evidence.
        deadline = time.time() + 30
        while True:
            status, left, err = history("--db", database, "--device", "old")
            if [m["text"] for m in left] == ["NEW"] or time.time() > deadline:
                break
            time.sleep(0.2)
    check("readings older than --history-keep-days are deleted, newer ones kept", [m["text"] for m in left] == ["NEW"], (left, err))
    check("evidence older than --evidence-keep-days is deleted, newer kept", not os.path.exists(old_file) and os.path.exists(new_file))


@suite.test
def test_a_full_disk_stops_the_keeping_not_the_reading():
    """Evidence on a 120 KB tmpfs: once it is full the keeping stops (logged once), every
    MATCH is still published and kept in the history, no row names a file not written."""
    full = os.path.join(WORK, "full")
    os.makedirs(full, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=120k", "tmpfs", full], capture_output=True, text=True)
    if mounted.returncode != 0:
        raise SkipTest("cannot mount a small tmpfs (needs root): " + mounted.stderr.strip())
    try:
        database = os.path.join(WORK, "full-disk.sqlite")
        conf = meter_config(os.path.join(WORK, "full.conf"))
        status, published, log = stdout_run(conf, database, full, megabytes=100)
        said = log.count("evidence not kept")
        check(f"lectord reads to the end of the replay (exit 0, {len(published)} MATCHes) with the disk full", status == 0 and len(published) >= 4,
              log[-1500:])
        check(f"the full disk is logged once ({said} lines)", said == 1, log[-1500:])
        status, stored, err = history("--db", database)
        kept = {key(m) for m in stored}
        check("every MATCH is in the history all the same", status == 0 and all(key(m) in kept for m in published), err)
        named = [m for m in stored if "evidence" in m]
        missing = [m["evidence"] for m in named if not (os.path.exists(m["evidence"]["frame"]) and os.path.exists(m["evidence"]["crop"]))]
        check(f"no row names a file that was not written ({len(named)} of {len(stored)} rows have evidence)",
              not missing and 0 < len(named) < len(stored), missing)
        check("no half-written file is left", not [n for n in os.listdir(full) if not n.endswith(".jpg")], os.listdir(full))
    finally:
        subprocess.run(["umount", full], capture_output=True)


@suite.test
def test_bad_files_are_refused_and_lectord_reads_on():
    """A corrupt file and another program's SQLite database are refused with a clear
    error (lectord logs it and reads on; lector history --db exits 1)."""
    corrupt = os.path.join(WORK, "corrupt.sqlite")
    with open(corrupt, "wb") as f:
        f.write(b"SQLite format 3\0" + os.urandom(8192))
    foreign = os.path.join(WORK, "foreign.sqlite")
    subprocess.run(["sqlite3", foreign, "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');"], check=True)
    text = os.path.join(WORK, "notes.txt")
    with open(text, "w") as f:
        f.write("not a database at all\n" * 200)
    with Daemon("--demo") as daemon:
        with Client(daemon.path) as client:
            reply = client.request({"class": "HISTORY", "limit": 5})
    check("HISTORY of a lectord without --history: an ERROR that says so",
          reply.get("class") == "ERROR" and "keeps no history" in reply.get("message", ""), reply)
    for name, path, said in (("a corrupt file", corrupt, "not a Lector history"), ("another program's database", foreign, "other tables"),
                             ("a text file", text, "not an SQLite database")):
        before = open(path, "rb").read()
        status, out, err = lector("history", "--db", path)
        check(f"lector history --db {name}: exit 1, '{said}'", status == 1 and said in err and path in err, (status, err))
        with Daemon("--config", DEMO_CONFIG, "--always-on", "--history", path) as daemon:
            with Client(daemon.path) as client:
                client.request({"class": "WATCH", "text": False, "frame": False, "matches": True})
                match = client.read_class("MATCH", timeout=120)
                reply = client.request({"class": "HISTORY"})
            log = daemon.logtext()
        check(f"lectord with {name}: logs why, reads on (a MATCH), HISTORY says why",
              "history not kept" in log and said in log and match and reply.get("class") == "ERROR" and said in reply.get("message", ""),
              (log[-800:], reply))
        check(f"{name} is left as it was", open(path, "rb").read() == before)


DEMO_CONFIG = os.path.join(WORK, "demo.conf")


@suite.test
def test_rules_run_with_nobody_watching():
    """lectord with a socket, a gate rule with a known list and a hook, --history and
    --evidence, and no client that watches: a car photo's plate gives a MATCH row in the
    history and the hook runs; STATUS says the camera runs for its rules."""
    photo = os.path.join(ROOT, "..", "shared", "testdata", "realworld", "platefull", "us_car15.jpg")
    known, ran, hook = (os.path.join(WORK, name) for name in ("gate-known.txt", "gate-hook.out", "gate-hook.sh"))
    with open(known, "w") as f:
        f.write("KCS1M\tthe van\n")
    with open(hook, "w") as f:
        f.write(f'#!/bin/sh\necho "$LECTOR_RULE $LECTOR_KNOWN $LECTOR_KNOWN_NAME" >> {ran}\n')
    os.chmod(hook, 0o755)
    conf = os.path.join(WORK, "gate.conf")
    with open(conf, "w") as f:
        f.write(f"[camera gate]\nreplay = {photo}\nloop = true\nfps = 2\n\n[rule gate/plate]\nmatch = ^[A-Z0-9]{{5,8}}$\n"
                f"alike = true\nknown = {known}\nrepeat_after = 600\non_match = {hook}\n")
    database, evidence = os.path.join(WORK, "gate.sqlite"), os.path.join(WORK, "gate-evidence")
    with Daemon("--config", conf, *keep_args(database, evidence)) as daemon:
        wait_for(lambda: os.path.exists(ran), 120, "the gate rule's hook to run with no client")
        with Client(daemon.path) as client:
            status = client.request({"class": "STATUS"})
        device = status["devices"][0]
        check("STATUS: the camera runs for its rules with nobody watching (running_reason rules)",
              device["running"] and not device["watched"] and device.get("running_reason") == "rules"
              and status["watchers"] == 0, device)
        time.sleep(1)
    status, rows, err = history("--db", database)
    check("the hook ran for the known plate", open(ran).read().split("\n")[0] == "plate KCS1M the van", open(ran).read())
    check("its MATCH is a row of the history, known, with evidence",
          status == 0 and any(r["text"] == "KCS1M" and (r.get("known") or {}).get("name") == "the van" and r.get("evidence")
                              for r in rows), [rows, err])


def setup():
    with open(DEMO_CONFIG, "w") as f:
        f.write("[camera demo]\ndemo = true\nfps = 5\n\n[rule demo/words]\nmatch = [A-Za-z]{3,}\n")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-meter-sequence.py"), SEQUENCE,
                    "--readings", "6", "--seconds-per-reading", "2"], check=True)


if __name__ == "__main__":
    sys.exit(suite.main(setup=setup))
