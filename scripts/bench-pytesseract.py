#!/usr/bin/env python3
"""lector-bench's peer: what a user would write with pytesseract.

Reads image paths from stdin, one per line; for each, runs pytesseract.image_to_data
(which writes the image to a temporary file and runs the tesseract CLI, PSM 3) and
answers "ok WORD WORD ..." on stdout. lector-bench times each answer.
"""
import sys

import pytesseract
from PIL import Image


def main():
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        try:
            data = pytesseract.image_to_data(Image.open(path), config="--psm 3", output_type=pytesseract.Output.DICT)
            words = [word.strip() for word in data["text"] if word.strip()]
            print("ok " + " ".join(words), flush=True)
        except Exception as error:  # report and go on: the benchmark counts a failure
            print("error %s" % str(error).replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
