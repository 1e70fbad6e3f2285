#!/usr/bin/env python3
"""The block trace (COVKIT_BLOCKS_TRACE, covkit blocks dump) of gcc trace-pc
and clang trace-pc-guard programs run with libcovkit-blocks:

  order     f(i) for i = 0, 1, 2 takes its even, odd, even return: the
            dump's lines of those two returns come in that order, once each
  counts    the trace holds each block as often as the block file counts
            it (the same run, two recordings), nothing dropped
  bound     a bound of 16 events: 16 kept, the rest counted as dropped in
            the trace and the block file, said by dump and by report;
            kept + dropped equals the block file's total
  threads   two threads: every event kept (none unwritten, none lost),
            again as many as the block file counts
  refused   a cut trace, and a block file with no trace beside it: one
            line naming the file, exit 1

  run_block_trace.py COVKIT BUILD_DIR     (exit 0 pass, 1 fail, 77 skip)
"""
import collections
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_checks import check, finish, run  # noqa: E402

PROGRAM = r"""#include <pthread.h>
#include <stdlib.h>

static int f(int x)
{
  if (x & 1)
    return x * 3; /* ODD */
  return x + 1; /* EVEN */
}

static void *spin(void *arg)
{
  long n = (long)arg, s = 0;
  for (long i = 0; i < n; i++)
    s += f((int)i);
  return (void *)s;
}

int main(int argc, char **argv)
{
  long loops = argc > 1 ? atol(argv[1]) : 3;
  if (argc > 2) {
    pthread_t a, b;
    pthread_create(&a, 0, spin, (void *)loops);
    pthread_create(&b, 0, spin, (void *)loops);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return 0;
  }
  return spin((void *)loops) == 0;
}
"""
ODD = PROGRAM.split("\n").index("    return x * 3; /* ODD */") + 1
EVEN = PROGRAM.split("\n").index("  return x + 1; /* EVEN */") + 1


def block_file(path):
    """(module, address) -> count, and the dropped line's five numbers."""
    counts, module, dropped = {}, None, None
    for line in open(path):
        w = line.split()
        if w[0] == "module":
            module = line.split(" ", 2)[2].strip()
        elif w[0] == "b":
            counts[(module, int(w[1], 16))] = int(w[2])
        elif w[0] == "dropped":
            dropped = [int(x) for x in w[1:]]
    return counts, dropped


def dump_events(text):
    """[(module basename, address, line or None, repeat)] and the header."""
    lines = text.splitlines()
    events = []
    for line in lines[1:]:
        m = re.match(r"^(\d+) (\S+) (0x[0-9a-f]+)(?: \S+\+0x[0-9a-f]+)?(?: \S+:(\d+))?(?: x(\d+))?$", line)
        if m:
            events.append((m.group(2), int(m.group(3), 16), int(m.group(4)) if m.group(4) else None,
                           int(m.group(5) or 1)))
    return events, lines[0] if lines else ""


