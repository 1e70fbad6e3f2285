#!/usr/bin/env python3
"""The CPU time of one `covkit live dump`, and where it goes, beside the peers:
the program's own libgcov writing the same files (`__gcov_dump();
__gcov_reset()` from a signal handler, the in-process way), and gdb attaching
to call them (where gdb can call functions: on some kernels it cannot write
the AVX-512 register state back, and the bench says so).

Builds a program of OBJECTS x FUNCS functions (gcc-12 --coverage; the
default 120 x 12 is issue 36's "120 objects, ~1,440 functions" server),
runs it idle, and for ROUNDS rounds times, each its own process:

  covkit live dump PID -o DIR            a snapshot into a new directory
  covkit live dump --reset PID           into the program's own files (journaled)
  kill -USR1 PID                         its handler calls __gcov_dump(); __gcov_reset()
  gdb -p PID -batch -ex 'call (void)__gcov_dump()' -ex 'call (void)__gcov_reset()'

The CPU time counted is the tool's (user + system, from getrusage of the
child) plus what the program itself spent meanwhile (its own utime + stime:
gdb's dump runs inside it). Prints the medians, the ratio gdb / covkit, and
covkit's own split by phase for both (COVKIT_TIMING=1, medians of the CPU column).

  bench/live_dump_cpu.py [--covkit build/covkit] [--objects 120] [--funcs 12] [--rounds 20]
                         [--out DIR]   (where -o dumps go; default a new directory under /tmp)
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from live_pause import build  # noqa: E402  (the same generated program)

HANDLER = r"""
#include <signal.h>
#include <unistd.h>
void __gcov_dump(void);
void __gcov_reset(void);
static void own_dump(int sig) { (void)sig; __gcov_dump(); __gcov_reset(); write(1, "d\n", 2); }
__attribute__((constructor)) static void install(void) { signal(SIGUSR1, own_dump); }
"""


def process_cpu_ms(pid):
    """The time the process's threads ran, in ns steps (schedstat), as ms."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except OSError:
            pass
    return total / 1e6


