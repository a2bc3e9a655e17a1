#!/usr/bin/env python3
"""Runs programs in a CPU quota, as on a slower machine (issue 25): the one place that
knows cgroups.

A Pi 4 core is roughly 3x slower than one core here; a process held to 33 ms of CPU per
100 ms period meets its wall-clock deadlines as it would there (docs/PERFORMANCE.md).
cgroup v1's `cpu` controller (/sys/fs/cgroup/cpu: `cpu.cfs_period_us`,
`cpu.cfs_quota_us`, the PID into `cgroup.procs`) where it is mounted and writable, else
cgroup v2's `cpu.max` (where the unified hierarchy offers the `cpu` controller); root is
needed for either. `CPUQuota.probe()` says which, or why neither (then callers skip).

Each quota is a group of its own, `lector-quota-PID-N`, made by `CPUQuota(...)` and
removed by `close()` (or the end of a `with`) on every path: the processes still in it
are moved back to the parent group first. Groups left by a run that was killed are
removed by the next one (`remove_stale()`).

The group also gets a high scheduling weight (v1 `cpu.shares`, v2 `cpu.weight`): on a
shared machine it still receives its whole quota, so the quota, not the other load, is
what limits it; `throttling()` says how often it hit the quota.

A plain quota (33 %) is a slower core only relative to this machine's: the same 33 % is a
Pi 4 on one machine and half of one on a machine with cores half as fast (issue 40: the
same suite passed 26/26 on one 2-core AMD EPYC guest and failed 8 on another).
`calibrated_percent()` makes the emulated core the same on every machine: it times a fixed
reference workload (`reference_seconds()`: zlib at level 6 compressing and inflating a
fixed 4 MiB text three times, single-threaded, the least CPU time of five runs; zlib is
the same C code on Debian 12 and 13, and CPU time is what a quota hands out, so another
program's load barely moves it) and sets the quota so that the workload would take
`PI4_REFERENCE_SECONDS`, what it takes on a Pi 4 core: REFERENCE_SECONDS (its time on the
machine the suite's thresholds were measured on, a 2-core AMD EPYC KVM guest, 2026-12-04)
times PI4_FACTOR (DESIGN.md: a Pi 4 core is roughly 3x slower than one core of these
machines). There it gives 33 %; on a machine twice as slow, 67 %.

As a command: `scripts/cpuquota.py PERCENT -- COMMAND [ARGS...]` runs COMMAND in a quota
of PERCENT % of one core (PERCENT `pi4`: the calibrated quota) and exits with its status
(77 and a "skip" line when no cgroup controller is writable here);
`scripts/cpuquota.py --calibrate` prints the reference workload's time here and the
quota that emulates a Pi 4 core.
"""
import itertools
import os
import re
import signal
import subprocess
import sys
import time
import zlib

PERIOD_US = 100_000
V1_ROOT = "/sys/fs/cgroup/cpu"
V2_ROOTS = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")
PREFIX = "lector-quota-"
_NUMBERS = itertools.count(1)
# The reference workload's CPU seconds on the calibration machine (a 2-core AMD EPYC KVM
# guest, 2026-12-04 22:30 UTC, load average 16: 0.419-0.425 s over six runs; the least).
REFERENCE_SECONDS = 0.419
# A Pi 4 core (Cortex-A72, 1.5 GHz) is taken as this many times slower than one core of
# the calibration machine (DESIGN.md's "roughly 3x").
PI4_FACTOR = 3.0
PI4_REFERENCE_SECONDS = REFERENCE_SECONDS * PI4_FACTOR
REFERENCE_RUNS = 5
# The calibrated quota is kept within these (percent of one core): a machine slower than
# a Pi 4 core gets a whole core.
CALIBRATED_RANGE = (5.0, 100.0)


class Unavailable(Exception):
    """No writable cgroup cpu controller here (the message says what was tried)."""


def _write(path, value):
    with open(path, "w") as handle:
        handle.write(str(value))


