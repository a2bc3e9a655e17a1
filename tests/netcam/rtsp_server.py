#!/usr/bin/python3
"""A real RTSP server for tests/netcam: GStreamer's gst-rtsp-server (Debian's
gir1.2-gst-rtsp-server-1.0, python3-gi) streaming H.264 (x264enc, zero latency) or
H.265 (x265enc, --codec h265) of the frames of frames.py, pushed through appsrc at --fps
with their running number.

    rtsp_server.py --port N [--fps F] [--size WxH] [--codec h264|h265] [--hold S] [--user U --password P] [--log FILE]

Listens on 127.0.0.1 only, path /cam. Every frame is logged to --log as it leaves the
encoder, "NUMBER MONOTONIC_SECONDS" (the time.monotonic() clock lectord's tests also
read), so a test knows which frame the server was sending when a TEXT arrived (a 4K
frame takes this machine a while to encode: the push time would flatter the server). One shared pipeline: the
frame number runs on while clients come and go. SIGSTOP/SIGCONT slows or pauses it.
"""
import argparse
import collections
import os
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import Frames  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fps", type=float, default=10)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--keyint", type=int, default=30)
    parser.add_argument("--codec", choices=("h264", "h265"), default="h264")
    parser.add_argument("--bitrate", type=int, help="kbit/s (default: a pixel count's worth)")
    parser.add_argument("--noise", type=int, default=0, help="random darkening of each pixel, up to this much")
    parser.add_argument("--hold", type=float, default=0,
                        help="seconds each frame number is shown (a still scene that changes every HOLD s; "
                             "frame N shows N // (HOLD * fps))")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--log")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    frames = Frames(width, height)
    log = open(args.log, "a", buffering=1) if args.log else None

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    fps = args.fps
    codec = args.codec[1:]  # 264 or 265
    encoder = "x%senc name=encoder tune=zerolatency speed-preset=ultrafast key-int-max=%d bitrate=%d ! rtph%spay" % (
        codec, args.keyint, args.bitrate or max(500, width * height // 400), codec)
    queue_bytes = 3 * width * height
    factory.set_launch(
        "( appsrc name=source is-live=true format=time do-timestamp=true block=false max-bytes=%d "
        "caps=video/x-raw,format=GRAY8,width=%d,height=%d,framerate=%d/1000 "
        "! videoconvert ! video/x-raw,format=I420 ! %s name=pay0 pt=96 config-interval=1 )"
        % (queue_bytes, width, height, int(fps * 1000), encoder))  # a slow encoder slows the pushes (pump): no queue grows
    factory.set_shared(True)
    if args.user:
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "user")
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        server.set_auth(auth)
        permissions = GstRtspServer.RTSPPermissions()
        permissions.add_role_from_structure(Gst.Structure.new_from_string(
            "user, media.factory.access=(boolean)true, media.factory.construct=(boolean)true"))
        factory.set_permissions(permissions)
    state = {"number": 0}
    pushed = collections.deque()  # numbers pushed, not yet out of the encoder (in order)

    hold_frames = max(1, round(args.hold * fps)) if args.hold else 0
    cache = {}

    def held(shown):
        """A held frame, cheaply: rendered once, with one of eight noise patterns
        (drawn once) a frame, so a loaded machine still serves 1080p at 25 fps."""
        if cache.get("shown") != shown:
            cache.update(shown=shown, base=frames.gray(shown), turn=0)
            if args.noise and "noise" not in cache:
                import numpy
                cache["noise"] = [numpy.random.randint(0, args.noise, width * height, dtype=numpy.uint8) for _ in range(8)]
        if not args.noise:
            return cache["base"]
        import numpy
        cache["turn"] += 1
        pixels = numpy.frombuffer(cache["base"], dtype=numpy.uint8)
        return (pixels - numpy.minimum(pixels, cache["noise"][cache["turn"] % 8])).tobytes()

    def pump(source):
        interval = 1 / fps
        deadline = time.monotonic()
        while True:
            number = state["number"]
            data = held(number // hold_frames) if hold_frames else frames.gray(number, args.noise)
            buffer = Gst.Buffer.new_wrapped(data)
            # Noted before the push: the encoder's thread can put the frame out before
            # push-buffer returns here.
            pushed.append(number)
            # Pushed only while the media plays, and never into a full queue (a slow
            # encoder): a frame pushed while gst-rtsp-server holds the media paused
            # between DESCRIBE and PLAY (a loaded machine) gets a time stamp that never
            # comes due once it plays, and the stream stays silent until the client
            # gives up (seen: a restarted camera silent for lectord's whole 10 s open
            # timeout, RTCP reports only).
            while (source.get_state(0)[1] != Gst.State.PLAYING
                   or source.get_property("current-level-bytes") + len(data) > queue_bytes):
                time.sleep(0.005)
            if source.emit("push-buffer", buffer) != Gst.FlowReturn.OK:
                return
            state["number"] = number + 1
            deadline += interval
            time.sleep(max(0, deadline - time.monotonic()))

    def encoded(_pad, info):
        if pushed:
            number = pushed.popleft()
            if log:
                log.write("%d %.6f\n" % (number, time.monotonic()))
        return Gst.PadProbeReturn.OK

    def configure(_factory, media):
        pushed.clear()
        media.get_element().get_by_name("encoder").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, encoded)
        source = media.get_element().get_by_name("source")
        threading.Thread(target=pump, args=(source,), daemon=True).start()

    factory.connect("media-configure", configure)
    server.get_mount_points().add_factory("/cam", factory)
    server.attach(None)
    print("rtsp server on 127.0.0.1:%d/cam" % args.port, flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
