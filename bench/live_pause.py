#!/usr/bin/env python3
"""How long `covkit live dump` stops a process, for programs of N functions.

Builds a program of OBJECTS x FUNCS functions (gcc-12 --coverage
-fprofile-update=atomic), runs it idle (blocked reading a pipe) and with
busy threads (one per core, calling instrumented code without end), dumps
it ROUNDS times each way and prints the pause covkit measured (first
interrupt to last detach) as median and maximum, and the wall time of a
whole `covkit live dump` with and without --no-stop; and the pause of
`dump --reset` into the program's own files, which also writes what it read
into covkit's journal before the reset (docs/covkit-live.md, CONSISTENCY).

  bench/live_pause.py [--covkit build/covkit] [--functions 3000] [--rounds 30]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def build(work, objects, funcs):
    srcs = []
    for o in range(objects):
        path = os.path.join(work, f"m{o}.c")
        with open(path, "w") as f:
            for k in range(funcs):
                f.write(f"int f{o}_{k}(int x) {{ return x % {k + 2} ? x + {k} : x - 1; }}\n")
            f.write(f"int all{o}(int x) {{ int s = 0;\n")
            for k in range(funcs):
                f.write(f"  s += f{o}_{k}(x);\n")
            f.write("  return s; }\n")
        srcs.append(path)
    main = os.path.join(work, "main.c")
    with open(main, "w") as f:
        for o in range(objects):
            f.write(f"int all{o}(int);\n")
        f.write("#include <pthread.h>\n#include <unistd.h>\n#include <stdlib.h>\n"
                "static volatile int sink;\n"
                "static void* spin(void* a) { (void)a; for (int i = 0;; i++) {\n")
        for o in range(objects):
            f.write(f"  sink += all{o}(i);\n")
        f.write("} return 0; }\n"
                "int main(int argc, char** argv) { int busy = atoi(argv[1]);\n"
                "  for (int i = 0; i < busy; i++) { pthread_t t; pthread_create(&t, 0, spin, 0); }\n")
        for o in range(objects):
            f.write(f"  sink += all{o}(1);\n")
        f.write("  char c; while (read(0, &c, 1) > 0) {} return 0; }\n")
    objs = []
    for s in srcs + [main]:
        o = s[:-2] + ".o"
        subprocess.run(["gcc-12", "--coverage", "-fprofile-update=atomic", "-O1", "-c", s, "-o", o], check=True,
                       cwd=work)
        objs.append(o)
    exe = os.path.join(work, "prog")
    subprocess.run(["gcc-12", "--coverage", "-o", exe] + objs + ["-lpthread"], check=True, cwd=work)
    return exe


def measure(covkit, exe, busy, rounds, work, no_stop=False, reset=False):
    env = dict(os.environ, GCOV_PREFIX=os.path.join(work, "own"), COVKIT_STATE_DIR=os.path.join(work, "state"))
    p = subprocess.Popen([exe, str(busy)], stdin=subprocess.PIPE, cwd=work, env=env)
    time.sleep(0.5)
    pauses, walls = [], []
    try:
        for i in range(rounds):
            out = os.path.join(work, f"snap{i}")
            shutil.rmtree(out, ignore_errors=True)
            argv = [covkit, "live", "dump", str(p.pid), "-o", out] + (["--no-stop"] if no_stop else [])
            if reset:
                argv = [covkit, "live", "dump", "--reset", str(p.pid)]
            t = time.monotonic()
            r = subprocess.run(argv, capture_output=True, text=True, env=env)
            walls.append((time.monotonic() - t) * 1000)
            if r.returncode != 0:
                sys.exit(r.stderr)
            m = re.search(r"(\d+) functions.*stopped for ([0-9.]+) ms", r.stdout)
            if m:
                pauses.append(float(m.group(2)))
                functions = int(m.group(1))
            shutil.rmtree(out, ignore_errors=True)
    finally:
        p.kill()
        p.wait()
    return pauses, walls


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default="build/covkit")
    ap.add_argument("--functions", type=int, default=3000)
    ap.add_argument("--objects", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args()
    covkit = os.path.abspath(a.covkit)
    with tempfile.TemporaryDirectory() as work:
        exe = build(work, a.objects, max(1, a.functions // a.objects))
        cores = os.cpu_count() or 1
        print(f"program: {a.objects} objects x {a.functions // a.objects} functions (gcc-12, atomic), {cores} cores")
        for busy in (0, cores):
            pauses, walls = measure(covkit, exe, busy, a.rounds, work)
            _, nostop = measure(covkit, exe, busy, a.rounds, work, no_stop=True)
            resets, _ = measure(covkit, exe, busy, a.rounds, work, reset=True)
            print(f"{busy} busy threads: pause median {statistics.median(pauses):.3f} ms, max {max(pauses):.3f} ms; "
                  f"whole dump {statistics.median(walls):.1f} ms, with --no-stop {statistics.median(nostop):.1f} ms; "
                  f"--reset pause median {statistics.median(resets):.3f} ms, max {max(resets):.3f} ms")


if __name__ == "__main__":
    main()
