"""Issue 45's hostile neighbours of the history and evidence, replayed (see tests/history/run):
a folder of photos and a symlinked one (nothing of theirs deleted or written), planted
links, folders others may write, a removed folder, a lock held on `-shm` for 20 s, a full
2 MB disk, file modes under umask 022, a read-only database and a symlink to an empty file.
"""
import fcntl
import json
import os
import shutil
import socket
import stat
import subprocess
import threading
import time

from lectortest import ENV, LECTORD, Client, Daemon, SkipTest, wait_for, workdir


def snapshot(folder):
    """What each entry of `folder` is: kind, size, mtime, mode, link target, contents' hash."""
    found = {}
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        info = os.lstat(path)
        target = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
        data = open(path, "rb").read() if stat.S_ISREG(info.st_mode) else b""
        found[name] = (stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime, stat.S_IMODE(info.st_mode), target, hash(data))
    return found


def plant_photos(folder, victim):
    """Two 60-day-old holiday photos, a 60-day-old partial download, five fresh 400 kB
    photos, and links in lectord's kinds of names pointing at `victim`."""
    os.makedirs(folder, exist_ok=True)
    old = time.time() - 60 * 86400
    for name in ("holiday1.jpg", "holiday2.jpg", "film.mkv.part"):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(os.urandom(100_000))
        os.utime(os.path.join(folder, name), (old, old))
    for index in range(5):
        with open(os.path.join(folder, "fresh%d.jpg" % index), "wb") as f:
            f.write(os.urandom(400_000))
    for name in ("20200101T000000.000Z-meter-1.jpg", "20200101T000000.000Z-meter-1-0.crop.jpg.part", "x.jpg.part"):
        os.symlink(victim, os.path.join(folder, name))


def replay(conf, args, log_path):
    """lectord --stdout on `conf` to its end: (exit status, MATCHes, log)."""
    with open(log_path, "w") as log:
        proc = subprocess.run([LECTORD, "--config", conf, "--stdout"] + args, stdout=subprocess.PIPE, stderr=log, env=ENV,
                              timeout=240)
    matches = [json.loads(line) for line in proc.stdout.splitlines() if b'"class":"MATCH"' in line]
    return proc.returncode, matches, open(log_path).read()


def evidence_files(folder):
    return sorted(n for n in os.listdir(folder) if n.endswith(".jpg") and n[:8].isdigit() and not n.startswith("2020"))


