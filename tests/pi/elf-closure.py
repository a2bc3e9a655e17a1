#!/usr/bin/env python3
"""Prints the files an ELF executable or library needs at run time inside a sysroot:
itself, its program interpreter and every shared library it needs (recursively),
found the way ld.so would in that root (RUNPATH/RPATH, then the multiarch and plain
library folders). Works for any architecture: it reads the files with readelf, never
runs them.

usage: elf-closure.py SYSROOT FILE...   (FILE: a path inside SYSROOT, e.g. /usr/bin/x)
Prints one absolute in-root path per line; exits 1 naming a library it cannot find.
"""
import os
import re
import subprocess
import sys

root = sys.argv[1].rstrip("/")
DIRS = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
        "/lib/aarch64-linux-gnu", "/usr/lib", "/lib", "/usr/local/lib"]


def dynamic(path):
    out = subprocess.run(["readelf", "-d", "-l", "-W", root + path], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)
    runpath = re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.+?)\]", out)
    interp = re.findall(r"Requesting program interpreter: (.+?)\]", out)
    machine = subprocess.run(["readelf", "-h", root + path], capture_output=True, text=True).stdout
    return needed, [d for r in runpath for d in r.split(":")], interp, "AArch64" in machine


def resolve(name, origin, runpath, arm):
    dirs = [d.replace("$ORIGIN", origin) for d in runpath]
    dirs += [d for d in DIRS if ("aarch64" in d) == arm or "linux-gnu" not in d]
    for d in dirs:
        candidate = os.path.join(d, name)
        if os.path.exists(root + candidate):
            return candidate
    return None


seen, order, todo = set(), [], list(sys.argv[2:])
while todo:
    path = todo.pop()
    if path in seen:
        continue
    seen.add(path)
    order.append(path)
    needed, runpath, interp, arm = dynamic(path)
    todo += interp
    for name in needed:
        found = resolve(name, os.path.dirname(path), runpath, arm)
        if found is None:
            sys.exit(f"elf-closure: {path} needs {name}, not found in {root}")
        todo.append(found)
print("\n".join(order))
