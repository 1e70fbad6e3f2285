#!/usr/bin/env python3
"""Compare two lcov tracefiles the way lcov reads them.

Records for the same SF are added together (DA per line, FNDA per function
name, BRDA per line and position, '-' counting as "not executed"), then per
file the line counts, function hit counts and branch taken counts must be
equal. Files only in the first (covkit) tracefile are allowed when every
count in them is zero (objects that never ran are reported at 0% by covkit
but are absent from `lcov -c` without --initial), unless --strict.
--strict also checks each record of the covkit tracefile on its own: no DA,
FN, FNDA or BRDA twice, an FN for every FNDA, and LF/LH/FNF/FNH/BRF/BRH equal
to what the record's entries give.

usage: lcov_compare.py COVKIT.info LCOV.info [--strict] [--lcov-latin1] [--branch-taken-only]
exit status 0: same; 1: differences (printed, at most 40).

--lcov-latin1: lcov 1.16 reads gcov's JSON (UTF-8) with JSON::PP and prints
the decoded names without an encoding layer, so a function or file name whose
characters are all below U+0100 comes out in Latin-1 (`ünïcödé` is written as
the bytes FC 6E EF 63 F6 64 E9). With this option, names in LCOV.info that are
not valid UTF-8 are read as Latin-1 before comparing (a note says how many).
covkit's names must still be exactly the UTF-8 names gcov prints.

--branch-taken-only: a branch is compared as taken or not, not by count.
lcov running llvm-cov gcov (clang's files) asks it for percentages only (its
--help does not list -c the way geninfo looks for it) and writes 1 for every
taken branch; covkit writes the counts.
"""
import sys
from collections import defaultdict


def latin1_fix(name, fixed):
    """lcov 1.16's Latin-1 output of a UTF-8 name -> the UTF-8 name."""
    raw = name.encode("utf-8", "surrogateescape")
    try:
        raw.decode("utf-8")
        return name
    except UnicodeDecodeError:
        fixed.add(name)
        return raw.decode("latin-1")


def check_record(sf, rec, problems):
    """One SF...end_of_record record on its own: no line, function or branch
    twice, every FNDA has its FN, and the LF/LH/FNF/FNH/BRF/BRH summary lines
    (when present) agree with the records."""
    for kind, keys in rec["keys"].items():
        dups = sorted({k for k in keys if keys.count(k) > 1}, key=str)
        if dups:
            problems.append(f"{sf}: {kind} given twice in one record: {dups[:5]}")
    missing = sorted(set(rec["keys"]["FNDA"]) - set(rec["keys"]["FN"]))
    if missing:
        problems.append(f"{sf}: FNDA without FN: {missing[:5]}")
    expect = {
        "LF": len(set(rec["keys"]["DA"])),
        "LH": len({k for k, v in rec["vals"]["DA"] if v > 0}),
        "FNF": len(set(rec["keys"]["FN"])),
        "FNH": len({k for k, v in rec["vals"]["FNDA"] if v > 0}),
        "BRF": len(set(rec["keys"]["BRDA"])),
        "BRH": len({k for k, v in rec["vals"]["BRDA"] if v not in ("-", 0)}),
    }
    for kind, value in rec["summary"].items():
        if value != expect[kind]:
            problems.append(f"{sf}: {kind}:{value} but the record has {expect[kind]}")


def read(path, fix_latin1=False, lint=None):
    """-> {SF: {"DA": {line: n}, "FN": {name: line}, "FNDA": {name: n},
    "BRDA": {(line, block, branch): n or '-'}}}, records of one SF added up.
    With lint (a list), per-record inconsistencies are appended to it."""
    fixed = set()
    fix = (lambda n: latin1_fix(n, fixed)) if fix_latin1 else (lambda n: n)
    files = {}
    cur = None
    rec = None      # the current record alone (for lint)
    sf = None

    def new_record():
        return {"keys": {k: [] for k in ("DA", "FN", "FNDA", "BRDA")},
                "vals": {k: [] for k in ("DA", "FNDA", "BRDA")}, "summary": {}}

    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("SF:"):
                sf = fix(line[3:])
                cur = files.setdefault(sf, {"DA": defaultdict(int), "FN": {}, "FNDA": defaultdict(int),
                                            "BRDA": {}})
                rec = new_record()
            elif line == "end_of_record":
                if lint is not None and rec is not None:
                    check_record(sf, rec, lint)
                cur = rec = None
            elif cur is None:
                continue
            elif line.startswith("DA:"):
                ln, cnt = line[3:].split(",")[:2]
                cur["DA"][int(ln)] += int(cnt)
                rec["keys"]["DA"].append(int(ln))
                rec["vals"]["DA"].append((int(ln), int(cnt)))
            elif line.startswith("FN:"):
                ln, name = line[3:].split(",", 1)
                cur["FN"][fix(name)] = int(ln)
                rec["keys"]["FN"].append(fix(name))
            elif line.startswith("FNDA:"):
                cnt, name = line[5:].split(",", 1)
                cur["FNDA"][fix(name)] += int(cnt)
                rec["keys"]["FNDA"].append(fix(name))
                rec["vals"]["FNDA"].append((fix(name), int(cnt)))
            elif line.startswith("BRDA:"):
                ln, block, br, taken = line[5:].split(",")
                key = (int(ln), int(block), int(br))
                old = cur["BRDA"].get(key, "-")
                if taken == "-":
                    cur["BRDA"][key] = old
                else:
                    cur["BRDA"][key] = (0 if old == "-" else old) + int(taken)
                rec["keys"]["BRDA"].append(key)
                rec["vals"]["BRDA"].append((key, taken if taken == "-" else int(taken)))
            else:
                kind, _, value = line.partition(":")
                if kind in ("LF", "LH", "FNF", "FNH", "BRF", "BRH"):
                    rec["summary"][kind] = int(value)
    if fixed:
        shown = ", ".join(sorted(ascii(n) for n in fixed)[:5])
        print(f"note: {path}: {len(fixed)} name(s) read as Latin-1 (lcov 1.16 encoding): {shown}")
    return files


def all_zero(rec):
    return (all(v == 0 for v in rec["DA"].values()) and all(v == 0 for v in rec["FNDA"].values())
            and all(v in ("-", 0) for v in rec["BRDA"].values()))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    taken_only = "--branch-taken-only" in sys.argv
    problems = []
    ours = read(args[0], lint=problems if strict else None)
    theirs = read(args[1], "--lcov-latin1" in sys.argv)
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
                    if taken_only:
                        va, vb = min(va, 1), min(vb, 1)
                if va != vb:
                    problems.append(f"{sf}: {kind} {key}: covkit {va} lcov {vb}")
    for p in problems[:40]:
        print(p)
    if len(problems) > 40:
        print(f"... {len(problems) - 40} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
