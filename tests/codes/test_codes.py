#!/usr/bin/env python3
"""QR codes and barcodes read live (issue 48) through a real lectord (see tests/codes/run).

formats: scripts/make-code-scenes.py's camera-like frames (two of each of the 14 formats,
labels with text, tilt up to 40 degrees, blur, noise, glare, JPEG; four frames holding
two codes), replayed whole with `--codes on --stdout`: at least 90 % of the codes a
phone would read are found with their text (scripts/eval-codes.py; these frames: 29 of
30 through the shim since issue 48's second pass, 27 before; 0.99 on 308 readable codes
of two larger sets: see docs/codes.md), at most one format missed whole, at most two
codes that are not there, and the label's text and its code both
published for at least 75 % of the labelled frames.

second_pass: frames of the formats ZXing 1.4 missed most in a whole frame (Aztec, Micro
QR, Code 93, UPC-A; 24 frames, seed 4813): at least 90 % of the readable Aztec and Micro
QR codes found (7 of 10 before the shim's second pass) and of all readable codes.

straightened: ten Aztec frames (seed 4852): at least 95 % of the readable codes found (7
of 8 through the shim before the straightened pass, 8 with it) and none that is not there.

large_linear: 1280x720 frames holding one large EAN-13, UPC-A, ITF and Code 128 (what
aborted Debian 12's python3-zxing-cpp, through ZXing's image pyramid): lectord ends
normally and publishes each code.

appearance: a QR code held in view 10 s, taken away 3 s (`codes_repeat_after = 2`) and
shown again 3 s, hand-held, at 5 frames a second: two CODEs; a rule with `source =
codes` runs its hook twice (LECTOR_CODE set) and writes two history rows (SQLite) whose
MATCH names the code's format; a rule on text alone gives no MATCH of the code.

watch: an Aztec code shown and taken away in a loop (`codes_repeat_after = 1`); a socket client's WATCH with `codes` gets CODE (`bytes_base64` absent for text)
and its reply says `codes`; `lector watch --codes --count 1` prints the code.

slow_core: at a third of a core (scripts/cpuquota.py), a code shown after 4 s beside a
notice whose text is read all along: its first CODE within 1 s of the frame it appears
in. Skipped where no cgroup cpu controller is writable.

shim: scripts/check-zxing-api on this machine's libzxing-dev: the shim compiles without a
diagnostic, a C program links it, and one code of each format (plus GS1-128, Code 39 with
"+", a QR code beside an EAN-13, an empty label) reads with its text and bytes (the same
script run against Debian 13's ZXing-C++ 2.x in a debootstrap root: docs/packages.md).

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed".
"""
import json
import os
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from lectortest import ENV, LECTOR, LECTORD, ROOT, Client, Daemon, SkipTest, Streamed, Suite, rfc3339, workdir, write  # noqa: E402
from cpuquota import CPUQuota, Unavailable  # noqa: E402

suite = Suite("codes")
check = suite.check
WORK = workdir("lector-codes-")
SCENES = os.path.join(ROOT, "scripts", "make-code-scenes.py")
EVAL = os.path.join(ROOT, "scripts", "eval-codes.py")


def scenes(name, *args):
    """Frames of scripts/make-code-scenes.py in WORK/name; their truth."""
    folder = os.path.join(WORK, name)
    subprocess.run(["/usr/bin/python3", SCENES, folder, *args], check=True, capture_output=True, timeout=300)
    return folder, json.load(open(os.path.join(folder, "truth.json")))


@suite.test
def shim():
    done = subprocess.run([os.path.join(ROOT, "scripts", "check-zxing-api")], capture_output=True, text=True, timeout=300)
    last = done.stdout.strip().splitlines()[-1:] or [""]
    check(f"shim: scripts/check-zxing-api: {last[0]}", done.returncode == 0 and last[0].endswith(" 0 failed"),
          (done.stdout + done.stderr)[-1500:])


def evaluated(name, *args):
    """scripts/eval-codes.py's result (--json) on the scenes `args` generate, or None
    (a failed check) when lectord cannot read them."""
    folder, _ = scenes(name, *args)
    done = subprocess.run(["/usr/bin/python3", EVAL, folder, "--json", "--lectord", os.environ.get("LECTORD", LECTORD)],
                          capture_output=True, text=True, timeout=600, env=ENV)
    if not check(f"{name}: lectord reads the frames", done.returncode == 0, done.stderr[-1500:]):
        return None
    return json.loads(done.stdout)


