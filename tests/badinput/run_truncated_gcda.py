#!/usr/bin/env python3
"""A .gcda that ends early: `covkit gcov` writes what gcov-12 and gcov-11 write.

gcov keeps what it read of a record the file ends inside: a word or counter
it cannot read whole is 0, a missing length word is 0 (a function record of
length 0 is a placeholder, an arc record of length 0 a profile mismatch),
and the end of the file where a tag should be ends the file quietly.  This
compiles two small programs with gcc-12 and gcc-11 --coverage, runs them,
cuts each .gcda at every 4th byte and in the middle of every other word
(inside the header, between records, inside function records, at counter
boundaries and mid-counter, inside the object summary) and compares the
.gcov text (-b -c), the stdout and the -j JSON of covkit gcov with the
compiler's gcov byte for byte.  covkit's stderr line and exit status 4 are
its own (docs/covkit-gcov.md) and not compared.

Usage: run_truncated_gcda.py COVKIT WORKDIR.  Exit 0 same, 1 differences
(listed), 77 no compiler.
"""
import concurrent.futures
import gzip
import os
import shutil
import subprocess
import sys

PROGRAMS = {
    "loops.c": r"""#include <stdio.h>
static int sq(int x) { return x * x; }
int tri(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i % 3) s += sq(i); else s -= i; } return s; }
int rarely(int n) { if (n > 1000) return 1; return 0; }
int main(int argc, char **argv) {
  int t = 0;
  for (int k = 0; k < 50 + argc; k++) t += tri(k);
  t += rarely(t);
  printf("%d\n", t);
  return 0;
}
""",
    # Many arcs in one record (a cut lands inside a long counter run), a
    # function never called (an all-zero record in GCC >= 11's layout) and
    # one called a huge number of times (counters with a high word).
    "switchy.c": r"""#include <stdio.h>
#include <setjmp.h>
static jmp_buf env;
static int never(int x) { return x + 1; }
static int classify(unsigned v) {
  switch (v % 11) {
    case 0: return 3; case 1: return v & 1; case 2: return 7; case 3: return (int)(v >> 2);
    case 4: if (v > 100) return 9; return 1; case 5: return 2; case 6: return v % 5;
    case 7: return -1; case 8: return 4; case 9: longjmp(env, 1); default: return 0;
  }
}
int main(int argc, char **argv) {
  long long s = 0;
  for (unsigned i = 0; i < 200000u + (unsigned)argc; i++) {
    if (setjmp(env) == 0) s += classify(i); else s -= 1;
  }
  if (argc > 5) s += never(argc);
  printf("%lld\n", s);
  return 0;
}
""",
}


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=60)


def outputs(tool, work, src):
    """What one gcov run leaves: stdout, the .gcov text and the JSON."""
    for f in os.listdir(work):
        if f.endswith(".gcov") or f.endswith(".json.gz"):
            os.unlink(os.path.join(work, f))
    text = run(tool + ["-b", "-c", src], work)
    gcov = open(os.path.join(work, src + ".gcov"), "rb").read() if os.path.exists(os.path.join(work, src + ".gcov")) else None
    run(tool + ["-j", src], work)
    stem = os.path.splitext(src)[0]
    jpath = os.path.join(work, stem + ".gcov.json.gz")
    json = gzip.open(jpath).read() if os.path.exists(jpath) else None
    return text.stdout, gcov, json, text.returncode, text.stderr


def cuts(size):
    # Every 4th byte (word boundaries: headers, tags, lengths, fields,
    # counter halves) and the middle of every other word (mid-counter).
    return sorted(set(range(0, size + 1, 4)) | set(range(2, size, 8)))


def check_one(covkit, gcov, work, src, full, n):
    with open(os.path.join(work, os.path.splitext(src)[0] + ".gcda"), "wb") as f:
        f.write(full[:n])
    want = outputs([gcov], work, src)
    got = outputs([covkit, "gcov"], work, src)
    bad = [what for what, a, b in zip(("stdout", ".gcov", "JSON"), want[:3], got[:3]) if a != b]
    if want[1] is None or want[2] is None:
        bad.append("gcov wrote no .gcov or JSON (nothing compared)")
    # Past the header (16 bytes in GCC 12's, 12 in GCC 11's) and short of the
    # whole file, covkit says where the file stops and exits 4, even where
    # the cut falls between two records (gcov reads a shorter file there).
    header = 16 if full[6:7] >= b"2" else 12  # the version's second character: "B22*" for 12.2, "B13*" for 11.3
    if header <= n < len(full) and (got[3] != 4 or b"corrupted at byte" not in got[4]):
        bad.append(f"covkit's exit status ({got[3]}, not 4) or its line naming the offset ({got[4][-200:]!r})")
    return n, bad


def main():
    covkit, workdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    compilers = [(v, "gcc-" + v, "gcov-" + v) for v in ("12", "11") if shutil.which("gcc-" + v) and shutil.which("gcov-" + v)]
    if not compilers:
        print("no gcc-12/gcc-11 with its gcov: skipped")
        return 77
    shutil.rmtree(workdir, ignore_errors=True)
    jobs, failures, total = [], [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for v, gcc, gcov in compilers:
            for src, text in PROGRAMS.items():
                build = os.path.join(workdir, v, os.path.splitext(src)[0])
                os.makedirs(build)
                with open(os.path.join(build, src), "w") as f:
                    f.write(text)
                obj = os.path.splitext(src)[0] + ".o"
                if (run([gcc, "--coverage", "-O0", "-c", src], build).returncode or
                        run([gcc, "--coverage", obj, "-o", "prog"], build).returncode or run(["./prog"], build).returncode):
                    print(f"{gcc}: {src} did not build or run")
                    return 1
                gcda = os.path.join(build, os.path.splitext(src)[0] + ".gcda")
                full = open(gcda, "rb").read()
                os.unlink(gcda)
                # One work directory per cut: runs in parallel never share one.
                for n in cuts(len(full)):
                    work = os.path.join(build, f"cut{n}")
                    os.makedirs(work)
                    for f in (src, os.path.splitext(src)[0] + ".gcno"):
                        shutil.copy(os.path.join(build, f), work)
                    jobs.append((gcov, src, len(full), pool.submit(check_one, covkit, gcov, work, src, full, n)))
        for gcov, src, size, job in jobs:
            n, bad = job.result()
            total += 1
            if bad:
                failures.append(f"{gcov} {src}: .gcda cut at {n} of {size} bytes: {', '.join(bad)} differ")
    for f in failures:
        print(f)
    print(f"{total} cuts compared, {len(failures)} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
