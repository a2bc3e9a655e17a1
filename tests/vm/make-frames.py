#!/usr/bin/env python3
"""Converts a gray PNG with known text into raw V4L2 frames for vivid's output node.

usage: make-frames.py PNG WIDTH HEIGHT OUTDIR

Writes OUTDIR/frame.GREY, frame.YUYV, frame.NV12 and frame.YU12: the image centred on
a WIDTHxHEIGHT canvas of its own background colour (cropped if larger), luma as-is,
chroma neutral (128), so the frame is gray in every format. Standard library only
(the PNG decoder handles the 8-bit grayscale, non-interlaced PNGs that
scripts/make-fixtures.py writes).
"""
import os
import struct
import sys
import zlib


def read_gray_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color != 0 or interlace != 0:
                raise SystemExit(f"{path}: need an 8-bit grayscale non-interlaced PNG")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(width), width + 1
    for y in range(height):
        kind, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
        for x in range(width):
            a = line[x - 1] if x else 0
            b = prev[x]
            c = prev[x - 1] if x else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, rows


def main():
    png, width, height, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    w, h, rows = read_gray_png(png)
    background = rows[0][0]
    canvas = [bytearray([background]) * width for _ in range(height)]
    ox, oy = (width - w) // 2, (height - h) // 2
    for y in range(h):
        ty = y + oy
        if 0 <= ty < height:
            for x in range(w):
                tx = x + ox
                if 0 <= tx < width:
                    canvas[ty][tx] = rows[y][x]
    luma = b"".join(bytes(row) for row in canvas)
    os.makedirs(outdir, exist_ok=True)
    chroma420 = b"\x80" * ((width // 2) * (height // 2) * 2)
    frames = {
        "GREY": luma,
        "YUYV": b"".join(bytes(v for px in row for v in (px, 128)) for row in canvas),
        "NV12": luma + chroma420,
        "YU12": luma + chroma420,
    }
    for name, frame in frames.items():
        with open(os.path.join(outdir, "frame." + name), "wb") as out:
            out.write(frame)


main()
