#!/usr/bin/env python3
"""scripts/eval-realworld.py's peer: RapidOCR (PP-OCRv6's small detector, recognizer and
direction classifier on ONNX Runtime), as a user would run it, on one thread.

Loads RapidOCR once and says what that cost, {"start_s": the process's CPU seconds once
loaded: the interpreter, the imports and the three ONNX Runtime sessions, the same as
lectord's start}; then reads requests from stdin, one image path per line, and answers
each with one JSON line: {"text": the lines read, joined by newlines, "cpu_s": the
process's CPU seconds for that read}. Run it with a Python that has
`pip install rapidocr==3.10.0 onnxruntime==1.32.0` (scripts/eval-realworld.py
--rapidocr PYTHON; by default .build/rapidocr-venv/bin/python3).
"""
import json
import logging
import sys
import time

from rapidocr import RapidOCR


def main():
    logging.disable(logging.WARNING)
    engine = RapidOCR(params={
        "Global.log_level": "error",
        "EngineConfig.onnxruntime.intra_op_num_threads": 1,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    })
    print(json.dumps({"start_s": time.process_time()}), flush=True)
    for line in sys.stdin:
        path = line.strip()
        if not path:
            continue
        started = time.process_time()
        try:
            result = engine(path)
            text = "\n".join(result.txts or ())
        except Exception as error:  # report and go on: the comparison counts a failure
            print(json.dumps({"error": str(error)}), flush=True)
            continue
        print(json.dumps({"text": text, "cpu_s": time.process_time() - started}), flush=True)


if __name__ == "__main__":
    main()
