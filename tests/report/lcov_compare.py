#!/usr/bin/env python3
"""Compare two lcov tracefiles the way lcov reads them.

Records for the same SF are added together (DA per line, FNDA per function
name, BRDA per line and position, '-' counting as "not executed"), then per
file the line counts, function hit counts and branch taken counts must be
equal. Files only in the first (covkit) tracefile are allowed when every
count in them is zero (objects that never ran are reported at 0% by covkit
but are absent from `lcov -c` without --initial), unless --strict.

usage: lcov_compare.py COVKIT.info LCOV.info [--strict] [--path-prefix P]
exit status 0: same; 1: differences (printed, at most 40).
"""
import sys
from collections import defaultdict


def read(path):
    files = {}
    cur = None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("SF:"):
                cur = files.setdefault(line[3:], {"DA": defaultdict(int), "FN": {}, "FNDA": defaultdict(int),
                                                   "BRDA": {}})
                brpos = defaultdict(int)
            elif line == "end_of_record":
                cur = None
            elif cur is None:
                continue
            elif line.startswith("DA:"):
                ln, cnt = line[3:].split(",")[:2]
                cur["DA"][int(ln)] += int(cnt)
            elif line.startswith("FN:"):
                ln, name = line[3:].split(",", 1)
                cur["FN"][name] = int(ln)
            elif line.startswith("FNDA:"):
                cnt, name = line[5:].split(",", 1)
                cur["FNDA"][name] += int(cnt)
            elif line.startswith("BRDA:"):
                ln, block, br, taken = line[5:].split(",")
                key = (int(ln), int(block), int(br))
                old = cur["BRDA"].get(key, "-")
                if taken == "-":
                    cur["BRDA"][key] = old
                else:
                    cur["BRDA"][key] = (0 if old == "-" else old) + int(taken)
    return files


def all_zero(rec):
    return (all(v == 0 for v in rec["DA"].values()) and all(v == 0 for v in rec["FNDA"].values())
            and all(v in ("-", 0) for v in rec["BRDA"].values()))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    ours, theirs = read(args[0]), read(args[1])
    problems = []
    for sf in sorted(set(ours) | set(theirs)):
        if sf not in theirs:
            if strict or not all_zero(ours[sf]):
                problems.append(f"{sf}: only in {args[0]}")
            continue
        if sf not in ours:
            problems.append(f"{sf}: only in {args[1]}")
            continue
        a, b = ours[sf], theirs[sf]
        for kind in ("DA", "FNDA", "FN", "BRDA"):
            for key in sorted(set(a[kind]) | set(b[kind]), key=str):
                va, vb = a[kind].get(key), b[kind].get(key)
                if kind == "BRDA" and va is not None and vb is not None:
                    # "-" (line never ran) and 0 are both "not taken"; lcov drops
                    # BRDA entries with negative (racing) counts when it reads,
                    # which can leave "-" where covkit has 0.
                    va, vb = (0 if va == "-" else va), (0 if vb == "-" else vb)
                if va != vb:
                    problems.append(f"{sf}: {kind} {key}: covkit {va} lcov {vb}")
    for p in problems[:40]:
        print(p)
    if len(problems) > 40:
        print(f"... {len(problems) - 40} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
