#!/usr/bin/env python3
"""lector speak against a real lectord and the real espeak-ng (see run).

What is spoken is checked in WAV files (`lector speak --wav DIR`): one per settled
line, none for a text said again within --repeat-after, each the WAV espeak-ng makes of
that text (same duration, same phonemes through `espeak-ng -q -x`), cut short when the
scene changes while it is being said (the file then holds what was heard)."""
import difflib
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import wave

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import DEMO, ENV, FIXTURES, LECTOR, ROOT, Daemon, Process, Suite, lector, wait_for, workdir  # noqa: E402

suite = Suite("speak")
test = suite.test
check = suite.check

# The demo's pages (lectortest.DEMO) are each held 8 s.
PAGE_SECONDS = 8


def espeak(text, voice, rate, *args):
    """Runs espeak-ng on `text` (standard input): its standard output."""
    return subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate)] + list(args) + ["--stdin"], input=text + "\n",
                          capture_output=True, text=True, timeout=60, check=True).stdout


def phonemes(text, voice="en", rate=175):
    """What espeak-ng says for `text`, as phoneme mnemonics (`espeak-ng -q -x`)."""
    return espeak(text, voice, rate, "-q", "-x").strip()


def full_seconds(text, voice, rate, folder):
    """How long espeak-ng's WAV of `text` lasts."""
    path = os.path.join(folder, "reference.wav")
    espeak(text, voice, rate, "-w", path)
    return seconds(path)


def seconds(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def recordings(folder):
    """The WAV files `lector speak --wav` wrote, in order: notes, phonemes, duration."""
    out = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".wav")):
        base = os.path.join(folder, name[:-4])
        with open(base + ".json") as f:
            notes = json.load(f)
        with open(base + ".phonemes") as f:
            spoken = f.read().strip()
        out.append(dict(notes, number=int(name[:-4]), phonemes=spoken, duration=seconds(base + ".wav")))
    return out


def check_recordings(where, records, folder):
    """Each WAV is espeak-ng's of its text: the phonemes it spoke are those of the text,
    a whole one lasts as long as espeak-ng's own WAV, a cut one less, as its notes say."""
    bad = []
    for r in records:
        full = full_seconds(r["text"], r["voice"], r["rate"], folder)
        if r["phonemes"] != phonemes(r["text"], r["voice"], r["rate"]):
            bad.append((r["number"], "phonemes", r["phonemes"]))
        if abs(r["duration"] - r["spoken_seconds"]) > 0.01 or abs(r["seconds"] - full) > 0.01:
            bad.append((r["number"], "duration", r["duration"], r["spoken_seconds"], full))
        if r["interrupted"] != (r["duration"] < full - 0.01):
            bad.append((r["number"], "cut", r["interrupted"], r["duration"], full))
    check("%s: %d WAVs (%s s), each espeak-ng's of its text: its phonemes; whole ones as long as espeak-ng's own WAV, cut ones shorter"
          % (where, len(records), "/".join("%.2f" % r["duration"] for r in records)), records and not bad, bad)


def truth_of(text, lines):
    """The known line `text` reads (at least 0.85 alike), or None."""
    best = max(lines, key=lambda line: difflib.SequenceMatcher(None, text, line).ratio())
    return best if difflib.SequenceMatcher(None, text, best).ratio() >= 0.85 else None


def speak(socket, folder, *args):
    return Process([LECTOR, "speak", "--socket", socket, "--wav", folder] + list(args),
                   os.path.join(os.path.dirname(folder), "speak.log")).start()


def tracks_watcher(socket, folder):
    """`lector watch --tracks`, beside the speaker: how often each line settled."""
    return Process([LECTOR, "watch", "--tracks", "--socket", socket], os.path.join(folder, "watch.log"),
                   stdout=open(os.path.join(folder, "tracks.txt"), "w")).start()


def settled(folder):
    with open(os.path.join(folder, "tracks.txt")) as f:
        return [line.split(" ", 2)[2].strip().strip('"') for line in f if line.startswith("+ ")]