@suite.test
def formats():
    result = evaluated("formats", "--per-format", "2", "--pairs", "4", "--seed", "4811")
    if result is None:
        return
    readable = sum(f["readable"] for f in result["formats"].values())
    found = sum(f["found"] for f in result["formats"].values())
    print("     " + ", ".join(f"{name} {f['found']}/{f['readable']}" for name, f in result["formats"].items()))
    # What ZXing 1.4 reaches here with the second pass (docs/codes.md: 152 of 153 and 154
    # of 155 readable codes; two or three codes a format are too few for the 0.95
    # a format, measured on the larger sets).
    check(f"formats: {found} of {readable} readable codes found (at least 90 %)", found >= 0.9 * readable)
    missing = [name for name, f in result["formats"].items() if f["readable"] and not f["found"]]
    check(f"formats: at most 1 format with every readable code missed ({missing})", len(missing) <= 1, missing)
    check(f"formats: at most 2 codes found that the frame does not hold ({result['false_codes']})", result["false_codes"] <= 2)
    both, labelled = result["text_and_code"], result["labelled_frames"]
    check(f"formats: text and code both published for {both} of {labelled} labelled frames (at least 75 %)",
          both >= 0.75 * labelled)


@suite.test
def second_pass():
    result = evaluated("second_pass", "--formats", "aztec,micro_qr,code93,upc_a", "--per-format", "6", "--seed", "4813")
    if result is None:
        return
    formats = result["formats"]
    print("     " + ", ".join(f"{name} {f['found']}/{f['readable']}" for name, f in formats.items()))
    # Measured through the shim (scripts/compare-code-shims.py): 7 of these 10 Aztec and
    # Micro QR codes before the second pass, 10 with it; 19 of 19 readable codes in all.
    small = [formats[name] for name in ("aztec", "micro_qr")]
    readable, found = sum(f["readable"] for f in small), sum(f["found"] for f in small)
    check(f"second_pass: {found} of {readable} readable Aztec and Micro QR codes of 3-6 pixels a module found "
          "(at least 90 %)", readable > 0 and found >= 0.9 * readable)
    readable, found = sum(f["readable"] for f in formats.values()), sum(f["found"] for f in formats.values())
    check(f"second_pass: {found} of {readable} readable codes found (at least 90 %)", found >= 0.9 * readable)


@suite.test
def straightened():
    result = evaluated("straightened", "--formats", "aztec", "--per-format", "10", "--seed", "4852")
    if result is None:
        return
    aztec = result["formats"]["aztec"]
    # Measured through the shim (scripts/compare-code-shims.py, 2026-12-07): 7 of these 8
    # readable Aztec codes before the straightened pass, 8 with it (one of 3 pixels a
    # module beside the label's text); the issue asks 0.95 of each format.
    check(f"straightened: {aztec['found']} of {aztec['readable']} readable Aztec codes found (at least 95 %)",
          aztec["readable"] > 0 and aztec["found"] >= 0.95 * aztec["readable"])
    check(f"straightened: no code found that the frames do not hold ({result['false_codes']})", result["false_codes"] == 0)


@suite.test
def rectangles_and_rows():
    result = evaluated("rectangles_and_rows", "--formats", "data_matrix,pdf417", "--per-format", "10", "--seed", "4886")
    if result is None:
        return
    formats = result["formats"]
    print("     " + ", ".join(f"{name} {f['found']}/{f['readable']}" for name, f in formats.items()))
    # Measured through the shim (scripts/compare-code-shims.py, 2026-12-07): 9 of these 10
    # readable Data Matrix (a rectangular one missed) and 7 of 8 PDF417 before the
    # rectangle finder and PDF417's own blobs, all 18 with them.
    for name in ("data_matrix", "pdf417"):
        code = formats[name]
        check(f"rectangles_and_rows: {code['found']} of {code['readable']} readable {name} found (at least 95 %)",
              code["readable"] > 0 and code["found"] >= 0.95 * code["readable"])
    check(f"rectangles_and_rows: no code found that the frames do not hold ({result['false_codes']})",
          result["false_codes"] == 0)


@suite.test
def large_linear():
    from PIL import Image
    folder = os.path.join(WORK, "linear")
    os.makedirs(folder, exist_ok=True)
    codes = [(13, "590123412345", "ean13", "5901234123457"), (34, "01234567890", "upc_a", "012345678905"),
             (3, "12345678901234", "itf", "12345678901234"), (20, "HELLO123", "code128", "HELLO123")]
    for index, (symbology, data, _, _) in enumerate(codes):
        png = os.path.join(folder, f"code{index}.png")
        subprocess.run(["zint", "-b", str(symbology), "-d", data, "--scale=3", "-o", png], check=True, capture_output=True)
        frame = Image.new("L", (1280, 720), 200)
        frame.paste(Image.open(png).convert("L"), (300, 200))
        frame.save(os.path.join(folder, f"{index:04d}.png"))
        os.unlink(png)
    run = Streamed(["--replay", folder, "--codes", "on"]).run()
    check("large_linear: lectord ends normally", run.process.returncode == 0, b"".join(run.log)[-1500:])
    found = {(m["format"], m["text"]) for m in run.of("CODE")}
    for _, _, fmt, text in codes:
        check(f"large_linear: {fmt} {text} published", (fmt, text) in found, sorted(found))


def appearance_config(frames, hook, history):
    return f"""[camera shelf]
replay = {frames}
fps = 5
codes = qr
codes_repeat_after = 2

[rule shelf/scanned]
source = codes
match = ^https://
on_match = {hook}

[rule shelf/words]
match = lector\\.example
"""


