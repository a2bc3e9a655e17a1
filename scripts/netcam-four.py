#!/usr/bin/env python3
"""Four network cameras on one machine (issue 47): one lectord reading four cameras of
tests/netcam's 1080p25 H.264 RTSP stream (2 s key frames, sensor noise, the scene
changing every HOLD seconds; the same stream four times, as the issue measured), beside
FFmpeg decoding the stream alone (`ffmpeg -threads 1`). Prints, for each camera, how long
after the server sent each changed scene its first TEXT came, and lectord's CPU per camera
against FFmpeg's in the same run.

    LECTORD=.build/release/lectord scripts/netcam-four.py [--seconds 40] [--hold 8]

Uses tests/netcam's servers and helpers (GStreamer's RTSP server, Debian's python3-gi)."""
import argparse
import os
import sys
import time

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "netcam")
sys.path.insert(0, HERE)
import test_netcam as t  # noqa: E402
from frames import frame_text  # noqa: E402
from lectortest import stop_all, wait_for  # noqa: E402

CAMERAS = 4


def lags(server, texts, hold):
    """{device: [(scene, seconds from the server sending it to its first TEXT)]}."""
    sent = server.sent_times()
    frames = round(hold * t.STILL_FPS)
    rows = {}
    for device in sorted({m["device"] for _, m in texts}):
        mine = [(at, m) for at, m in texts if m["device"] == device]
        for scene in sorted({n // frames for n in sent})[1:-1]:
            start = sent.get(scene * frames)
            if start is None or start < mine[0][0] or start > mine[-1][0] - t.CHANGE_SECONDS:
                continue
            first = min((at for at, m in mine if at >= start and frame_text(scene) in m["text"]), default=None)
            rows.setdefault(device, []).append((scene, None if first is None else round(first - start, 2)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--hold", type=float, default=8, help="seconds each scene is held")
    args = parser.parse_args()
    with t.Server("rtsp", *t.STILL_SERVER, "--hold", str(args.hold), fps=t.STILL_FPS) as server:
        # One URL a camera (lectord refuses a source given twice): the query the server ignores.
        urls = [item for n in range(CAMERAS) for item in ("--url", "%s?camera=%d" % (server.url(), n + 1))]
        with t.Reader(*urls, name="four") as reader, t.Decoder(server.url()) as decoder:
            wait_for(lambda: len({m["device"] for _, m in reader.texts()}) >= CAMERAS, 180, "a TEXT from each camera")
            cpu0, ffmpeg0, start = t.cpu_seconds(reader.proc.pid), t.cpu_seconds(decoder.proc.pid), time.monotonic()
            time.sleep(args.seconds)
            cpu, ffmpeg = t.cpu_seconds(reader.proc.pid) - cpu0, t.cpu_seconds(decoder.proc.pid) - ffmpeg0
            time.sleep(t.CHANGE_SECONDS + 1)
            texts = [(at, m) for at, m in reader.texts() if at >= start]
    rows = lags(server, texts, args.hold)
    late = [lag for device in rows for _, lag in rows[device] if lag is None or lag > t.CHANGE_SECONDS]
    print("four cameras of one 1080p25 H.264 stream, scene held %.0f s, %.0f s measured (load %.1f)"
          % (args.hold, args.seconds, os.getloadavg()[0]))
    for device, row in sorted(rows.items()):
        print("  %s: (scene, first TEXT after the server sent it, s) %s" % (device.rsplit("/", 1)[-1], row))
    print("lectord %.2f s CPU, %.2f s a camera; FFmpeg decoding the stream alone %.2f s: %.2fx a camera"
          % (cpu, cpu / CAMERAS, ffmpeg, cpu / CAMERAS / max(ffmpeg, 1e-9)))
    print("changes read within %.1f s: %d of %d" % (t.CHANGE_SECONDS, sum(len(r) for r in rows.values()) - len(late),
                                                 sum(len(r) for r in rows.values())))
    stop_all()
    return 0 if rows and not late else 1


if __name__ == "__main__":
    sys.exit(main())
