#!/usr/bin/python3
"""`--lang auto` against fixed `--lang` on rendered signs in five scripts (see run)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import ENV, LECTORD, ROOT, Client, Daemon, Suite, lector, workdir  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from script_signs import frames as signs, in_order, languages_right, read as read_sign, recall, within  # noqa: E402

WORK = workdir("lector-languages-")
FRAMES = os.path.join(WORK, "frames")
TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"
# More than AutoLanguage.recheckFrames: the script is checked again on the way.
FRAMES_READ = 12

suite = Suite("languages")
test = suite.test


def read(frame, lang):
    """(text, block languages, lectord's stderr) of one read of `frame`."""
    return read_sign(LECTORD, frame, lang, os.path.join(WORK, "lector.sock"), ENV)


def setup():
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-script-frames.py"), FRAMES], check=True,
                   capture_output=True)


@test
def auto_reads_like_the_right_language():
    """Per sign: auto's recall, and its characters in order, within 0.05 of the right fixed
    --lang's; every block in the sign's language (a kanji-only Japanese sign may read as
    Chinese); never an empty TEXT where the fixed language reads text."""
    for frame, entry in signs(FRAMES):
        lang = entry["lang"]
        fixed_text, fixed_languages, _ = read(frame, lang)
        auto_text, auto_languages, _ = read(frame, "auto")
        fixed, automatic = recall(entry["lines"], fixed_text), recall(entry["lines"], auto_text)
        fixed_order, auto_order = in_order(entry["lines"], fixed_text), in_order(entry["lines"], auto_text)
        suite.check("%s %s (%s): auto recall %.2f in order %.2f, --lang %s %.2f / %.2f; auto's blocks in %s" % (
            os.path.basename(frame)[:-4], "/".join(entry["lines"]), entry["script"], automatic, auto_order, lang, fixed,
            fixed_order, ",".join(auto_languages) or "(none)"),
            within(entry, fixed_text, auto_text) and languages_right(entry, auto_languages)
            and (auto_text.strip() or not fixed_text.strip()),
            (auto_text, auto_languages, fixed_text))


@test
def missing_language_named_once():
    """Korean signs with only eng and osd installed: read as eng, tesseract-ocr-kor named once."""
    tessdata = os.path.join(WORK, "tessdata")
    os.makedirs(tessdata)
    for name in ["eng", "osd"]:
        os.symlink(os.path.join(TESSDATA, "%s.traineddata" % name), os.path.join(tessdata, "%s.traineddata" % name))
    frames = os.path.join(WORK, "korean")
    os.makedirs(frames)
    for number in range(FRAMES_READ):
        os.symlink(os.path.join(FRAMES, "kor-0.jpg"), os.path.join(frames, "%d.jpg" % number))
    result = subprocess.run([LECTORD, "--replay", frames, "--stdout", "--lang", "auto", "--tessdata", tessdata,
                             "--socket", os.path.join(WORK, "lector2.sock")],
                            capture_output=True, text=True, timeout=600, env=ENV)
    texts = [json.loads(line) for line in result.stdout.splitlines() if '"class":"TEXT"' in line]
    named = [line for line in result.stderr.splitlines() if "tesseract-ocr-kor" in line]
    suite.check("%d frames read; tesseract-ocr-kor named %d time(s)" % (len(texts), len(named)),
                len(texts) == FRAMES_READ and len(named) == 1,
                (len(texts), result.stderr[-1500:]))


@test
def devices_list_installed_languages():
    """With lang auto, DEVICE has `languages` (proto_minor 10) and `lector devices` says them."""
    installed = sorted(name[:-len(".traineddata")] for name in os.listdir(TESSDATA) if name.endswith(".traineddata"))
    with Daemon("--replay", os.path.join(FRAMES, "hin-0.jpg"), "--fps", "1", "--loop", "--lang", "auto") as daemon:
        with Client(daemon.path) as client:
            version = client.read()
            device = client.request({"class": "DEVICES"})["devices"][0]
        status, out, err = lector("devices", "--socket", daemon.path)
    suite.check("VERSION proto_minor >= 10", version.get("proto_minor", 0) >= 10, version)
    suite.check("DEVICE languages: %s" % ",".join(device.get("languages", [])), device.get("languages") == installed,
                (device, installed))
    suite.check("lector devices: %s" % out.strip()[-120:], status == 0 and "lang auto (installed: " in out and "kor" in out,
                (status, out, err))
    with Daemon("--replay", os.path.join(FRAMES, "eng-0.jpg"), "--fps", "1", "--loop") as daemon:
        with Client(daemon.path) as client:
            device = client.request({"class": "DEVICES"})["devices"][0]
    suite.check("without lang auto: no languages", "languages" not in device, device)


if __name__ == "__main__":
    sys.exit(suite.main(setup=setup))
