#!/usr/bin/env python3
"""lector-bench's peer: what a user would write with pytesseract.

Reads requests from stdin, one per line:
  PATH                      an image file (Image.open keeps its format: pytesseract
                            hands the tesseract CLI a copy in that format)
  rgb WIDTH HEIGHT PATH     a camera frame: packed RGB bytes, as OpenCV's capture gives
                            (after BGR to RGB); like a numpy array, the image has no
                            format, so pytesseract writes it as PNG
For each, runs pytesseract.image_to_data (the tesseract CLI, PSM 3) and answers
"ok WORD WORD ..." on stdout. lector-bench times each answer; reading the file is
part of the time only for the PATH form, where it is what a user's loop would do too.
"""
import sys

import pytesseract
from PIL import Image


def main():
    frames = {}
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        try:
            if fields[0] == "rgb":
                width, height, path = int(fields[1]), int(fields[2]), fields[3]
                if path not in frames:  # the camera hands over a frame in memory
                    with open(path, "rb") as data:
                        frames[path] = data.read()
                image = Image.frombytes("RGB", (width, height), frames[path])
            else:
                image = Image.open(fields[0])
            data = pytesseract.image_to_data(image, config="--psm 3", output_type=pytesseract.Output.DICT)
            words = [word.strip() for word in data["text"] if word.strip()]
            print("ok " + " ".join(words), flush=True)
        except Exception as error:  # report and go on: the benchmark counts a failure
            print("error %s" % str(error).replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