def test_only_its_own_files(ctx):
    """A folder of photos and a symlink to another, as `--evidence` with
    `--evidence-max-mb 1`, planted links to a victim: nothing of theirs is deleted, written
    or chmod'ed; lectord's own evidence is kept and pruned within the bound."""
    check, work = ctx.check, workdir("lector-neighbours-")
    victim = os.path.join(work, "victim.txt")
    with open(victim, "w") as f:
        f.write("victim\n")
    os.chmod(victim, 0o600)
    photos, other = os.path.join(work, "photos"), os.path.join(work, "other-photos")
    plant_photos(photos, victim)
    plant_photos(other, victim)
    linked = os.path.join(work, "linked")
    os.symlink(other, linked)
    before = {photos: snapshot(photos), other: snapshot(other)}
    conf = ctx.meter_config(os.path.join(work, "meter.conf"))
    results = {}
    runs = [threading.Thread(target=lambda folder=folder: results.__setitem__(folder, replay(
        conf, ["--evidence", folder, "--evidence-max-mb", "1", "--evidence-keep-days", "30"], folder + ".log")))
        for folder in (photos, linked)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    for folder, real in ((photos, photos), (linked, other)):
        status, matches, log = results[folder]
        after = snapshot(real)
        changed = [name for name, entry in before[real].items() if after.get(name) != entry]
        own = evidence_files(real)
        check(f"{os.path.basename(folder)}: lectord reads to the end ({len(matches)} MATCHes) and writes its evidence "
              f"({len(own)} files)", status == 0 and matches and own, log[-1500:])
        check(f"{os.path.basename(folder)}: none of the {len(before[real])} files and links it did not write is deleted or "
              "changed (60-day-old holiday*.jpg, film.mkv.part, five fresh 400 kB photos, planted links)", not changed, changed)
        size = sum(os.path.getsize(os.path.join(real, n)) for n in own)
        check(f"{os.path.basename(folder)}: its own evidence is within --evidence-max-mb 1 ({size} bytes)", size <= 1048576)
    check("the victim the planted links point at is neither written nor chmod'ed",
          open(victim).read() == "victim\n" and stat.S_IMODE(os.stat(victim).st_mode) == 0o600)


def test_unsafe_folders_refused(ctx):
    """A folder others may write in, and one of another user, are refused at start with the reason."""
    check, work = ctx.check, workdir("lector-unsafe-")
    for name, mode, owner, said in (("world-writable", 0o777, None, "others may write in it"),
                                    ("another user's", 0o755, 65534, "belongs to uid 65534")):
        folder = os.path.join(work, name)
        os.makedirs(folder)
        os.chmod(folder, mode)
        if owner is not None:
            os.chown(folder, owner, owner)
        proc = subprocess.run([LECTORD, "--demo", "--socket", os.path.join(work, "s.sock"), "--evidence", folder],
                              capture_output=True, text=True, timeout=60, env=ENV)
        check(f"lectord refuses {name} evidence folder: exit 1, '{said}'", proc.returncode == 1 and said in proc.stderr,
              proc.stderr[-600:])


def read_matches(client, seconds, until=None):
    """MATCHes read for `seconds` (or until `until(match)` is true)."""
    found, deadline = [], time.time() + seconds
    while time.time() < deadline:
        try:
            message = client.read()
        except socket.timeout:
            continue
        if message["class"] == "MATCH":
            found.append(message)
            if until and until(message):
                break
    return found


def test_lock_and_removed_folder(ctx):
    """Under umask 022 the history's files are 0600; a removed evidence folder is made again
    at the next MATCH; a read lock held on `-shm` for 20 s loses no MATCH: the rows appear
    once it is released, said once."""
    check, work = ctx.check, workdir("lector-lock-")
    database, evidence = os.path.join(work, "history.sqlite"), os.path.join(work, "evidence")
    conf = ctx.meter_config(os.path.join(work, "loop.conf"), loop=True)
    previous = os.umask(0o022)
    try:
        daemon = Daemon("--config", conf, "--always-on", "--history", database, "--evidence", evidence).start()
    finally:
        os.umask(previous)
    named = lambda m: "evidence" in m  # noqa: E731

    def kept(match):  # its files are written a few milliseconds after it is published
        try:
            wait_for(lambda: os.path.exists(match["evidence"]["crop"]), 5, "the crop")
            return True
        except AssertionError:
            return False
    try:
        with Client(daemon.path) as client:
            client.request({"class": "WATCH", "text": False, "frame": False, "matches": True})
            client.sock.settimeout(2)
            published = read_matches(client, 60, until=named)
            check("the first MATCH's evidence is written", kept(published[-1]))
            modes = {suffix: oct(stat.S_IMODE(os.stat(database + suffix).st_mode)) for suffix in ("", "-wal", "-shm")}
            check(f"under umask 022 the history's files are 0600: {modes}", set(modes.values()) == {"0o600"}, modes)
            shutil.rmtree(evidence)
            again = read_matches(client, 60, until=named)
            published += again
            check(f"a removed evidence folder is made again at the next MATCH ({len(again)} MATCH), its crop written",
                  len(again) == 1 and kept(again[-1]), again)
            shm = open(database + "-shm", "rb")
            fcntl.lockf(shm, fcntl.LOCK_SH)  # another process's read lock on the whole -shm
            during = read_matches(client, 20)
            shm.close()  # releases it
            published += during
            published += read_matches(client, 6)
    finally:
        daemon.stop()
    log = daemon.logtext()
    status, out, err = ctx.lector("history", "--json", "--limit", "10000", "--db", database)
    stored = {ctx.key(json.loads(line)) for line in out.splitlines() if line.startswith("{")}
    lost = [m["text"] for m in published if ctx.key(m) not in stored]
    check(f"a read lock on -shm held for 20 s loses no MATCH: {len(during)} published meanwhile, {len(published)} in all, "
          f"{len(lost)} missing", during and not lost, ([ctx.key(m) for m in published if ctx.key(m) not in stored], err))
    check("the wait is said once, and its end", log.count("MATCHes wait to be kept") == 1 and "the history is written again" in log,
          log[-1500:])


def test_full_disk_keeps_the_rows(ctx):
    """History and evidence on a 2 MB tmpfs that a file of another program nearly fills:
    every MATCH is kept in the history (the oldest evidence given up for it), the other
    file is left as it was, the database stays whole."""
    check, work = ctx.check, workdir("lector-disk-")
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk], capture_output=True, text=True)
    if mounted.returncode != 0:
        raise SkipTest("cannot mount a small tmpfs (needs root): " + mounted.stderr.strip())
    try:
        filler = os.path.join(disk, "other-program.bin")
        with open(filler, "wb") as f:
            f.write(os.urandom(2 * 1048576 - 400 * 1024))
        before = snapshot(disk)[os.path.basename(filler)]
        database = os.path.join(disk, "history.sqlite")
        conf = ctx.meter_config(os.path.join(work, "loop.conf"), loop=True)
        with Daemon("--config", conf, "--always-on", "--history", database, "--evidence", os.path.join(disk, "evidence"),
                    "--evidence-max-mb", "100") as daemon:
            with Client(daemon.path) as client:
                client.request({"class": "WATCH", "text": False, "frame": False, "matches": True})
                client.sock.settimeout(2)
                published = read_matches(client, 30)
            time.sleep(2)
        log = daemon.logtext()
        status, out, err = ctx.lector("history", "--json", "--limit", "10000", "--db", database)
        stored = {ctx.key(json.loads(line)) for line in out.splitlines() if line.startswith("{")}
        lost = [m["text"] for m in published if ctx.key(m) not in stored]
        full = "No space left" in log or "disk is full" in log or "database or disk is full" in log
        check(f"a full 2 MB disk keeps every history row: {len(published)} MATCHes published, {len(lost)} missing "
              f"(the disk was full: {full})", published and full and not lost, (lost, log[-1500:]))
        check("the other program's file is left as it was", snapshot(disk)[os.path.basename(filler)] == before)
        check("sqlite3 PRAGMA integrity_check: ok", ctx.integrity(database) == "ok", ctx.integrity(database))
    finally:
        subprocess.run(["umount", "-l", disk], capture_output=True)