def create_cost_ms(directory, n):
    """The file system's own CPU cost of creating n small files in a new directory there."""
    d = os.path.join(directory, f"covkit-live-bench-fs-{os.getpid()}")
    os.makedirs(d)
    before = resource.getrusage(resource.RUSAGE_SELF)
    for i in range(n):
        fd = os.open(os.path.join(d, f"f{i}.gcda"), os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644)
        os.write(fd, b"\0" * 512)
        os.close(fd)
    after = resource.getrusage(resource.RUSAGE_SELF)
    shutil.rmtree(d)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def timed(argv, pid, env=None, check=True):
    """CPU ms of running `argv` to its end, plus the target's own CPU meanwhile."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    target = process_cpu_ms(pid)
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    if r.returncode != 0 and check:
        sys.exit(f"{' '.join(argv)}: {r.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tool = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return tool + process_cpu_ms(pid) - target, r


def gdb_call(gdb, pid):
    return [gdb, "-p", str(pid), "-batch", "-nx", "-ex", "call (void)__gcov_dump()", "-ex", "call (void)__gcov_reset()"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default="build/covkit")
    ap.add_argument("--objects", type=int, default=120)
    ap.add_argument("--funcs", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--out", help="where the -o dumps go (a file system to compare: /dev/shm)")
    a = ap.parse_args()
    covkit = os.path.abspath(a.covkit)
    gdb = shutil.which("gdb")
    with tempfile.TemporaryDirectory() as work:
        exe = build(work, a.objects, a.funcs)
        # Linked again with a SIGUSR1 handler (not instrumented) that makes
        # the program's libgcov dump and reset, as a program that dumps
        # itself does.
        with open(os.path.join(work, "handler.c"), "w") as f:
            f.write(HANDLER)
        subprocess.run(["gcc-12", "-O2", "-c", "handler.c", "-o", "handler.obj"], check=True, cwd=work)
        objs = sorted(os.path.join(work, f) for f in os.listdir(work) if f.endswith(".o"))
        subprocess.run(["gcc-12", "--coverage", "-o", exe] + objs + [os.path.join(work, "handler.obj"), "-lpthread"],
                       check=True, cwd=work)
        out_root = a.out or work
        # The program's own files (GCOV_PREFIX) and covkit's journal on the
        # same file system as the -o dumps.
        own = os.path.join(out_root, f"covkit-live-bench-own-{os.getpid()}")
        state = os.path.join(out_root, f"covkit-live-bench-state-{os.getpid()}")
        env = dict(os.environ, GCOV_PREFIX=own, COVKIT_STATE_DIR=state)
        gdb_works, gdb_error = gdb is not None, ""
        if gdb:  # a failed call can leave the program dead: tried on a copy first
            probe = subprocess.Popen([exe, "0"], stdin=subprocess.PIPE, cwd=work, env=env)
            time.sleep(0.3)
            r = subprocess.run(gdb_call(gdb, probe.pid), capture_output=True, text=True)
            gdb_works = r.returncode == 0 and "Couldn't" not in r.stderr and "No symbol" not in r.stderr
            gdb_error = (r.stderr.strip().splitlines() or ["?"])[-1]
            probe.kill()
            probe.wait()
        p = subprocess.Popen([exe, "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=work, env=env)
        time.sleep(0.5)
        snap_cpu, reset_cpu, own_cpu, gdb_cpu, phases, reset_phases = [], [], [], [], {}, {}
        summary = ""
        try:
            for i in range(a.rounds):
                out = os.path.join(out_root, f"covkit-live-bench-{os.getpid()}-{i}")
                shutil.rmtree(out, ignore_errors=True)
                ms, r = timed([covkit, "live", "dump", str(p.pid), "-o", out], p.pid,
                              env=dict(env, COVKIT_TIMING="1"))
                snap_cpu.append(ms)
                summary = r.stdout.splitlines()[0]
                for m in re.finditer(r"covkit timing: (.+?)\s+[0-9.]+ ms\s+cpu\s+([0-9.]+) ms", r.stderr):
                    phases.setdefault(m.group(1), []).append(float(m.group(2)))
                shutil.rmtree(out, ignore_errors=True)
                ms, r = timed([covkit, "live", "dump", "--reset", str(p.pid)], p.pid, env=dict(env, COVKIT_TIMING="1"))
                reset_cpu.append(ms)
                for m in re.finditer(r"covkit timing: (.+?)\s+[0-9.]+ ms\s+cpu\s+([0-9.]+) ms", r.stderr):
                    reset_phases.setdefault(m.group(1), []).append(float(m.group(2)))
                target = process_cpu_ms(p.pid)
                os.kill(p.pid, 10)  # SIGUSR1
                p.stdout.readline()
                own_cpu.append(process_cpu_ms(p.pid) - target)
                if gdb_works:
                    ms, _ = timed(gdb_call(gdb, p.pid), p.pid)
                    gdb_cpu.append(ms)
            # A start that does nothing: covkit's fixed cost (loading, relocations).
            start = [timed([covkit, "--version"], p.pid)[0] for _ in range(a.rounds)]
            fs = [create_cost_ms(out_root, a.objects + 1) for _ in range(a.rounds)]
        finally:
            p.kill()
            p.wait()
            shutil.rmtree(own, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)
        med = statistics.median
        print(f"program: {summary}")
        print(f"covkit live dump -o DIR:        {med(snap_cpu):6.1f} ms CPU (median of {a.rounds}; "
              f"min {min(snap_cpu):.1f}, max {max(snap_cpu):.1f})")
        print(f"covkit live dump --reset:       {med(reset_cpu):6.1f} ms CPU (own files, journaled)")
        print(f"libgcov's own dump + reset:     {med(own_cpu):6.1f} ms CPU (in the program, its own files)")
        print(f"ratio libgcov / covkit --reset: {med(own_cpu) / med(reset_cpu):6.2f}x")
        if gdb_cpu:
            print(f"gdb __gcov_dump + __gcov_reset: {med(gdb_cpu):6.1f} ms CPU")
            print(f"ratio gdb / covkit --reset:     {med(gdb_cpu) / med(reset_cpu):6.1f}x")
        elif gdb:
            print(f"gdb cannot call the program's functions here: {gdb_error}")
        print(f"covkit --version (start-up):    {med(start):6.1f} ms CPU")
        print(f"the file system alone:          {med(fs):6.1f} ms CPU to create {a.objects + 1} files in {out_root}")
        print("covkit live dump -o DIR, CPU by phase (medians):")
        for name, values in phases.items():
            print(f"  {name:24s} {med(values):6.2f} ms")
        print("covkit live dump --reset, CPU by phase (medians):")
        for name, values in reset_phases.items():
            print(f"  {name:24s} {med(values):6.2f} ms")


if __name__ == "__main__":
    main()
