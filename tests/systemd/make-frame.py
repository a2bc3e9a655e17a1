#!/usr/bin/env python3
"""Turns an 8-bit grayscale PNG with known text into one raw YUYV frame for vivid's
output node (loop mode): the image centred on a WIDTHxHEIGHT canvas of its corner
colour, chroma neutral (128). Standard library only.

usage: make-frame.py PNG WIDTH HEIGHT OUT.yuyv
"""
import struct
import sys
import zlib


def gray_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, color, interlace) != (8, 0, 0):
                raise SystemExit(f"{path}: need an 8-bit grayscale, non-interlaced PNG")
        elif kind == b"IDAT":
            idat += body
    raw, rows, prev = zlib.decompress(idat), [], bytearray(width)
    for y in range(height):
        kind = raw[y * (width + 1)]
        line = bytearray(raw[y * (width + 1) + 1:(y + 1) * (width + 1)])
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
    png, width, height, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    w, h, rows = gray_png(png)
    background = rows[0][0]
    left, top = (width - w) // 2, (height - h) // 2
    frame = bytearray()
    for y in range(height):
        sy = y - top
        luma = bytearray([background]) * width
        if 0 <= sy < h:
            for x in range(max(0, left), min(width, left + w)):
                luma[x] = rows[sy][x - left]
        for x in range(0, width, 2):
            frame += bytes((luma[x], 128, luma[x + 1], 128))
    open(out, "wb").write(frame)


main()