def test_refused_databases_say_so(ctx):
    """A symbolic link to an empty file, and a database on a read-only file system, are
    refused at start with the reason (no 'history kept', no pruning errors after)."""
    check, work = ctx.check, workdir("lector-refused-")
    empty = os.path.join(work, "empty")
    open(empty, "w").close()
    link = os.path.join(work, "history.sqlite")
    os.symlink(empty, link)
    with Daemon("--demo", "--history", link) as daemon:
        with Client(daemon.path) as client:
            reply = client.request({"class": "HISTORY"})
        log = daemon.logtext()
    check("a symbolic link to an empty file is refused, said at start and by HISTORY; the file stays empty",
          "symbolic link" in log and "history kept" not in log and "symbolic link" in reply.get("message", "")
          and os.path.getsize(empty) == 0, (log[-800:], reply))
    disk = os.path.join(work, "ro")
    os.makedirs(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk], capture_output=True).returncode != 0:
        raise SkipTest("cannot mount a small tmpfs (needs root)")
    try:
        database = os.path.join(disk, "history.sqlite")
        with Daemon("--demo", "--history", database):
            pass
        subprocess.run(["mount", "-o", "remount,ro", disk], check=True)
        with Daemon("--demo", "--history", database) as daemon:
            with Client(daemon.path) as client:
                reply = client.request({"class": "HISTORY"})
            time.sleep(1)
            log = daemon.logtext()
        check("a database on a read-only file system is refused at start: 'read-only', no 'history kept', no pruning error",
              "read-only" in log and "history kept" not in log and "not pruned" not in log
              and "read-only" in reply.get("message", ""), (log[-800:], reply))
    finally:
        subprocess.run(["umount", "-l", disk], capture_output=True)
