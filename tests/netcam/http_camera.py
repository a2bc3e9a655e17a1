#!/usr/bin/python3
"""A small HTTP camera for tests/netcam, as ESP32-CAM, ustreamer and motion serve one:
an MJPEG stream (multipart/x-mixed-replace) at /stream and a JPEG snapshot at /snapshot,
of the frames of frames.py with their running number (the number advances at --fps
whether anyone watches or not).

    http_camera.py --port N [--fps F] [--size WxH] [--user U --password P]
                   [--garbage] [--hostile MODE] [--log FILE] [--frames-dir DIR] [--tls PEM]

Listens on 127.0.0.1 only; with --tls (a PEM file with the key and its certificate),
HTTPS. With --user, both paths want HTTP Basic authentication.
--garbage answers every request with bytes that are no image. --hostile (issue 45) makes
/stream misbehave after two good frames: `huge-part` declares a part of 2,000,000,000
bytes and floods; `no-boundary` sends a part without a length that never ends; any path:
`header-flood` sends header lines without end; `ffconcat` answers with an ffconcat
playlist naming a local file. A flood ends by itself after FLOOD_SECONDS. Every frame served is
logged to --log as "NUMBER MONOTONIC_SECONDS". --frames-dir writes the JPEGs it serves
(the same bytes) for a replay of the same frames. SIGSTOP/SIGCONT pause it.
"""
import argparse
import base64
import http.server
import os
import socketserver
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import Frames  # noqa: E402

BOUNDARY = "lectorframe"
FLOOD_SECONDS = 60
FLOOD_BLOCK = bytes((i * 7 + 1) % 251 for i in range(1 << 20))  # no boundary, no JPEG marker pair


def flood(write, seconds=FLOOD_SECONDS):
    """Writes FLOOD_BLOCK as fast as the reader takes it, for `seconds` at most."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            write(FLOOD_BLOCK)
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass


class Clock:
    """The frame number now: it runs at the camera's rate from the server's start."""

    def __init__(self, fps):
        self.fps = fps
        self.start = time.monotonic()

    def number(self):
        return int((time.monotonic() - self.start) * self.fps)

    def wait_for(self, number):
        time.sleep(max(0, self.start + number / self.fps - time.monotonic()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fps", type=float, default=10)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--hostile", choices=("huge-part", "no-boundary", "header-flood", "ffconcat"))
    parser.add_argument("--log")
    parser.add_argument("--frames-dir")
    parser.add_argument("--tls")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    frames = Frames(width, height)
    clock = Clock(args.fps)
    log = open(args.log, "a", buffering=1) if args.log else None
    lock = threading.Lock()
    cache = {}

    def jpeg(number):
        with lock:
            if number not in cache:
                cache.clear()
                cache[number] = frames.jpeg(number)
                if args.frames_dir:
                    with open(os.path.join(args.frames_dir, "frame-%06d.jpg" % number), "wb") as f:
                        f.write(cache[number])
            if log:
                log.write("%d %.6f\n" % (number, time.monotonic()))
            return cache[number]

    expected = "Basic " + base64.b64encode(("%s:%s" % (args.user, args.password)).encode()).decode() if args.user else None

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *_):
            pass

        def do_GET(self):
            if expected and self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="camera"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if args.hostile == "header-flood":
                self.wfile.write(b"HTTP/1.0 200 OK\r\n")
                line = b"X-Padding: " + b"a" * 1000 + b"\r\n"
                flood(lambda _block: self.wfile.write(line * 1000))
                return
            if args.hostile == "ffconcat":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"ffconcat version 1.0\nfile /etc/hostname\nfile /etc/os-release\n")
                return
            if args.garbage:
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.end_headers()
                self.wfile.write(b"this is no picture at all " * 200)
                return
            path = self.path.split("?")[0]
            if path == "/snapshot":
                data = jpeg(clock.number())
                self.send_response(200)
                self.send_header("Content-Type", "image/jpeg")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif path == "/stream":
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace;boundary=" + BOUNDARY)
                self.end_headers()
                first = clock.number()
                number = clock.number()
                try:
                    while True:
                        if args.hostile and number >= first + 2:
                            return self.misbehave()
                        data = jpeg(number)
                        self.wfile.write(("--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                                          % (BOUNDARY, len(data))).encode() + data + b"\r\n")
                        self.wfile.flush()
                        number += 1
                        clock.wait_for(number)
                        number = max(number, clock.number())
                except (BrokenPipeError, ConnectionResetError):
                    return
            else:
                self.send_error(404)

        def misbehave(self):
            length = "Content-Length: 2000000000\r\n" if args.hostile == "huge-part" else ""
            self.wfile.write(("--%s\r\nContent-Type: image/jpeg\r\n%s\r\n" % (BOUNDARY, length)).encode() + b"\xff\xd8")
            flood(self.wfile.write)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", args.port), Handler)
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("http%s camera on 127.0.0.1:%d" % ("s" if args.tls else "", args.port), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
