#!/usr/bin/env python3
"""Huge inputs (sparse files: no disk space used): covkit's memory follows
what the format lets it skip, not the file's size, and what cannot fit is a
one-line error, never an abort.

  - a 3 GB .gcda (a giant counter record for a function its notes file does
    not have, then the real records): `covkit report` and `covkit gcov` give
    the same output as for the real file, in under 200 MB;
  - a 20 GB tracefile and a 20 GB covkit JSON file: one line naming the file;
  - `covkit merge` of the 3 GB file with 1.5 GB of address space: one line
    ("out of memory"), and no output.

Usage: run_big_inputs.py COVKIT WORKDIR   (exit 77: gcc-12 missing)
"""
import os
import resource
import shutil
import struct
import subprocess
import sys

MAX_RSS_MB = 200
# Two counter records of 1.5 GB: a record's length is a signed 32-bit word
# (negative lengths mark all-zero records since GCC 11).
GIANT = 3 << 29


def run(cmd, cwd, limit_as=None):
    def pre():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    r = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + cmd, cwd=cwd, capture_output=True, text=True,
                       preexec_fn=pre)
    lines = r.stderr.splitlines()
    rss_kb = int(lines[-1].split()[1]) if lines and lines[-1].startswith("RSS ") else -1
    return r.returncode, r.stdout, [l for l in lines if not l.startswith("RSS ") and
                                    not l.startswith("Command exited with non-zero status")], rss_kb


def giant_gcda(real, out):
    """Header of `real` (gcc-12: 16 bytes), two functions its notes file does
    not have (idents 0x7ffffffe/f), each with 1.5 GB of arc counters (zeros,
    sparse), then the rest of `real`."""
    data = open(real, "rb").read()
    header = 16
    with open(out, "wb") as f:
        f.write(data[:header])
        for ident in (0x7ffffffe, 0x7fffffff):
            f.write(struct.pack("<II", 0x01000000, 12) + struct.pack("<III", ident, 1, 2))
            f.write(struct.pack("<II", 0x01a10000, GIANT))
            f.seek(GIANT, os.SEEK_CUR)
        f.write(data[header:])


def main():
    covkit, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not shutil.which("gcc-12"):
        print("SKIP: gcc-12 is not installed")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    ref, big = os.path.join(work, "ref"), os.path.join(work, "big")
    os.makedirs(ref)
    with open(os.path.join(ref, "p.c"), "w") as f:
        f.write("int f(int x) { return x & 1 ? x : -x; }\nint main(void) { int s = 0;\n"
                "  for (int i = 0; i < 10; i++) s += f(i);\n  return s == 5; }\n")
    subprocess.run(["gcc-12", "--coverage", "-O0", "-o", "p", "p.c"], cwd=ref, check=True)
    subprocess.run(["./p"], cwd=ref)
    shutil.copytree(ref, big)
    gcda = [n for n in os.listdir(ref) if n.endswith(".gcda")][0]
    giant_gcda(os.path.join(ref, gcda), os.path.join(big, gcda))
    failures = []

    def check(what, ok, detail=""):
        print("%s %s %s" % ("ok  " if ok else "FAIL", what, detail))
        if not ok:
            failures.append(what)

    # Same report and gcov output as the real file, in little memory.
    for args in (["report", "--lcov", "out.info", "."], ["gcov", "-b", "-c", "p.c"]):
        rc_ref, _, err_ref, _ = run([covkit] + args, ref)
        rc, _, err, rss = run([covkit] + args, big)
        name = "covkit " + args[0] + " of a 3 GB .gcda"
        check(name + ": exit status as for the real file", rc == rc_ref == 0, "(%d, %d) %s" % (rc, rc_ref, err))
        check(name + ": peak RSS under %d MB" % MAX_RSS_MB, 0 < rss < MAX_RSS_MB * 1024, "(%d MB)" % (rss // 1024))
    same = open(os.path.join(ref, "out.info")).read() == open(os.path.join(big, "out.info")).read()
    check("covkit report of a 3 GB .gcda: the same tracefile", same)
    same = open(os.path.join(ref, "p.c.gcov")).read() == open(os.path.join(big, "p.c.gcov")).read()
    check("covkit gcov of a 3 GB .gcda: the same p.c.gcov", same)

    # 20 GB tracefiles: one line naming the file.
    for name, head in (("huge.info", b"SF:/x.c\nDA:1,"), ("huge.json", b'{"format": "covkit-coverage", "files": [')):
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(head)
            f.truncate(20 << 30)
        for args in (["report", "-a", path, "-q"], ["merge", "-o", os.path.join(work, "m.info"), path]):
            rc, _, err, rss = run([covkit] + args, work)
            check("covkit %s of a 20 GB %s: one line naming it, exit 1" % (args[0], name),
                  rc == 1 and len(err) == 1 and path in err[0], "(%d) %s" % (rc, err))
            check("covkit %s of a 20 GB %s: peak RSS under %d MB" % (args[0], name, MAX_RSS_MB),
                  0 < rss < MAX_RSS_MB * 1024, "(%d MB)" % (rss // 1024))
        os.unlink(path)

    # A merge that must hold the counters, in too little memory: one line.
    trees = [os.path.join(work, t) for t in ("t1", "t2")]
    for t in trees:
        shutil.copytree(big, t)
    out = os.path.join(work, "merged")
    rc, _, err, _ = run([covkit, "merge", "-o", out] + trees, work, limit_as=1536 << 20)
    check("covkit merge without the memory for it: one line, exit 1",
          rc == 1 and len(err) == 1 and "out of memory" in err[0], "(%d) %s" % (rc, err))
    check("covkit merge without the memory for it: no output", not os.path.exists(out))
    leftovers = [n for n in os.listdir(work) if ".covkit-staging-" in n]
    check("covkit merge without the memory for it: nothing left behind", not leftovers, str(leftovers))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