@suite.test
def appearance():
    frames, truth = scenes("held", "--sequence", "qr:10,3,3", "--fps", "5", "--seed", "12")
    calls = os.path.join(WORK, "hook-calls.txt")
    hook = write(os.path.join(WORK, "hook.sh"), f"#!/bin/sh\necho \"$LECTOR_CODE $LECTOR_TEXT\" >> {calls}\n", mode=0o755)
    history = os.path.join(WORK, "history.sqlite")
    conf = write(os.path.join(WORK, "held.conf"), appearance_config(frames, hook, history))
    run = Streamed(["--config", conf, "--history", history]).run()
    codes = [m for m in run.of("CODE") if m["text"] == truth["text"]]
    check(f"appearance: 10 s in view, 3 s away, shown again: {len(codes)} CODE (2)", len(codes) == 2,
          [(m["seq"], m["text"]) for m in run.of("CODE")])
    matches = [m for m in run.of("MATCH") if m["rule"] == "scanned"]
    check(f"appearance: the rule on codes matched {len(matches)} times (2), naming the format",
          len(matches) == 2 and all(m.get("code") == "qr" for m in matches), matches)
    check("appearance: the rule on text alone gives no MATCH of the code", not run.of("MATCH") or
          all(m["rule"] != "words" or "code" not in m for m in run.of("MATCH")))
    deadline = time.time() + 10
    while time.time() < deadline and (not os.path.exists(calls) or len(open(calls).read().splitlines()) < 2):
        time.sleep(0.1)
    lines = open(calls).read().splitlines() if os.path.exists(calls) else []
    check(f"appearance: the hook ran {len(lines)} times (2) with LECTOR_CODE", lines == [f"qr {truth['text']}"] * 2, lines)
    with sqlite3.connect(history) as database:
        rows = database.execute("SELECT rule, text, message FROM reading ORDER BY id").fetchall()
    kept = [row for row in rows if row[0] == "scanned" and json.loads(row[2]).get("code") == "qr"]
    check(f"appearance: {len(kept)} history rows of the code (2)", len(kept) == 2 and kept[0][1] == truth["text"], rows)


@suite.test
def watch():
    # 2 s without the code, 3 s with it, in a loop: a new appearance every 5 s.
    frames, truth = scenes("watched", "--sequence", "aztec:0,2,3", "--fps", "5", "--seed", "3")
    with Daemon("--replay", frames, "--fps", "5", "--loop", "--codes", "aztec,qr", "--codes-repeat-after", "1") as daemon:
        with Client(daemon.path, read_version=True, strict=True) as client:
            reply = client.request({"class": "WATCH", "text": False, "frame": False, "codes": True})
            check("watch: the WATCH reply says codes", reply.get("codes") is True, reply)
            code = client.read_class("CODE", timeout=60)
            check("watch: CODE with the format, text, box and both corner sets",
                  code["format"] == "aztec" and code["text"] == truth["text"] and "bytes_base64" not in code
                  and len(code["corners"]) == 4 and len(code["upright_corners"]) == 4 and code["box"]["width"] > 0, code)
        printed = subprocess.run([os.environ.get("LECTOR", LECTOR), "watch", "--codes", "--count", "1", "--socket", daemon.path],
                                 capture_output=True, text=True, timeout=60, env=ENV)
        check("watch: lector watch --codes prints the code",
              printed.returncode == 0 and f'aztec "{truth["text"]}"' in printed.stdout, printed.stdout + printed.stderr)


@suite.test
def slow_core():
    try:
        CPUQuota.probe()
    except Unavailable as why:
        raise SkipTest(str(why))
    frames, truth = scenes("slow", "--sequence", "qr:0,4,6", "--fps", "5", "--seed", "5")
    with CPUQuota(33) as quota:
        run = Streamed(["--replay", frames, "--fps", "5", "--codes", "qr"], quota=quota).run()
    first = next((m for m in run.messages if m["class"] == "FRAME" and m["seq"] == 0), None)
    codes = [m for m in run.of("CODE") if m["text"] == truth["text"]]
    texts = [m for m in run.of("TEXT") if "AISLE" in m["text"]]
    if not check("slow_core: the code is published and the notice read", first is not None and codes and texts,
                 [len(run.of("FRAME")), len(codes), len(texts)]):
        return
    # Frame 20 (4 s at 5 a second) is the first that shows the code: its capture time is
    # the CODE's frame's, less the frames between them.
    code = codes[0]
    appeared = min(rfc3339(code["time"]) - (code["seq"] - 20) / 5.0, rfc3339(first["time"]) + 4.0)
    took = code["_arrived"] - appeared
    check(f"slow_core: first CODE {took:.2f} s after the code's first frame (at most 1; read in frame {code['seq']}, "
          f"the code's first is 20)", took <= 1.0 and code["seq"] >= 20)


if __name__ == "__main__":
    sys.exit(suite.main())
