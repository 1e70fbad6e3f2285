#!/usr/bin/env python3
"""tool_cpu.py COMMANDS.json [REPEAT]: runs each {"cwd", "argv"} of COMMANDS.json in
order (stdin, stdout and stderr /dev/null; stops at the first that fails) and
prints "cpu wall": the user + system CPU seconds of the tool's processes alone
(getrusage(RUSAGE_CHILDREN) before and after: each process's exec, dynamic
loading, threads and exit count, this driver does not) and the sum of their
wall times (spawn to reaped).

Why: a bench that times a shell script charges both tools for the shell
(bash's start, and a fork per command whose child does its bookkeeping
before exec), which is neither tool's cost; on a code base of a few small
objects it was two fifths of covkit's total. The child is started the way
subprocess does it (vfork and exec, no preexec work), so what is left of
the harness in a child's account is a few system calls before exec.

REPEAT (default 1) runs the whole list that many times and prints the
figures of one pass (the totals divided by REPEAT): a tree of one object is
about a millisecond a pass, which one pass's rusage does not resolve."""
import json
import os
import resource
import subprocess
import sys
import time


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: tool_cpu.py COMMANDS.json [REPEAT]", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        commands = json.load(f)
    repeat = int(sys.argv[2]) if len(sys.argv) == 3 else 1
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = 0.0
    for c in commands * repeat:
        start = time.perf_counter()
        p = subprocess.Popen(c["argv"], cwd=c["cwd"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False)
        rc = p.wait()
        wall += time.perf_counter() - start
        if rc != 0:
            print(f"tool_cpu.py: exit status {rc}: (cd {c['cwd']} && {' '.join(c['argv'])})", file=sys.stderr)
            return 1
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{cpu / repeat:.6f} {wall / repeat:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
