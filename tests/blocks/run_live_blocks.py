#!/usr/bin/env python3
"""covkit blocks report --pid: the inline counters of a running process
(clang -fsanitize-coverage=inline-8bit-counters or inline-bool-flag, with
pc-table), read while it waits on its standard input:

  exit      built with libcovkit-blocks: the lines before the wait have the
            counts (modulo 256) the block file written at its exit gives
  truth     built as clang links it by default (its own sanitizer runtime,
            no covkit runtime): the covered lines before the wait are those
            of the same source built with gcc --coverage
  unchanged the process goes on and exits 0 after the read
  children  --children adds a forked worker's counters: the worker's lines
            are covered with it, not without; the lines before the fork are
            counted once (libcovkit-blocks zeroes a child's counters)
  reset     --reset zeroes what it read in the same stop: the next read
            counts only what ran since (8-bit counters and bool flags); a
            report that cannot be written gives the counts back (the next
            read has them and what ran in between); --reset without --pid
            or with --no-stop is refused
  refused   a process without inline counters, a pid that does not exist:
            one line, exit 1

  run_live_blocks.py COVKIT BUILD_DIR     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_checks import check, finish, run  # noqa: E402

SERVER = r"""#include <stdio.h>
#include <unistd.h>

static int work(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    if (i % 3)
      s += i;
    else
      s -= i;
  return s;
}

static void never(void)
{
  puts("never");
}

int main(int argc, char **argv)
{
  int s = work(1000);
  FILE *f = fopen(argv[1], "w");
  fprintf(f, "%d\n", s);
  fclose(f);
  char c;
  while (read(0, &c, 1) > 0) { /* WAIT */
  }
  if (s == 12345)
    never();
  return 0;
}
"""
WAIT = SERVER.split("\n").index("  while (read(0, &c, 1) > 0) { /* WAIT */") + 1


def lcov_lines(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("DA:"):
            n, c = line[3:].split(",")[:2]
            out[int(n)] = max(out.get(int(n), 0), int(c))
    return out


class Server:
    """The program started with a pipe for its standard input; ready when
    it has written its file."""

    def __init__(self, d, exe, env=None):
        self.ready = os.path.join(d, "ready")
        if os.path.exists(self.ready):
            os.remove(self.ready)
        self.p = subprocess.Popen([exe, self.ready], cwd=d, stdin=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 120
        while not (os.path.exists(self.ready) and open(self.ready).read().endswith("\n")):
            if time.monotonic() > deadline or self.p.poll() is not None:
                raise RuntimeError(f"{exe} did not get ready")
            time.sleep(0.02)

    def finish(self):
        self.p.stdin.close()
        return self.p.wait(timeout=120)


def live_lcov(covkit, d, pid):
    r = run([covkit, "blocks", "report", "-q", "--pid", str(pid), "--lcov", "-"], cwd=d)
    check(r.returncode == 0, f"blocks report --pid: {r.returncode} {r.stderr}")
    return lcov_lines(r.stdout)


def before_wait(lines):
    return {n: c for n, c in lines.items() if n < WAIT}


def scenario(covkit, build, tmp, kind):
    d = os.path.join(tmp, kind)
    os.makedirs(d)
    with open(os.path.join(d, "srv.c"), "w") as f:
        f.write(SERVER)
    flags = ["-O0", "-g", "-gdwarf-4", f"-fsanitize-coverage={kind},pc-table"]
    # exit: with covkit's runtime, the live read against its block file.
    r = run(["clang-14"] + flags + ["srv.c", "-o", "with-runtime", "-fno-sanitize-link-runtime", "-L", build,
                                    "-lcovkit-blocks", "-Wl,-rpath," + build], cwd=d)
    check(r.returncode == 0, f"{kind}: build: {r.stderr}")
    s = Server(d, os.path.join(d, "with-runtime"), dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, "at-exit")))
    live = live_lcov(covkit, d, s.p.pid)
    check(s.finish() == 0, f"{kind}: the process did not exit 0 after the read")
    r = run([covkit, "blocks", "report", "-q", "--lcov", "-", "at-exit"], cwd=d)
    at_exit = lcov_lines(r.stdout)
    check(before_wait(live) == before_wait(at_exit) and sum(1 for c in before_wait(live).values() if c) >= 8,
          f"{kind} exit: live {sorted(before_wait(live).items())} vs at exit {sorted(before_wait(at_exit).items())}")
    if kind == "inline-8bit-counters":
        # 1000 iterations: 1000 modulo 256 on the loop's lines.
        check(232 in live.values(), f"{kind}: no loop line counted 1000 mod 256: {sorted(live.items())}")
    # truth: clang's default link, no covkit runtime; gcc --coverage lines.
    r = run(["clang-14"] + flags + ["srv.c", "-o", "plain"], cwd=d)
    check(r.returncode == 0, f"{kind}: default build: {r.stderr}")
    s = Server(d, os.path.join(d, "plain"))
    live = live_lcov(covkit, d, s.p.pid)
    check(s.finish() == 0, f"{kind}: the plain process did not exit 0 after the read")
    t = os.path.join(d, "truth")
    os.makedirs(t)
    shutil.copy(os.path.join(d, "srv.c"), t)
    r = run(["gcc", "--coverage", "-O0", "srv.c", "-o", "srv"], cwd=t)
    s = Server(t, os.path.join(t, "srv"))
    s.finish()
    r = run([covkit, "report", "-q", "--lcov", "-", "."], cwd=t)
    truth = lcov_lines(r.stdout)
    # Lines gcov lists (clang puts a function's opening brace in its line
    # table, gcc's notes have none there).
    ran = {n for n, c in before_wait(live).items() if c and n in truth}
    truth_ran = {n for n, c in before_wait(truth).items() if c}
    check(ran == truth_ran and ran, f"{kind} truth: covered {sorted(ran)} vs gcc --coverage {sorted(truth_ran)}")
    never = SERVER.split("\n").index('  puts("never");') + 1
    check(live.get(never) == 0, f"{kind}: the never-run line is listed unrun (pc-table): {live.get(never)}")


FORKING = r"""#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_work(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i; /* CHILD */
  return s;
}

