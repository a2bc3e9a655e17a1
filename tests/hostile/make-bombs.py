#!/usr/bin/env python3
"""Writes decompression bombs and other hostile frame files into a folder (argument 1),
with the standard library and jpegtran (Debian libjpeg-turbo-progs):

- png-bomb.png        a 20000x20000 8-bit gray PNG of zeros (~400 KB, 400 MB decoded)
- png-bomb-rgba.png   the same in RGBA (1.6 GB decoded)
- jpeg-8000.jpg       a progressive JPEG whose header declares 8000x8000
- jpeg-scans.jpg      a 640x480 progressive JPEG carrying 2,000 scans
"""
import os
import random
import struct
import subprocess
import sys
import zlib


def png(path, width, height, color_type, channels):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    compressor = zlib.compressobj(9)
    row = bytes(1 + width * channels)  # filter byte 0 and zeros
    parts = [compressor.compress(row) for _ in range(height)]
    parts.append(compressor.flush())
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        out.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)))
        out.write(chunk(b"IDAT", b"".join(parts)))
        out.write(chunk(b"IEND", b""))


def progressive_jpeg(width, height):
    """A progressive JPEG of noise, through jpegtran from a baseline PGM-encoded JPEG."""
    rng = random.Random(7)
    pgm = b"P5 %d %d 255\n" % (width, height) + bytes(rng.getrandbits(8) for _ in range(width * height))
    baseline = subprocess.run(["cjpeg", "-grayscale", "-quality", "90"], input=pgm, capture_output=True, check=True).stdout
    return subprocess.run(["jpegtran", "-progressive"], input=baseline, capture_output=True, check=True).stdout


def segments(jpeg):
    """Splits a JPEG into (marker, bytes) pieces; a scan's piece runs to the next marker."""
    pieces, index = [], 2
    while index < len(jpeg):
        assert jpeg[index] == 0xFF
        marker = jpeg[index + 1]
        if marker == 0xD9:
            pieces.append((marker, jpeg[index:index + 2]))
            break
        length = struct.unpack(">H", jpeg[index + 2:index + 4])[0]
        end = index + 2 + length
        if marker == 0xDA:  # entropy-coded data follows until a marker that is not a stuffed byte or RST
            while not (jpeg[end] == 0xFF and jpeg[end + 1] not in (0x00,) and not 0xD0 <= jpeg[end + 1] <= 0xD7):
                end += 1
        pieces.append((marker, jpeg[index:end]))
        index = end
    return pieces


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    png(os.path.join(folder, "png-bomb.png"), 20000, 20000, 0, 1)
    png(os.path.join(folder, "png-bomb-rgba.png"), 20000, 20000, 6, 4)
    base = progressive_jpeg(640, 480)
    pieces = segments(base)
    scans = [piece for marker, piece in pieces if marker == 0xDA]
    head = b"\xff\xd8" + b"".join(piece for marker, piece in pieces if marker not in (0xDA, 0xD9))
    with open(os.path.join(folder, "jpeg-scans.jpg"), "wb") as out:
        out.write(head + b"".join(scans) + min(scans, key=len) * 2000 + b"\xff\xd9")
    # The same file, its frame header (SOF2) declaring 8000x8000.
    big = bytearray(head + b"".join(scans) + b"\xff\xd9")
    sof = big.index(b"\xff\xc2")
    big[sof + 5:sof + 9] = struct.pack(">HH", 8000, 8000)
    with open(os.path.join(folder, "jpeg-8000.jpg"), "wb") as out:
        out.write(big)


if __name__ == "__main__":
    main()
