"""A Python client of lectord, Lector's OCR camera daemon (pure standard library).

    import lector

    for text in lector.watch():              # every camera; watch("demo") for one
        print(text.device, text.text)        # the whole text of one frame
        for line in text.lines:
            print(" ", line.confidence, line.text, line.box)

`watch` yields `Text` objects, `tracks` yields `Track` (a line that settled, changed or
went), `matches` yields `Match` (lectord's rules), `codes` yields `Code` (QR codes and
barcodes coming into view); `Client` sends single requests
(`devices()`, `status()`, `snapshot()`). The socket is found as the `lector` command
finds it ($LECTOR_SOCKET, /run/lector/lector.sock, $XDG_RUNTIME_DIR/lector.sock, ...).
Errors are `LectorError`s: `NotRunning` when lectord is not running.
"""
from .client import Client, codes, matches, tracks, watch
from .errors import ConnectionLost, ErrorReply, LectorError, NoPermission, NotRunning, ProtocolError, TimedOut, UntrustedServer
from .protocol import Block, Box, Code, Line, Match, Text, Track, Word
from .sockets import default_socket_path

__version__ = "0.1.0"
__all__ = ["watch", "tracks", "matches", "codes", "Client", "default_socket_path", "Text", "Block", "Line", "Word", "Box", "Track",
           "Match", "Code", "LectorError", "NotRunning", "NoPermission", "UntrustedServer", "ConnectionLost", "ErrorReply", "ProtocolError",
           "TimedOut"]