static void ready(const char *path, int v)
{
  FILE *f = fopen(path, "w");
  fprintf(f, "%d\n", v);
  fclose(f);
}

int main(int argc, char **argv)
{
  int before = argc; /* BEFORE */
  pid_t p = fork();
  char c;
  if (p == 0) {
    ready(argv[2], child_work(10));
    while (read(0, &c, 1) > 0) {
    }
    return 0;
  }
  ready(argv[1], before);
  while (read(0, &c, 1) > 0) {
  }
  waitpid(p, 0, 0);
  return 0;
}
"""


def children(covkit, build, tmp):
    d = os.path.join(tmp, "children")
    os.makedirs(d)
    with open(os.path.join(d, "fork.c"), "w") as f:
        f.write(FORKING)
    r = run(["clang-14", "-O0", "-g", "-fsanitize-coverage=inline-8bit-counters,pc-table", "fork.c", "-o", "fork",
             "-fno-sanitize-link-runtime", "-L", build, "-lcovkit-blocks", "-Wl,-rpath," + build], cwd=d)
    check(r.returncode == 0, f"children: build: {r.stderr}")
    marks = [os.path.join(d, "parent-ready"), os.path.join(d, "child-ready")]
    p = subprocess.Popen([os.path.join(d, "fork")] + marks, cwd=d, stdin=subprocess.PIPE,
                         env=dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, "at-exit.%p")))
    try:
        deadline = time.monotonic() + 120
        while not all(os.path.exists(m) and open(m).read().endswith("\n") for m in marks):
            check(time.monotonic() < deadline and p.poll() is None, "children: the program did not get ready")
            time.sleep(0.02)
        lines = FORKING.split("\n")
        child_line = lines.index("    s += i; /* CHILD */") + 1
        before_line = lines.index("  int before = argc; /* BEFORE */") + 1
        alone = live_lcov(covkit, d, p.pid)
        r = run([covkit, "blocks", "report", "-q", "--pid", str(p.pid), "--children", "--lcov", "-"], cwd=d)
        check(r.returncode == 0, f"--children: {r.returncode} {r.stderr}")
        both = lcov_lines(r.stdout)
        check(alone.get(child_line) == 0, f"--pid alone counts the worker's line: {alone.get(child_line)}")
        check(both.get(child_line) == 10, f"--children: the worker's loop line {both.get(child_line)}, not 10")
        check(both.get(before_line) == 1 and alone.get(before_line) == 1,
              f"the line before the fork: {alone.get(before_line)} alone, {both.get(before_line)} with the worker")
    finally:
        p.stdin.close()
        p.wait(timeout=120)
    files = sorted(f for f in os.listdir(d) if f.startswith("at-exit."))
    check(len(files) == 2, f"children: block files at exit {files}")
    r = run([covkit, "blocks", "report", "--children"] + files, cwd=d)
    check(r.returncode != 0 and "--pid" in r.stderr, f"--children without --pid: {r.returncode} {r.stderr!r}")


PHASED = r"""#include <stdio.h>
#include <unistd.h>

static void ack(const char *path, int v)
{
  FILE *f = fopen(path, "w");
  fprintf(f, "%d\n", v);
  fclose(f);
}

static int phase(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i; /* PHASE */
  return s;
}

