#!/usr/bin/env python3
"""Start-up: `covkit gcov` on one small file, and `covkit --version`, against
gcov on the same file, by CPU time per run.

Clients such as lcov, gcovr and CTest start gcov once per object, so what
covkit costs before it reads anything is paid once per object. This builds
a one-file program with gcc-12 --coverage, runs it, checks that covkit's
.gcov file is gcov's byte for byte, then times each command RUNS times per
round, ROUNDS rounds, the commands alternating within every round (so a
change of load hits them alike), and prints per command the CPU time per
run (user + system from wait4(): the process's own, page faults included),
minimum and median over the rounds' means, minor page faults per run, and
the ratio covkit/gcov of the medians (<= 1.00: covkit costs no more).

  bench/startup_vs_gcov.py [--covkit build/covkit] [--gcov gcov-12] [--rounds 15] [--runs 20]

Exit 0 (the verdicts are printed, PASS/MISS), 2 on a setup error.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

static int collatz(long n) {
  int steps = 0;
  while (n != 1) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

int main(int argc, char **argv) {
  long limit = argc > 1 ? atol(argv[1]) : 1000;
  int longest = 0;
  for (long i = 1; i < limit; i++) {
    int s = collatz(i);
    if (s > longest) longest = s;
  }
  if (longest < 0) puts("impossible");
  printf("%d\n", longest);
  return 0;
}
"""


def run_once(argv):
    """CPU seconds (user + system) and minor faults of one run of argv, in
    the current directory. posix_spawn (vfork) rather than fork: a forked
    copy of this Python would add its own page faults to the child's."""
    t0 = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                                        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)}: exit status {os.waitstatus_to_exitcode(status)}")
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--covkit", default=os.path.join(here, "..", "build", "covkit"))
    ap.add_argument("--gcov", default="gcov-12")
    ap.add_argument("--cc", default="gcc-12")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--runs", type=int, default=20, help="runs of each command per round")
    args = ap.parse_args()
    covkit = os.path.abspath(args.covkit)
    gcov = shutil.which(args.gcov)
    if not os.access(covkit, os.X_OK) or not gcov or not shutil.which(args.cc):
        print(f"need {covkit}, {args.gcov} and {args.cc}", file=sys.stderr)
        return 2

    work = tempfile.mkdtemp(prefix="covkit-startup-")
    try:
        with open(os.path.join(work, "prog.c"), "w") as f:
            f.write(PROGRAM)
        subprocess.run([args.cc, "--coverage", "-O0", "prog.c", "-o", "prog"], cwd=work, check=True)
        subprocess.run(["./prog", "3000"], cwd=work, check=True, stdout=subprocess.DEVNULL)
        # The same output first: a fast tool that is wrong must not look good.
        outputs = []
        for tool in ([gcov], [covkit, "gcov"]):
            subprocess.run(tool + ["-b", "-c", "prog.c"], cwd=work, check=True, stdout=subprocess.DEVNULL)
            with open(os.path.join(work, "prog.c.gcov"), "rb") as f:
                outputs.append(f.read())
            os.unlink(os.path.join(work, "prog.c.gcov"))
        if outputs[0] != outputs[1]:
            print("covkit's prog.c.gcov differs from gcov's: not timed", file=sys.stderr)
            return 1

        commands = [
            ("gcov prog.c", [gcov, "prog.c"]),
            ("covkit gcov prog.c", [covkit, "gcov", "prog.c"]),
            ("gcov -b -c prog.c", [gcov, "-b", "-c", "prog.c"]),
            ("covkit gcov -b -c prog.c", [covkit, "gcov", "-b", "-c", "prog.c"]),
            ("gcov --version", [gcov, "--version"]),
            ("covkit --version", [covkit, "--version"]),
        ]
        cpu = {name: [] for name, _ in commands}
        faults = {name: [] for name, _ in commands}
        wall = {name: [] for name, _ in commands}
        os.chdir(work)
        for name, argv in commands:  # warm the page cache
            run_once(argv)
        for _ in range(args.rounds):
            for name, argv in commands:
                c = f = w = 0.0
                for _ in range(args.runs):
                    dc, df, dw = run_once(argv)
                    c, f, w = c + dc, f + df, w + dw
                cpu[name].append(c / args.runs)
                faults[name].append(f / args.runs)
                wall[name].append(w / args.runs)

        load = os.getloadavg()[0]
        print(f"start-up: {args.rounds} rounds x {args.runs} runs of each command, alternating; "
              f"CPU = user + system per run; load average {load:.2f}")
        print(f"{'command':28} {'cpu ms min':>10} {'median':>8} {'faults':>7} {'wall ms':>8}")
        for name, _ in commands:
            print(f"{name:28} {min(cpu[name]) * 1e3:10.2f} {statistics.median(cpu[name]) * 1e3:8.2f} "
                  f"{statistics.median(faults[name]):7.0f} {statistics.median(wall[name]) * 1e3:8.2f}")
        print()
        verdicts = [("covkit gcov prog.c", "gcov prog.c"), ("covkit gcov -b -c prog.c", "gcov -b -c prog.c"),
                    ("covkit --version", "gcov prog.c"), ("covkit --version", "gcov --version")]
        for mine, theirs in verdicts:
            ratio_med = statistics.median(cpu[mine]) / statistics.median(cpu[theirs])
            ratio_min = min(cpu[mine]) / min(cpu[theirs])
            print(f"{mine} / {theirs}: CPU {ratio_med:.2f}x (medians), {ratio_min:.2f}x (minima)  "
                  f"{'PASS' if ratio_med <= 1.0 else 'MISS'} (target <= 1.00)")
        return 0
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