def _read(path):
    with open(path) as handle:
        return handle.read()


def _v2_root():
    """The cgroup v2 mount that offers the cpu controller, or None."""
    for root in V2_ROOTS:
        try:
            if "cpu" in _read(os.path.join(root, "cgroup.controllers")).split():
                return root
        except OSError:
            continue
    return None


class CPUQuota:
    """A cgroup holding its processes to `percent` % of one core."""

    @staticmethod
    def probe():
        """("v1", root) or ("v2", root) for the controller that will be used; raises
        Unavailable when neither is writable."""
        if os.path.isfile(os.path.join(V1_ROOT, "cpu.cfs_quota_us")):
            if os.access(V1_ROOT, os.W_OK):
                return "v1", V1_ROOT
            v1 = f"{V1_ROOT} (cgroup v1 cpu) is not writable"
        else:
            v1 = f"no cgroup v1 cpu controller at {V1_ROOT}"
        root = _v2_root()
        if root is not None and os.access(root, os.W_OK):
            return "v2", root
        v2 = "no cgroup v2 cpu controller" if root is None else f"{root} (cgroup v2 cpu.max) is not writable"
        raise Unavailable(f"{v1}; {v2} (run as root on a machine with either)")

    def __init__(self, percent):
        self.percent = percent
        self.kind, self.root = CPUQuota.probe()
        self.remove_stale()
        self.path = os.path.join(self.root, f"{PREFIX}{os.getpid()}-{next(_NUMBERS)}")
        quota = int(PERIOD_US * percent / 100)
        os.mkdir(self.path)
        try:
            if self.kind == "v1":
                _write(os.path.join(self.path, "cpu.cfs_period_us"), PERIOD_US)
                _write(os.path.join(self.path, "cpu.cfs_quota_us"), quota)
                _write(os.path.join(self.path, "cpu.shares"), 10240)
            else:
                subtree = os.path.join(self.root, "cgroup.subtree_control")
                if "cpu" not in _read(subtree).split():
                    _write(subtree, "+cpu")
                _write(os.path.join(self.path, "cpu.max"), f"{quota} {PERIOD_US}")
                _write(os.path.join(self.path, "cpu.weight"), 10000)
        except BaseException:
            self.close()
            raise

    @property
    def stopped_seconds(self):
        """The longest a group that has spent its share of a period waits for the next:
        every thread of it, even one that only needs a moment (a camera's reader), stops
        that long, where on a really slower core the scheduler would run it in between."""
        return PERIOD_US * (1 - self.percent / 100) / 1e6

    def popen(self, args, **kw):
        """A subprocess.Popen of `args` that runs in the group from its start: a shell
        moves itself into the group and then executes `args` (so its PID is theirs). Not a
        `preexec_fn`, which is unsafe in a program with threads."""
        procs = os.path.join(self.path, "cgroup.procs")
        return subprocess.Popen(["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs] + list(args), **kw)

    def release_threads(self, pid, name):
        """Moves the threads of process `pid` named `name` (their comm) out of the group,
        back to the controller's root: the rest of the process stays slowed. cgroup v1
        only (v2 keeps a process's threads together unless the group is made threaded):
        returns how many threads were moved, 0 on v2."""
        if self.kind != "v1":
            return 0
        moved = 0
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                if _read(f"/proc/{pid}/task/{tid}/comm").strip() == name:
                    _write(os.path.join(self.root, "tasks"), tid)
                    moved += 1
            except OSError:
                continue  # the thread ended
        return moved

    def throttling(self):
        """(scheduling periods the group ran in, periods in which the quota stopped it)."""
        stat = dict(line.split() for line in _read(os.path.join(self.path, "cpu.stat")).splitlines())
        return int(stat.get("nr_periods", 0)), int(stat.get("nr_throttled", 0))

    def close(self):
        """Moves what is left in the group to the parent and removes the group."""
        if self.path is None:
            return
        _empty_and_remove(self.path, self.root)
        self.path = None

    @staticmethod
    def remove_stale():
        """Removes the groups of earlier runs whose process is gone."""
        try:
            kind, root = CPUQuota.probe()
        except Unavailable:
            return
        for name in os.listdir(root):
            found = re.fullmatch(re.escape(PREFIX) + r"(\d+)-\d+", name)
            if found and not os.path.exists(f"/proc/{found.group(1)}"):
                _empty_and_remove(os.path.join(root, name), root)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _reference_text():
    """The reference workload's input: 4 MiB of words picked by a fixed linear
    congruential generator (the same bytes on every machine)."""
    words = [b"lector", b"camera", b"frame", b"text", b"line", b"detector", b"quota", b"core", b"read", b"scene",
             b"stack", b"vote", b"page", b"word", b"plate", b"the", b"of", b"a", b"in", b"reference"]
    state, out = 12345, bytearray()
    while len(out) < 4 << 20:
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        out += words[(state >> 16) % len(words)]
        out += b" " if state & 7 else b"\n"
    return bytes(out)


def reference_seconds(runs=REFERENCE_RUNS):
    """The reference workload's CPU seconds on this machine: the least of `runs` runs of
    zlib level 6 compressing and inflating the reference text three times."""
    text = _reference_text()
    best = None
    for _ in range(runs):
        started = time.thread_time()
        for _ in range(3):
            zlib.decompress(zlib.compress(text, 6))
        spent = time.thread_time() - started
        best = spent if best is None else min(best, spent)
    return best


def calibrated_percent(seconds=None):
    """The quota (percent of one core) in which this machine's core is a Pi 4 core:
    `seconds` (the reference workload's time here, measured when None) over
    PI4_REFERENCE_SECONDS, within CALIBRATED_RANGE."""
    seconds = reference_seconds() if seconds is None else seconds
    low, high = CALIBRATED_RANGE
    return min(high, max(low, 100.0 * seconds / PI4_REFERENCE_SECONDS))


def calibration_line(seconds, percent):
    """One line saying what the calibration found."""
    return (f"calibration: the reference workload took {seconds:.3f} s of CPU here, {REFERENCE_SECONDS:.3f} s on the "
            f"calibration machine, {PI4_REFERENCE_SECONDS:.3f} s taken for a Pi 4 core: a Pi 4 core is {percent:.1f} % "
            f"of a core here (this core {REFERENCE_SECONDS / seconds:.2f}x the calibration machine's)")


def _empty_and_remove(path, root):
    for _ in range(50):
        try:
            pids = _read(os.path.join(path, "cgroup.procs")).split()
        except FileNotFoundError:
            return
        for pid in pids:
            try:
                _write(os.path.join(root, "cgroup.procs"), pid)
            except OSError:
                pass  # exited meanwhile
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)  # a process that was exiting, or just forked
    print(f"cpuquota: could not remove {path}", file=sys.stderr)


def main(argv):
    if argv == ["--calibrate"]:
        seconds = reference_seconds()
        print(calibration_line(seconds, calibrated_percent(seconds)))
        return 0
    if len(argv) < 3 or argv[1] != "--" or not re.fullmatch(r"\d+(\.\d+)?|pi4", argv[0]):
        print("usage: scripts/cpuquota.py PERCENT|pi4 -- COMMAND [ARGS...]\n       scripts/cpuquota.py --calibrate",
              file=sys.stderr)
        return 2
    if argv[0] == "pi4":
        seconds = reference_seconds()
        percent = calibrated_percent(seconds)
        print(calibration_line(seconds, percent), file=sys.stderr)
        argv = [f"{percent:.1f}"] + argv[1:]
    try:
        quota = CPUQuota(float(argv[0]))
    except Unavailable as why:
        print(f"skip: {why}")
        return 77
    with quota:
        print(f"cpuquota: {argv[0]} % of a core (cgroup {quota.kind}, {quota.path})", file=sys.stderr)
        child = quota.popen(argv[2:])
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, lambda n, _frame: child.send_signal(n))
        status = child.wait()
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
