#!/usr/bin/env python3
"""Sorts the pump photos a run missed by what went wrong (issue 44).

Reads listings of `scripts/eval-meters.py --verbose` (one `ok`/`BAD` line a photo, with
the lines lectord read) and, for each missed photo, compares every line read with what
the display shows: the label's digits and two decimals (`25` → `25##`). The line nearest
to that (fewest digits inserted, lost or changed; the point ignored, as `decimals = 2`
places it) says the kind of miss:

- `rounded label`: a MATCH one below the label with decimals of 50 or more (`43.68`
  labelled 44): the label is the rounded value, no reading can be right;
- `label one above`: a line that starts with the label less one (`170.3`
  labelled 171, `64.01` labelled 65, `128.28` 129: the crops show what was read, the
  label is above the display): unreachable too;
- `last digit lost`: the display's digits read but its last one (`215.0` for 215.0x);
- `digit added at the end`: a digit read after the decimals or in their gap (`46.010`);
- `leading digit added`: a digit read before the display's first (`7147.02` for 47);
- `leading digit wrong`: its first digit read as another (`777.02` for 177: a ghost);
- `leading digit lost`: its first digit not read (`37.01` for 137);
- `inner digit off`: a digit after the first read as another, lost or added;
- `two or more off`: the nearest line differs in two digits or more (the display's line
  not found, or read badly: only other displays' lines such as `161798`);
- `nothing read`: no line at all.

usage: scripts/meters-misses.py LISTING [LISTING…] [--verbose]
"""
import ast
import collections
import re
import sys

LINE = re.compile(r"^(ok |BAD) (\S+) truth (\d+) matches (\[.*?\]) lines (\[.*?\])")
KINDS = ("rounded label", "label one above", "last digit lost", "digit added at the end", "leading digit added",
         "leading digit wrong", "leading digit lost", "inner digit off", "two or more off", "nothing read")


def operations(read, label):
    """The edits from `label` + two decimals to the digits `read`, fewest first:
    a list of (kind, position in the display's digits), kind `add`, `lose` or `change`."""
    target = label + "##"
    rows, cols = len(target) + 1, len(read) + 1
    cost = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        cost[i][0] = i
    for j in range(cols):
        cost[0][j] = j
    for i in range(1, rows):
        for j in range(1, cols):
            same = target[i - 1] == "#" or target[i - 1] == read[j - 1]
            cost[i][j] = min(cost[i - 1][j - 1] + (0 if same else 1), cost[i - 1][j] + 1, cost[i][j - 1] + 1)
    ops, i, j = [], len(target), len(read)
    while i or j:  # backwards, a digit lost or added taken as late as it can be (`2150`: 215.0x)
        if i and cost[i][j] == cost[i - 1][j] + 1:
            ops.append(("lose", i - 1))
            i -= 1
        elif j and cost[i][j] == cost[i][j - 1] + 1:
            ops.append(("add", i))
            j -= 1
        else:
            if target[i - 1] != "#" and target[i - 1] != read[j - 1]:
                ops.append(("change", i - 1))
            i, j = i - 1, j - 1
    return list(reversed(ops))


def digits(text):
    return "".join(c for c in text if c.isdigit())


def kind(label, matches, lines):
    """The kind of miss (one of KINDS) and the line it was judged on."""
    for value in matches:
        whole, _, fraction = value.partition(".")
        if whole.isdigit() and int(whole) + 1 == int(label):
            return ("rounded label" if fraction[:1] >= "5" else "label one above"), value
    if not lines:
        return "nothing read", ""
    below = str(int(label) - 1)
    for text in lines:
        if digits(text).startswith(below) and len(digits(text)) > len(below) and not digits(text).startswith(label):
            return "label one above", text
    best = min(lines, key=lambda text: len(operations(digits(text), label)))
    ops = operations("".join(c for c in best if c.isdigit()), label)
    if len(ops) != 1:
        return "two or more off", best
    what, where = ops[0]
    if what == "lose":
        return ("leading digit lost" if where == 0 else "last digit lost" if where >= len(label) else "inner digit off"), best
    if what == "add":
        return ("leading digit added" if where == 0 else "digit added at the end" if where >= len(label) else "inner digit off"), best
    return ("leading digit wrong" if where == 0 else "inner digit off"), best


def main():
    verbose = "--verbose" in sys.argv
    tally, total, right = collections.Counter(), 0, 0
    for path in (a for a in sys.argv[1:] if not a.startswith("--")):
        with open(path) as handle:
            for row in handle:
                found = LINE.match(row)
                if not found:
                    continue
                total += 1
                if found.group(1) == "ok ":
                    right += 1
                    continue
                label, matches, lines = found.group(3), ast.literal_eval(found.group(4)), ast.literal_eval(found.group(5))
                what, line = kind(label, matches, lines)
                tally[what] += 1
                if verbose:
                    print(f"{what:24} {found.group(2)[:8]} label {label:4} nearest {line!r:12} lines {sorted(set(lines))}")
    print(f"{right}/{total} right, {total - right} missed")
    for name in KINDS:
        print(f"{name:24} {tally[name]:4}")


if __name__ == "__main__":
    main()
