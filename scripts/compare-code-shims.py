#!/usr/bin/python3
"""Compares builds of the codes shim (Sources/CZXing/codes.cpp) side by side, frame by
frame in one process (issue 48): recall per format on scripts/make-code-scenes.py's
frames, and the shim's CPU time a search, with and without codes in the image.

    g++ -O2 -shared -fPIC -I Sources/CZXing/include -o /tmp/new.so Sources/CZXing/codes.cpp Sources/CZXing/rectify.cpp -lZXing
    git show main:Sources/CZXing/codes.cpp > /tmp/old.cpp && g++ ... -o /tmp/old.so /tmp/old.cpp -lZXing
    scripts/compare-code-shims.py FRAMES /tmp/old.so /tmp/new.so [--still IMAGE] [--missed]

Frames are read as PIL's gray (ITU-R 601 luma, what lectord's JPEG decoder gives to
within rounding). A UPC-A counts as the EAN-13 with a leading 0 it is (scripts/eval-codes.py).
`--still` (default: the demo's first frame, text and no code) times 20 searches of it
per build, interleaved: the ratio to the first build is what the search costs more.
"""
import argparse
import collections
import ctypes
import json
import os
import sys
import time

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["qr", "micro_qr", "data_matrix", "aztec", "pdf417", "ean13", "ean8", "upc_a", "upc_e", "code128", "code39",
         "code93", "itf", "codabar"]


class Code(ctypes.Structure):
    _fields_ = [("format", ctypes.c_uint32), ("text", ctypes.c_char_p), ("bytes", ctypes.c_void_p),
                ("byte_count", ctypes.c_size_t), ("corners", ctypes.c_int32 * 8)]


def load(path):
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.lector_codes_read.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint32,
                                      ctypes.POINTER(ctypes.POINTER(Code)), ctypes.c_char_p, ctypes.c_size_t]
    return lib


def read(lib, image):
    """(format, text) of the codes the shim finds in the gray PIL `image` (every format)."""
    codes, error = ctypes.POINTER(Code)(), ctypes.create_string_buffer(256)
    count = lib.lector_codes_read(image.tobytes(), image.width, image.height, image.width, (1 << 14) - 1,
                                  ctypes.byref(codes), error, 256)
    if count < 0:
        raise RuntimeError(error.value.decode())
    found = [(NAMES[codes[i].format.bit_length() - 1], codes[i].text.decode()) for i in range(count)]
    if count:
        lib.lector_codes_free(codes, count)
    return found


def named(found, wanted):
    """`found` named as the truth names it (a UPC-A as the EAN-13 with a leading 0)."""
    result = set()
    for code in found:
        names = {code} | ({("ean13", "0" + code[1])} if code[0] == "upc_a" else set())
        result |= (names & wanted) or {code}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("frames")
    parser.add_argument("shims", nargs="+")
    parser.add_argument("--still", default=os.path.join(HERE, "..", "Sources", "LectorCapture", "Resources", "demo", "frame-00.png"))
    parser.add_argument("--missed", action="store_true", help="list the readable codes missed")
    args = parser.parse_args()
    shims = [(os.path.basename(path), load(path)) for path in args.shims]
    truth = json.load(open(os.path.join(args.frames, "truth.json")))["frames"]
    counts = {name: collections.defaultdict(lambda: [0, 0]) for name, _ in shims}
    cpu, false, missed = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    for entry in truth:
        image = Image.open(os.path.join(args.frames, entry["file"])).convert("L")
        wanted = {(c["format"], c["text"]) for c in entry["codes"]}
        for name, lib in shims:
            start = time.process_time()
            found = named(read(lib, image), wanted)
            cpu[name] += time.process_time() - start
            false[name] += len(found - wanted)
            for code in (c for c in entry["codes"] if c["readable"]):
                hit = (code["format"], code["text"]) in found
                counts[name][code["format"]][0] += 1
                counts[name][code["format"]][1] += hit
                if not hit:
                    missed[name].append("%s %s %dpx %.0f°" % (entry["file"], code["format"], code["module"], code["tilt"]))
    still = Image.open(args.still).convert("L")
    still_cpu = collections.Counter()
    for _ in range(20):
        for name, lib in shims:
            start = time.process_time()
            read(lib, still)
            still_cpu[name] += time.process_time() - start
    first = shims[0][0]
    for name, _ in shims:
        readable = sum(c[0] for c in counts[name].values())
        found = sum(c[1] for c in counts[name].values())
        print("%s: %d/%d readable codes (%.3f), %d not in the frames; %.1f ms a frame; still image %.2f ms a search (%.3f of %s)"
              % (name, found, readable, found / readable, false[name], 1000 * cpu[name] / len(truth),
                 1000 * still_cpu[name] / 20, still_cpu[name] / still_cpu[first], first))
        print("    " + ", ".join("%s %d/%d" % (f, c[1], c[0]) for f, c in sorted(counts[name].items())))
        if args.missed:
            print("    missed: " + "; ".join(missed[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
