"""A connection to lectord's socket: requests, replies and the watched stream."""
import base64
import json
import os
import pwd
import socket as _socket
import struct

from .errors import ConnectionLost, ErrorReply, NoPermission, NotRunning, ProtocolError, TimedOut, UntrustedServer
from .protocol import parse
from .sockets import default_socket_path

__all__ = ["Client", "watch", "tracks", "matches", "codes", "MAX_LINE"]

#: The longest line lectord sends, newline included (docs/PROTOCOL.md).
MAX_LINE = 16 * 1024 * 1024
#: The user the lectord service runs as (systemd/lectord.service).
SERVICE_USER = "lector"
#: Stream classes skipped while waiting for a reply.
_STREAM = ("TEXT", "FRAME", "TRACK", "MATCH", "CODE", "OVERFLOW", "DEVICES")


def _devices(device):
    if device is None:
        return None
    return [device] if isinstance(device, str) else list(device)


class Client:
    """One connection to lectord. `socket` is the socket's path (default: as the
    `lector` command finds it, see `default_socket_path`); `timeout` bounds each wait
    for a reply, in seconds. Use it in a `with` block, or call `close()`.

    Raises `NotRunning` when nothing listens on the socket."""

    def __init__(self, socket=None, timeout=10.0):
        self.path = socket or default_socket_path()
        self.timeout = timeout
        self._sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        self._buffer = b""
        self._last_error = None
        try:
            self._sock.settimeout(timeout)
            self._sock.connect(self.path)
            self._check_peer()
            #: lectord's VERSION: {"release", "proto_major", "proto_minor"}.
            self.version = self.read()
        except PermissionError:
            self._sock.close()
            raise NoPermission(self.path) from None
        except OSError as error:
            self._sock.close()
            raise NotRunning(self.path, error.strerror or str(error)) from None
        except BaseException:
            self._sock.close()
            raise
        if not isinstance(self.version, dict) or self.version.get("class") != "VERSION":
            self._sock.close()
            raise ProtocolError("lectord did not greet with VERSION: %r" % (self.version,))

    def _check_peer(self):
        """The server is this user, root or the service user (SO_PEERCRED), as `lector` checks."""
        credentials = self._sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", credentials)
        if uid in (0, os.getuid()):
            return
        try:
            if pwd.getpwnam(SERVICE_USER).pw_uid == uid:
                return
        except KeyError:
            pass
        self._sock.close()
        raise UntrustedServer(self.path, uid)

    # ------------------------------------------------------------ lines

    def send(self, request):
        """Sends one request (a dict with "class")."""
        try:
            self._sock.sendall(json.dumps(request, separators=(",", ":")).encode() + b"\n")
        except OSError as error:
            raise ConnectionLost(self._last_error or error.strerror) from None

    def read_raw(self, timeout=None):
        """The next message as a dict; waits `timeout` seconds (None: for ever)."""
        self._sock.settimeout(timeout)
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                raise ProtocolError("a line longer than %d bytes" % MAX_LINE)
            try:
                chunk = self._sock.recv(1 << 16)
            except _socket.timeout:
                raise TimedOut("no message from lectord within %s s" % timeout) from None
            except OSError as error:
                raise ConnectionLost(self._last_error or error.strerror) from None
            if not chunk:
                raise ConnectionLost(self._last_error)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line.rstrip(b"\r"))
        except ValueError as error:
            raise ProtocolError("not JSON from lectord: %s" % error) from None
        except RecursionError:
            # Nesting deeper than Python's recursion limit (lectord's messages are a few deep).
            raise ProtocolError("a line from lectord nested too deep") from None
        if not isinstance(message, dict) or not isinstance(message.get("class"), str):
            raise ProtocolError(("a message without a class: %r" % (message,))[:200])
        self._last_error = message.get("message") if message["class"] == "ERROR" else None
        return message

    def read(self, timeout=None):
        """The next message: a `Text`, `Track` or `Match`, or a dict for other classes."""
        return parse(self.read_raw(timeout))

    def request(self, request):
        """Sends `request` and returns its reply (a dict), skipping stream messages;
        raises `ErrorReply` when lectord refuses it."""
        self.send(request)
        while True:
            message = self.read_raw(self.timeout)
            if message["class"] == "ERROR":
                raise ErrorReply(message.get("message", ""), message.get("request"))
            if message["class"] == request["class"] or message["class"] not in _STREAM:
                return message

    # ------------------------------------------------------------ requests

    def devices(self):
        """The cameras: a list of DEVICE dicts (path, name, state, format, ...)."""
        return self.request({"class": "DEVICES"})["devices"]

    def status(self):
        """The STATUS reply (uptime, clients, per-camera counters) as a dict."""
        return self.request({"class": "STATUS"})

    def snapshot(self, device=None, boxes=False, max_width=None):
        """The JPEG of the frame behind the camera's latest text, as bytes."""
        request = {"class": "SNAPSHOT", "boxes": boxes}
        if device:
            request["device"] = device
        if max_width:
            request["max_width"] = max_width
        return base64.b64decode(self.request(request)["data"])

    def stream(self, device=None, text=True, tracks=False, matches=False, level="word", min_confidence=None,
               changes_only=False, codes=False):
        """Watches and yields what comes: `Text`, `Track`, `Match` and `Code` objects, as
        asked. Ends with `ConnectionLost` when lectord stops."""
        watch = {"class": "WATCH", "enable": True, "text": text, "frame": False, "level": level,
                 "tracks": tracks, "matches": matches, "changes_only": changes_only}
        if codes:
            watch["codes"] = True
        if _devices(device):
            watch["devices"] = _devices(device)
        if min_confidence is not None:
            watch["min_confidence"] = min_confidence
        self.request(watch)
        while True:
            message = self.read()
            if isinstance(message, dict):
                if message["class"] == "ERROR":
                    raise ErrorReply(message.get("message", ""), message.get("request"))
                continue
            yield message

    def close(self):
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _generate(socket, **options):
    with Client(socket) as client:
        yield from client.stream(**options)


def watch(device=None, socket=None, level="word", min_confidence=None, changes_only=False):
    """Yields one `Text` per frame lectord reads (of `device`, a camera's name or a list
    of them; default every camera): `.text` is the whole text, `.lines` its lines.

        for text in lector.watch():
            print(text.device, text.text)

    Raises `NotRunning` when lectord is not running, `ConnectionLost` when it stops,
    `ErrorReply` for an unknown device."""
    return _generate(socket, device=device, level=level, min_confidence=min_confidence, changes_only=changes_only)


def tracks(device=None, socket=None):
    """Yields one `Track` per line that settles (`event` "new"), changes ("changed") or
    leaves the view ("gone")."""
    return _generate(socket, device=device, text=False, tracks=True)


def matches(device=None, socket=None):
    """Yields one `Match` per match of lectord's rules (`[rule ...]` in its configuration)."""
    return _generate(socket, device=device, text=False, matches=True)


def codes(device=None, socket=None):
    """Yields one `Code` per QR code or barcode coming into view (cameras with `codes`)."""
    return _generate(socket, device=device, text=False, codes=True)