@test
def demo_read_aloud_once_per_settled_line():
    """The demo (4 pages, 8 s each) for a round and a page: each line said once, in
    reading order, as espeak-ng says it; the first page, settled again, not said again.
    (A long deadline: whole reads, as on an idle machine, not the partial reads of a
    loaded one, which make a page wait longer before it is said.)"""
    folder = workdir("lector-speak-")
    wavs = os.path.join(folder, "wav")
    all_lines = [line for page in DEMO for line in page]
    with Daemon("--demo", "--fps", "5", "--deadline-ms", "10000") as d:
        watcher = tracks_watcher(d.path, folder)
        speaker = speak(d.path, wavs, "--rate", "400")
        wait_for(lambda: os.path.exists(os.path.join(wavs, "0001.json")), 90, "a first line said")
        time.sleep(len(DEMO) * PAGE_SECONDS + PAGE_SECONDS)
        status = speaker.stop(signal.SIGTERM)
        watcher.stop()
    check("lector speak ends with 0 on SIGTERM", status == 0, speaker.logtext()[-500:])
    records = recordings(wavs)
    check_recordings("demo", records, folder)
    truths = [truth_of(r["text"], all_lines) for r in records]
    check("demo: every WAV says a line of the demo (as read: %s)" % [r["text"] for r in records], None not in truths, truths)
    # Pages 1, 2 and 4 take 3-4 s to say at 400 words a minute; the third, 5 s, may not fit
    # in its 8 s on a loaded machine (its lines settle late): only its last lines may then
    # be cut or left unsaid, when the fourth page comes.
    said = {t for t, r in zip(truths, records) if t and not r["interrupted"]}
    short = [line for index, page in enumerate(DEMO) if index != 2 for line in page]
    third = [line in said for line in DEMO[2]]
    check("demo: each line of pages 1, 2 and 4 said whole, once; page 3 from its top (%s)" % third,
          set(short) <= said and third == sorted(third, reverse=True) and len(truths) == len(set(truths)),
          sorted(set(short) - said))
    order = [all_lines.index(t) for t in truths if t]
    check("demo: in reading order, page after page", order == sorted(order), order)
    exact = [r for r, t in zip(records, truths) if t and phonemes(t) == r["phonemes"]]
    check("demo: espeak-ng heard the right text: the phonemes of %d of %d WAVs are those of the known line"
          % (len(exact), len(records)), len(exact) >= len(records) - 1,
          [(r["text"], t) for r, t in zip(records, truths) if r not in exact])
    again = settled(folder).count("LECTOR READS TEXT")
    check("demo: the first page settled again (%d times) and was not said again" % again,
          again >= 2 and truths.count("LECTOR READS TEXT") == 1, settled(folder))
    cut = [t for t, r in zip(truths, records) if r["interrupted"]]
    check("demo: only a line of page 3 cut, if any (%s)" % cut, set(cut) <= set(DEMO[2]), cut)


def frames(folder, scenes, fps=5):
    """A replay folder: each (PNG, seconds) in turn, as a camera would see it at `fps`."""
    os.makedirs(folder, exist_ok=True)
    index = 0
    for png, hold in scenes:
        for _ in range(int(hold * fps)):
            shutil.copyfile(png, os.path.join(folder, "frame-%04d.png" % index))
            index += 1
    return folder


def render(folder, name, lines, **style):
    """A 640x480 camera-like frame of `lines` (scripts/make-fixtures.py's renderer, run by
    a python3 that has PIL: this one, or Debian's when this one is another, e.g. pyenv's)."""
    path = os.path.join(folder, name)
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('f', sys.argv[1]); "
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
            "m.render(eval(sys.argv[2]), (640, 480), **eval(sys.argv[3])).save(sys.argv[4])")
    python = sys.executable if importlib.util.find_spec("PIL") else "/usr/bin/python3"
    subprocess.run([python, "-c", code, os.path.join(ROOT, "scripts/make-fixtures.py"), repr(lines), repr(style), path],
                   check=True, timeout=60)
    return path


