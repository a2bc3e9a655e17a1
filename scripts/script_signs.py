"""Reading the signs of scripts/make-script-frames.py and scoring the reads, shared by
scripts/eval-script-frames.py and tests/languages."""
import json
import os
import subprocess


def characters(text):
    return [c for c in text if not c.isspace()]


def recall(truth, read):
    """The truth's characters (spaces left out) found in the text read, counted as
    multisets, over the truth's characters."""
    want, got = {}, {}
    for c in characters("".join(truth)):
        want[c] = want.get(c, 0) + 1
    for c in characters(read):
        got[c] = got.get(c, 0) + 1
    return sum(min(n, got.get(c, 0)) for c, n in want.items()) / max(1, sum(want.values()))


def in_order(truth, read):
    """The truth's characters found in the text read in their order (the longest common
    subsequence, spaces left out), over the truth's characters: below ``recall`` when
    characters are swapped."""
    want, got = characters("".join(truth)), characters(read)
    row = [0] * (len(got) + 1)
    for a in want:
        previous = 0
        for j, b in enumerate(got):
            previous, row[j + 1] = row[j + 1], previous + 1 if a == b else max(row[j + 1], row[j])
    return row[-1] / max(1, len(want))


# How far below the fixed language's recall (and characters in order) auto may read.
TOLERANCE = 0.05


def within(entry, fixed_text, auto_text):
    """Whether auto's read of the sign `entry` is within TOLERANCE of the fixed
    language's, in recall and in characters in order."""
    lines = entry["lines"]
    return (recall(lines, auto_text) >= recall(lines, fixed_text) - TOLERANCE
            and in_order(lines, auto_text) >= in_order(lines, fixed_text) - TOLERANCE)


def languages_right(entry, languages):
    """Whether every block's `language` is the sign's (a kanji-only Japanese sign may
    read as Chinese: the characters are scored, not the name)."""
    allowed = {entry["lang"]} | ({"chi_sim"} if entry.get("kanji_only") else set())
    return bool(languages) and set(languages) <= allowed


def read(lectord, frame, lang, socket, env, *extra):
    """(text, sorted block languages, lectord's stderr) of one read of `frame`
    (`lectord --replay FRAME --stdout --max-frames 1`)."""
    result = subprocess.run([lectord, "--replay", frame, "--stdout", "--max-frames", "1", "--lang", lang,
                             "--socket", socket] + list(extra), capture_output=True, text=True, timeout=600, env=env)
    for line in result.stdout.splitlines():
        message = json.loads(line)
        if message.get("class") == "TEXT":
            languages = sorted({b.get("language", "?") for b in message.get("blocks", [])})
            return message.get("text", ""), languages, result.stderr
    raise RuntimeError("no TEXT from lectord --lang %s on %s (exit %d): %s" % (
        lang, frame, result.returncode, result.stderr[-1500:]))


def frames(directory):
    """(frame path, truth entry) of each sign in `directory`, in the truth's order."""
    with open(os.path.join(directory, "truth.json")) as f:
        truth = json.load(f)
    return [(os.path.join(directory, "%s.jpg" % name), entry) for name, entry in truth.items()]
