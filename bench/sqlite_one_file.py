#!/usr/bin/env python3
"""One huge translation unit: SQLite's amalgamation (Debian 12's sqlite3
3.40.1, sqlite3.c of 243,646 lines and shell.c), built with gcc-12
--coverage and run on tests/realcode/workloads/sqlite_workload.sql
(tests/realcode/fetch_and_build.sh; cached). On that tree, side by side:

  covkit gcov -b -c      against  gcov-12 -b -c         (both objects)
  covkit gcov -j -b      against  gcov-12 -j -b
  covkit report --lcov   against  lcov -c (geninfo, branch coverage on)
  covkit report --cobertura  against  gcovr --xml

Outputs are checked first (the .gcov files identical; the lcov and
Cobertura comparisons are tests/report/lcov_tree_compare.sh's and are not
repeated here). Then ROUNDS rounds, the commands alternating within each
round so that the shared machine's load hits them alike; each command runs
in a fresh child, and its CPU time (user + system of it and every
descendant it waited for: gcov under lcov and gcovr) and peak RSS (the
largest of those processes) come from getrusage. Prints per command the
median and minimum CPU, the median wall time and the peak RSS, and the
ratio peer/covkit of the median CPU (> 1: covkit is faster). A
measurement: exit 0; 2 on a setup error.

  bench/sqlite_one_file.py [--covkit build/covkit] [--cache DIR] [--opt O0|O2] [--rounds 5]

DIR defaults to $COVKIT_REALCODE_CACHE, else build/realcode.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# A child that runs one command and prints its resource use: getrusage of
# the children of this child is the command's alone.
MEASURE = ("import resource, subprocess, sys, time\n"
           "t = time.monotonic()\n"
           "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
           "w = time.monotonic() - t\n"
           "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
           "print(r.returncode, u.ru_utime + u.ru_stime, w, u.ru_maxrss)\n")


def measure(argv, cwd):
    out = subprocess.run([sys.executable, "-c", MEASURE] + argv, cwd=cwd, capture_output=True, text=True,
                         check=True).stdout.split()
    rc, cpu, wall, rss = int(out[0]), float(out[1]), float(out[2]), int(out[3])
    if rc != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {rc} in {cwd}")
    return cpu, wall, rss


def clean(tree):
    for f in glob.glob(os.path.join(tree, "*.gcov")) + glob.glob(os.path.join(tree, "*.gcov.json.gz")):
        os.unlink(f)


def gcov_outputs(argv, tree):
    clean(tree)
    subprocess.run(argv, cwd=tree, capture_output=True, check=True)
    got = {}
    for f in sorted(glob.glob(os.path.join(tree, "*.gcov"))):
        with open(f, "rb") as fh:
            got[os.path.basename(f)] = fh.read()
    clean(tree)
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default=os.path.join(ROOT, "build", "covkit"))
    ap.add_argument("--cache", default=os.environ.get("COVKIT_REALCODE_CACHE") or os.path.join(ROOT, "build", "realcode"))
    ap.add_argument("--opt", default="O0", choices=("O0", "O2"))
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    covkit = os.path.abspath(a.covkit)
    cache = os.path.abspath(a.cache)
    r = subprocess.run([os.path.join(ROOT, "tests", "realcode", "fetch_and_build.sh"), "sqlite", cache, "12", a.opt])
    if r.returncode != 0:
        print(f"setup: fetch_and_build.sh sqlite failed ({r.returncode})", file=sys.stderr)
        return 2
    tree = os.path.join(cache, f"sqlite-gcc12-{a.opt}")
    objs = ["sqlite3.gcno", "shell.gcno"]
    scratch = os.path.join(cache, f"sqlite-bench-{os.getpid()}")
    os.makedirs(scratch)
    pairs = [
        ("gcov -b -c", [covkit, "gcov", "-b", "-c", *objs], ["gcov-12", "-b", "-c", *objs]),
        ("gcov -j -b", [covkit, "gcov", "-j", "-b", *objs], ["gcov-12", "-j", "-b", *objs]),
        ("report lcov", [covkit, "report", "-q", "--lcov", f"{scratch}/c.info", "."],
         ["lcov", "-q", "-c", "-d", ".", "--rc", "lcov_branch_coverage=1", "--gcov-tool", "gcov-12",
          "-o", f"{scratch}/l.info"]),
        ("report Cobertura", [covkit, "report", "-q", "--cobertura", f"{scratch}/c.xml", "."],
         ["gcovr", "-r", ".", "--gcov-executable", "gcov-12", "--xml", f"{scratch}/g.xml"]),
    ]
    try:
        if gcov_outputs(pairs[0][1], tree) != gcov_outputs(pairs[0][2], tree):
            print("setup: covkit gcov -b -c's .gcov files differ from gcov-12's: not timing", file=sys.stderr)
            return 2
        load0 = open("/proc/loadavg").read().split()[:3]
        start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        res = {}
        for _ in range(a.rounds):
            for name, ours, peer in pairs:
                for who, argv in (("covkit", ours), ("peer", peer)):
                    res.setdefault((name, who), []).append(measure(argv, tree))
                    clean(tree)
        load1 = open("/proc/loadavg").read().split()[:3]
    except (RuntimeError, subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"setup: {e}", file=sys.stderr)
        return 2
    finally:
        clean(tree)
        for f in glob.glob(os.path.join(scratch, "*")):
            os.unlink(f)
        os.rmdir(scratch)
    print(f"sqlite amalgamation, gcc-12 --coverage -{a.opt}, {a.rounds} rounds, {start}, "
          f"load average {' '.join(load0)} at start, {' '.join(load1)} at end")
    print(f"{'command':44s} {'CPU med':>9s} {'CPU min':>9s} {'wall med':>9s} {'peak RSS':>9s}")
    for name, ours, peer in pairs:
        med = {}
        for who, argv in (("covkit", ours), ("peer", peer)):
            v = res[(name, who)]
            med[who] = statistics.median(x[0] for x in v)
            label = " ".join(os.path.basename(x) if i == 0 else x for i, x in enumerate(argv[:4]))
            print(f"{label:44s} {med[who]*1000:7.0f}ms {min(x[0] for x in v)*1000:7.0f}ms "
                  f"{statistics.median(x[1] for x in v)*1000:7.0f}ms {max(x[2] for x in v)/1024:6.0f}MiB")
        print(f"  {name}: peer/covkit CPU {med['peer'] / med['covkit']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