@test
def still_label_read_once():
    """A looping replay of a still label: its 3 lines said once; the label taken away
    and shown again (settling anew) is not said again."""
    lines = open(os.path.join(FIXTURES, "hello-640x480.txt")).read().split("\n")[:3]
    for where, scenes, extra in (("still label", None, 12), ("label away 2 s in every 7", True, 20)):
        folder = workdir("lector-speak-")
        wavs = os.path.join(folder, "wav")
        if scenes:
            blank = render(folder, "blank.png", [""])
            source = ["--replay", frames(os.path.join(folder, "frames"), [(os.path.join(FIXTURES, "hello-640x480.png"), 5),
                                                                        (blank, 2)]), "--loop", "--fps", "5"]
        else:
            source = ["--replay", os.path.join(FIXTURES, "hello-640x480.png"), "--loop", "--fps", "5"]
        with Daemon(*source) as d:
            watcher = tracks_watcher(d.path, folder)
            speaker = speak(d.path, wavs)
            wait_for(lambda: os.path.exists(os.path.join(wavs, "0001.json")), 90, "a first line said")
            time.sleep(extra)
            speaker.stop(signal.SIGTERM)
            watcher.stop()
        records = recordings(wavs)
        check_recordings(where, records, folder)
        check("%s: its 3 lines said once each, in order, whole" % where,
              [r["text"] for r in records] == lines and not [r for r in records if r["interrupted"]],
              [r["text"] for r in records])
        if scenes:
            check("%s: the label settled again (%d times) and was not said again" % (where, settled(folder).count(lines[0])),
                  settled(folder).count(lines[0]) >= 2, settled(folder))


@test
def markup_on_a_sign_is_said_as_written():
    """A sign in espeak-ng's phoneme markup (`[[...]]`, which espeak-ng obeys in any text)
    and one in SSML: each said as the words written, not as the sounds they spell
    (issue 39)."""
    lines = ["[[h@'loU]] world", "<speak>stop</speak>"]
    folder = workdir("lector-speak-markup-")
    wavs = os.path.join(folder, "wav")
    sign = render(folder, "sign.png", lines)
    with Daemon("--replay", sign, "--loop", "--fps", "5") as d:
        speaker = speak(d.path, wavs)
        wait_for(lambda: os.path.exists(os.path.join(wavs, "0002.json")), 90, "both lines said")
        speaker.stop(signal.SIGTERM)
    records = recordings(wavs)
    check("both lines read and said: %s" % [r["text"] for r in records], [r["text"] for r in records][:2] == lines,
          [r["text"] for r in records])
    markup, ssml = records[0], records[1]
    as_markup = phonemes(lines[0])
    check("the phoneme markup said as written (%s), not as the phonemes it spells (%s)" % (markup["phonemes"], as_markup),
          markup["phonemes"] == phonemes("[ [h@'loU]] world") and markup["phonemes"] != as_markup and "'eItS" in markup["phonemes"],
          markup["phonemes"])
    check("the SSML said as written, its tags as words: %s" % ssml["phonemes"],
          ssml["phonemes"] == phonemes(lines[1]) and "sp'i:k" in ssml["phonemes"], ssml["phonemes"])


LONG = "Expires 2026-11-02 batch 4217-3391"


@test
def scene_switch_cuts_speech_short():
    """A long line said slowly; the page is swapped for another after 10 s (long enough for its line to settle on a loaded machine): the WAV stops
    there (it holds what was heard), and the new page's lines are said whole."""
    folder = workdir("lector-speak-")
    wavs = os.path.join(folder, "wav")
    a = render(folder, "a.png", [LONG], font_size=26)
    b = render(folder, "b.png", ["THE NEXT PAGE", "has other words"])
    replay = frames(os.path.join(folder, "frames"), [(a, 10), (b, 14)])
    with Daemon("--replay", replay, "--fps", "5") as d:
        watcher = tracks_watcher(d.path, folder)
        speaker = speak(d.path, wavs, "--rate", "80")
        wait_for(lambda: os.path.exists(os.path.join(wavs, "0003.json")), 90, "three lines said")
        speaker.stop(signal.SIGTERM)
        watcher.stop()
    records = recordings(wavs)
    check_recordings("scene switch", records, folder)
    full = full_seconds(LONG, "en", 80, folder)
    first = records[0]
    check("scene switch: the long line (%.1f s whole) was cut after %.1f s, when the page changed"
          % (full, first["duration"]), truth_of(first["text"], [LONG]) and first["interrupted"]
          and 0 < first["duration"] < full - 1, first)
    check("scene switch: then the new page, whole", [r["text"] for r in records[1:3]] == ["THE NEXT PAGE", "has other words"]
          and not records[1]["interrupted"] and not records[2]["interrupted"], records[1:])


