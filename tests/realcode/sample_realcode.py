#!/usr/bin/env python3
"""covkit sample's breakpoint mode on real code nobody here wrote: Lua 5.4's
interpreter (its VM dispatching by computed goto, and by switch), bzip2
1.0.8 and SQLite 3.40.1 (its amalgamation: one 243,646-line file, the VM a
switch in sqlite3VdbeExec), Debian 12's sources built with gcc-12 -O2 -g twice, plain and
with --coverage (the truth, gcov's), both from build_sample_package.sh.
One workload runs on both; the plain run is recorded by `covkit sample
record --mode breakpoint` (its shell is not planted: no line information).

Checks, against the truth on the lines both list: recall >= 99% and
precision >= 98.5%; the program's output unchanged under the breakpoints;
every plant an instruction start that is no padding (tests/sample_cfg/
plants.py, objdump as the oracle).

  sample_realcode.py COVKIT PKG CACHE      PKG: lua, luaswitch, bzip2, sqlite

The source and the truth tree come from fetch_and_build.sh (cached in
CACHE, $COVKIT_REALCODE_CACHE when set); the plain tree is cached beside
it. Exit 77 when the source cannot be fetched."""
import fcntl
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sample_cfg"))
import plants  # noqa: E402

RECALL, PRECISION = 0.99, 0.985


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=1800, **kw)


def program(pkg, tree):
    if pkg == "sqlite":
        return os.path.join(tree, "sqlite3")
    return os.path.join(tree, "src", "lua") if pkg.startswith("lua") else os.path.join(tree, "bzip2")


def workload(pkg, exe, tree):
    if pkg.startswith("lua"):
        return [exe, os.path.join(HERE, "workloads", "lua_workload.lua"), "2"]
    if pkg == "sqlite":
        return ["/bin/bash", os.path.join(HERE, "workloads", "sqlite_workload.sh"), exe, os.path.join(tree, "rc-tmp")]
    return ["/bin/sh", os.path.join(HERE, "workloads", "bzip2_workload.sh"), exe, tree]


def plain_tree(pkg, cache, truth):
    """The same source built without --coverage, cached beside the truth."""
    tree = os.path.join(cache, f"{pkg}-plain-gcc12-O2")
    marker = os.path.join(tree, ".covkit-sample-plain")
    with open(os.path.join(cache, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # shared with fetch_and_build.sh's runs
        if os.path.exists(marker):
            return tree
        src = open(os.path.join(truth, ".covkit-realcode-tree")).read()
        shutil.rmtree(tree, ignore_errors=True)
        if pkg == "sqlite":  # the amalgamation the truth was built from
            os.makedirs(tree)
            for f in ("sqlite3.c", "shell.c", "sqlite3.h"):
                shutil.copy2(os.path.join(truth, f), tree)
        else:
            srcpkg = "lua5.4" if pkg.startswith("lua") else "bzip2"
            root = os.path.join(cache, "src", srcpkg)
            unpacked = [d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))]
            check(unpacked, f"no unpacked source in {root} ({src})")
            shutil.copytree(os.path.join(root, unpacked[0]), tree, symlinks=True)
        env = dict(os.environ, CC="gcc-12", CFLAGS="-O2 -g", LDFLAGS="")
        p = run([os.path.join(HERE, "build_sample_package.sh"), pkg, tree], env=env)
        check(p.returncode == 0, f"the plain build of {pkg} failed: {p.stderr[-2000:]}")
        open(marker, "w").close()
    return tree


def compare(covkit, rec, truth, plain):
    p = run([covkit, "sample", "compare", rec, "--against", truth, "--path-map", f"{plain}={truth}", "--csv-summary"])
    check(p.returncode == 0, f"sample compare exited {p.returncode}: {p.stderr}")
    recall, precision, _, hits, misses, false_pos = p.stdout.strip().split(",")
    return float(recall), float(precision), int(hits), int(misses), int(false_pos)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    covkit, pkg, cache = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    cache = os.path.abspath(os.environ.get("COVKIT_REALCODE_CACHE") or cache)
    p = subprocess.run([os.path.join(HERE, "fetch_and_build.sh"), pkg, cache, "12", "O2"])
    if p.returncode != 0:
        return p.returncode  # 77: skip
    truth = os.path.join(cache, f"{pkg}-gcc12-O2")
    try:
        plain = plain_tree(pkg, cache, truth)
        # The truth of this workload alone.
        for d, _, files in os.walk(truth):
            for f in files:
                if f.endswith(".gcda"):
                    os.unlink(os.path.join(d, f))
        expected = run(workload(pkg, program(pkg, truth), truth))
        check(expected.returncode == 0, f"the workload failed on the --coverage build: {expected.stderr}")
        rec = os.path.join(cache, f"{pkg}-sample.rec")
        shutil.rmtree(rec, ignore_errors=True)
        got = run([covkit, "sample", "record", "--mode", "breakpoint", "-o", rec, "--",
                   *workload(pkg, program(pkg, plain), plain)])
        check(got.returncode == 0, f"record exited {got.returncode}: {got.stderr}")
        check(got.stdout == expected.stdout, f"the output changed under breakpoints: {got.stdout!r} vs {expected.stdout!r}")
        check("signal" not in got.stderr, f"a signal while recording: {got.stderr}")
        recall, precision, hits, misses, false_pos = compare(covkit, rec, truth, plain)
        print(f"{pkg}: recall {recall:.4f}, precision {precision:.4f} ({hits} lines hit, {misses} missed, "
              f"{false_pos} false positives)")
        n, problems = plants.check_plants(covkit, rec)
        print(f"{pkg}: {n} plants checked against objdump")
        check(not problems, f"{len(problems)} of {n} plants wrong: {problems[:10]}")
        check(n > 500, f"only {n} plants")
        check(recall >= RECALL, f"recall {recall:.4f} < {RECALL}")
        check(precision >= PRECISION, f"precision {precision:.4f} < {PRECISION}")
    except Failure as e:
        print(f"FAIL sample {pkg}: {e}", file=sys.stderr)
        return 1
    print(f"ok sample {pkg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