int main(int argc, char **argv)
{
  int s = 0;
  for (int i = 0; i < 20; i++)
    s += i * 3; /* SETUP */
  ack(argv[1], 0);
  char c;
  int k = 0;
  while (read(0, &c, 1) > 0) {
    s += phase(10);
    ack(argv[1], ++k);
  }
  return s == 12345;
}
"""


def reset(covkit, tmp, kind):
    """One phase at a time with --reset; a failed report gives the counts back."""
    d = os.path.join(tmp, "reset-" + kind)
    os.makedirs(d)
    with open(os.path.join(d, "phased.c"), "w") as f:
        f.write(PHASED)
    r = run(["clang-14", "-O0", "-g", "-gdwarf-4", f"-fsanitize-coverage={kind},pc-table", "phased.c", "-o",
             "phased"], cwd=d)
    check(r.returncode == 0, f"reset {kind}: build: {r.stderr}")
    lines = PHASED.split("\n")
    setup = lines.index("    s += i * 3; /* SETUP */") + 1
    in_phase = lines.index("    s += i; /* PHASE */") + 1
    flag = kind == "inline-bool-flag"
    ack = os.path.join(d, "ack")
    p = subprocess.Popen([os.path.join(d, "phased"), ack], cwd=d, stdin=subprocess.PIPE)

    def acked(v):
        deadline = time.monotonic() + 120
        while not (os.path.exists(ack) and open(ack).read() == f"{v}\n"):
            check(time.monotonic() < deadline and p.poll() is None, f"reset {kind}: no ack {v}")
            time.sleep(0.02)

    def step(v):
        p.stdin.write(b"x")
        p.stdin.flush()
        acked(v)

    def read(*extra):
        r = run([covkit, "blocks", "report", "-q", "--pid", str(p.pid), "--lcov", "-"] + list(extra), cwd=d)
        check(r.returncode == 0, f"reset {kind}: blocks report {extra}: {r.returncode} {r.stderr}")
        return lcov_lines(r.stdout)

    try:
        acked(0)
        first = read("--reset")
        check(first.get(setup) == (1 if flag else 20) and first.get(in_phase) == 0,
              f"reset {kind}: first read: set-up {first.get(setup)}, phase {first.get(in_phase)}")
        step(1)
        second = read("--reset")
        check(second.get(setup) == 0 and second.get(in_phase) == (1 if flag else 10),
              f"reset {kind}: after the reset: set-up {second.get(setup)}, phase {second.get(in_phase)}")
        step(2)
        # An output that cannot be written (its directory is a file).
        r = run([covkit, "blocks", "report", "-q", "--pid", str(p.pid), "--reset", "--lcov",
                 os.path.join(d, "phased.c", "x.info")], cwd=d)
        check(r.returncode not in (0, 2) and "given back" in r.stderr,
              f"reset {kind}: an unwritable output: {r.returncode} {r.stderr!r}")
        step(3)
        third = read()
        check(third.get(setup) == 0 and third.get(in_phase) == (1 if flag else 20),
              f"reset {kind}: after a failed report, phases 2 and 3: set-up {third.get(setup)}, "
              f"phase {third.get(in_phase)}")
    finally:
        p.stdin.close()
        p.wait(timeout=120)
    check(p.returncode == 0, f"reset {kind}: the program exited {p.returncode}")
    for extra, what in ((["--reset", "phased.c"], "--pid"), (["--reset", "--no-stop", "--pid", "1"], "--no-stop")):
        r = run([covkit, "blocks", "report"] + extra, cwd=d)
        check(r.returncode == 1 and what in r.stderr and len(r.stderr.splitlines()) == 1,
              f"reset {kind}: {extra} refused: {r.returncode} {r.stderr!r}")


def refused(covkit, tmp):
    p = subprocess.Popen(["sleep", "60"])
    try:
        r = run([covkit, "blocks", "report", "--pid", str(p.pid)])
        check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "no inline counters" in r.stderr,
              f"a process without inline counters: {r.returncode} {r.stderr!r}")
    finally:
        p.kill()
        p.wait()
    r = run([covkit, "blocks", "report", "--pid", str(p.pid)])
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1, f"a gone process: {r.returncode} {r.stderr!r}")


def main():
    covkit, build = (os.path.abspath(a) for a in sys.argv[1:3])
    if not shutil.which("clang-14") or not shutil.which("gcc") or \
            not os.path.exists(os.path.join(build, "libcovkit-blocks.so")):
        print("clang-14, gcc or libcovkit-blocks.so missing: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="covkit-live-blocks-")
    try:
        for kind in ("inline-8bit-counters", "inline-bool-flag"):
            scenario(covkit, build, tmp, kind)
        children(covkit, build, tmp)
        for kind in ("inline-8bit-counters", "inline-bool-flag"):
            reset(covkit, tmp, kind)
        refused(covkit, tmp)
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