# Stands in for the sound card, which the build machine lacks: an `espeak-ng` first on
# PATH that notes each line it is given and "plays" it for 20 s, noting a SIGTERM.
SOUND_CARD = """#!/bin/sh
text=$(cat)
echo "start $text" >> "$SPEAK_LOG"
trap 'echo "cut $text" >> "$SPEAK_LOG"; exit 143' TERM
sleep 20 & wait $!
echo "done $text" >> "$SPEAK_LOG"
"""


@test
def speaker_cut_by_a_scene_switch():
    """Without --wav: one espeak-ng per line, given the line on its standard input; the
    one playing when the page changes gets SIGTERM, then the new page's first line is
    played, and SIGINT to lector speak cuts that one too (exit 0)."""
    folder = workdir("lector-speak-")
    shim = os.path.join(folder, "bin")
    os.makedirs(shim)
    with open(os.path.join(shim, "espeak-ng"), "w") as f:
        f.write(SOUND_CARD)
    os.chmod(os.path.join(shim, "espeak-ng"), 0o755)
    log = os.path.join(folder, "played.log")
    env = dict(ENV, PATH=shim + ":" + ENV["PATH"], SPEAK_LOG=log)
    a = render(folder, "a.png", [LONG], font_size=26)
    b = render(folder, "b.png", ["THE NEXT PAGE", "has other words"])
    replay = frames(os.path.join(folder, "frames"), [(a, 10), (b, 14)])
    played = lambda: open(log).read().splitlines() if os.path.exists(log) else []
    with Daemon("--replay", replay, "--fps", "5") as d:
        speaker = Process([LECTOR, "speak", "--socket", d.path], os.path.join(folder, "speak.log"), env=env).start()
        wait_for(lambda: any(line.startswith("start THE NEXT") for line in played()), 90, "the new page played")
        status = speaker.stop(signal.SIGINT)
    time.sleep(0.5)
    lines = [line.split(" ", 1)[0] + " " + (truth_of(line.split(" ", 1)[1], [LONG, "THE NEXT PAGE"]) or line)
             for line in played()]
    check("speaker: the long line cut when the page changed, the new page's first line then cut by SIGINT (exit %s)" % status,
          status == 0 and lines == ["start " + LONG, "cut " + LONG, "start THE NEXT PAGE", "cut THE NEXT PAGE"],
          (played(), speaker.logtext()[-400:]))


@test
def command_line_edges():
    status, out, err = lector("speak", "--help")
    check("lector speak --help names every option", status == 0 and all(o in out for o in (
        "--device", "--voice", "--rate", "--min-confidence", "--repeat-after", "--wav")), out)
    for args, expected in ((["--rate", "20"], "--rate"), (["--min-confidence", "2"], "--min-confidence"),
                           (["--voice", ""], "--voice"), (["--wav", ""], "--wav"), (["--count", "1"], "unknown option")):
        status, out, err = lector("speak", *args)
        check("lector speak %s: usage error" % " ".join(args), status == 2 and expected in err, (status, err))
    status, out, err = lector("speak", "--socket", "/nonexistent/lector.sock")
    check("lector speak without lectord: exit 69", status == 69 and "cannot connect" in err, (status, err))
    with Daemon("--demo", "--name", "one", "--demo", "--name", "two") as d:
        status, out, err = lector("speak", "--socket", d.path, timeout=60)
        check("two cameras and no --device: exit 2, naming them", status == 2 and "one, two" in err and "--device" in err,
              (status, err))
        status, out, err = lector("speak", "--socket", d.path, "--device", "three", timeout=60)
        check("an unknown camera: lectord's refusal, exit 1", status == 1 and "unknown device" in err, (status, err))
        env = dict(ENV, PATH="/nonexistent")
        status, out, err = lector("speak", "--socket", d.path, "--device", "one", env=env, timeout=60)
        check("no espeak-ng: says how to install it", status == 1 and "apt-get install espeak-ng" in err, (status, err))


if __name__ == "__main__":
    sys.exit(suite.main())