def scenario(covkit, build, tmp, name, compiler, flags):
    d = os.path.join(tmp, name.replace(" ", "_"))
    os.makedirs(d)
    with open(os.path.join(d, "p.c"), "w") as f:
        f.write(PROGRAM)
    link = ["-L", build, "-lcovkit-blocks", "-Wl,-rpath," + build, "-pthread"]
    if compiler.startswith("clang"):
        link.append("-fno-sanitize-link-runtime")
    r = run([compiler, "-O0", "-g", "-gdwarf-4"] + flags + ["p.c", "-o", "prog"] + link, cwd=d)
    if r.returncode:
        check(False, f"{name}: build: {r.stderr}")
        return

    def record(tag, args, bound):
        env = dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, tag), COVKIT_BLOCKS_TRACE=bound)
        r = run(["./prog"] + args, cwd=d, env=env)
        check(os.path.exists(os.path.join(d, tag + ".trace")), f"{name} {tag}: no trace written: {r.stderr}")
        return os.path.join(d, tag)

    # order: even, odd, even.
    b = record("order", ["3"], "1M")
    r = run([covkit, "blocks", "dump", b + ".trace"], cwd=d)
    check(r.returncode == 0, f"{name} order: dump: {r.returncode} {r.stderr}")
    events, header = dump_events(r.stdout)
    returns = [e[2] for e in events if e[0] == "prog" and e[2] in (ODD, EVEN)]
    collapsed = [x for i, x in enumerate(returns) if i == 0 or returns[i - 1] != x]
    check(collapsed == [EVEN, ODD, EVEN], f"{name} order: the returns of f ran {collapsed}, not even, odd, even "
                                          f"(lines {EVEN}, {ODD}):\n{r.stdout[:2000]}")
    # counts: the trace's blocks as often as the block file says.
    counts, dropped = block_file(b)
    seen = collections.Counter()
    for module, address, _, repeat in events:
        seen[(module, address)] += repeat
    want = collections.Counter({(os.path.basename(m), a): c for (m, a), c in counts.items()})
    check(seen == want and sum(want.values()) >= 10, f"{name} counts: trace {sorted(seen.items())[:6]} vs block file "
                                                    f"{sorted(want.items())[:6]}")
    check(dropped == [0, 0, 0, 0, 0, 0] and " 0 past the bound" in header, f"{name} counts: dropped {dropped} {header}")
    # The same from the block file's name, addresses only.
    r2 = run([covkit, "blocks", "dump", "--addresses", b], cwd=d)
    check(r2.returncode == 0 and len(r2.stdout.splitlines()) == len(r.stdout.splitlines()) and "f+0x" not in r2.stdout,
          f"{name}: dump --addresses of the block file: {r2.returncode} {r2.stderr}")

    # bound: 64 bytes, 16 events.
    b = record("bound", ["1000"], "64")
    counts, dropped = block_file(b)
    total = sum(counts.values())
    r = run([covkit, "blocks", "dump", b + ".trace"], cwd=d)
    events, header = dump_events(r.stdout)
    kept = sum(e[3] for e in events)
    check(r.returncode == 0 and kept == 16 and dropped[4] == total - 16 and
          f"{total - 16} past the bound of 16" in header and f"{total - 16} event(s) dropped" in r.stderr,
          f"{name} bound: kept {kept}, block file total {total}, dropped {dropped}: {header} / {r.stderr}")
    r = run([covkit, "blocks", "report", "--lcov", "-", b], cwd=d)
    check(r.returncode == 0 and f"dropped {total - 16} event(s)" in r.stderr,
          f"{name} bound: blocks report does not say the drop: {r.stderr}")

    # threads: all kept, as many as counted.
    b = record("threads", ["20000", "2"], "64M")
    counts, dropped = block_file(b)
    r = run([covkit, "blocks", "dump", "--addresses", b + ".trace"], cwd=d)
    events, header = dump_events(r.stdout)
    kept = sum(e[3] for e in events)
    check(r.returncode == 0 and kept == sum(counts.values()) and kept > 80000 and dropped[4] == 0 and
          " 0 unwritten" in header, f"{name} threads: kept {kept} of {sum(counts.values())}: {header}")


def refused(covkit, tmp):
    d = os.path.join(tmp, "refused")
    os.makedirs(d)
    cut = os.path.join(d, "cut.trace")
    with open(cut, "wb") as f:
        f.write(b"covkit-block-trace 1\npid 1\nbound 8\ndropped 0 0\nmodule 0 /x\ni 1 10\nevents 2\n\x01\x00\x00\x00")
    r = run([covkit, "blocks", "dump", cut])
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "cut.trace" in r.stderr and "cut short" in r.stderr,
          f"cut trace: {r.returncode} {r.stderr!r}")
    lone = os.path.join(d, "lone.blocks")
    with open(lone, "w") as f:
        f.write("covkit-blocks 1\npid 1\ndropped 0 0 0 0 0\nend\n")
    r = run([covkit, "blocks", "dump", lone])
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "without a block trace" in r.stderr,
          f"block file without a trace: {r.returncode} {r.stderr!r}")


def main():
    covkit, build = (os.path.abspath(a) for a in sys.argv[1:3])
    if not os.path.exists(os.path.join(build, "libcovkit-blocks.so")) or not shutil.which("gcc"):
        print("libcovkit-blocks.so or gcc missing: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="covkit-block-trace-")
    try:
        scenario(covkit, build, tmp, "gcc trace-pc", "gcc", ["-fsanitize-coverage=trace-pc"])
        if shutil.which("clang-14"):
            scenario(covkit, build, tmp, "clang trace-pc-guard", "clang-14", ["-fsanitize-coverage=trace-pc-guard"])
        else:
            print("clang-14 missing: trace-pc-guard not checked")
        refused(covkit, tmp)
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
