#!/usr/bin/env python3
"""covkit report and covkit merge on clang's source-based coverage, beyond
the differential tests: GCC and clang objects of one project in one report
(against lcov -a of the two reports apart), and damaged or odd inputs (each
a one-line message naming the file; the others still reported).

  run_clang_report.py COVKIT [SCENARIO...]     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COVKIT = None
CLANG = "clang-16"
FAILS = []


def run(cmd, cwd=None, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("  FAIL:", what, flush=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def lcov_records(text):
    """file -> sorted DA/FN/FNDA/BRDA lines (the summary lines are derived)."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = out.setdefault(line[3:], [])
        elif cur is not None and line.split(":")[0] in ("DA", "FN", "FNDA", "BRDA"):
            cur.append(line)
    return {f: sorted(v) for f, v in out.items()}


COMMON_H = """static inline int twice(int v) { return v + v; }
static inline int plus(int a, int b) { return a + b; }
"""
GCC_C = """#include "common.h"
int gcc_side(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s = plus(s, twice(i));
  return s;
}
int main(int argc, char **argv) { (void)argv; return gcc_side(argc + 2) == 1; }
"""
CLANG_C = """#include "common.h"
int clang_side(int n) {
  return n > 3 ? twice(n) : plus(n, 1);
}
int main(int argc, char **argv) { (void)argv; return clang_side(argc) + clang_side(argc + 5) == 0; }
"""


def scenario_mixed(tmp):
    """One project: gprog built by gcc-12 --coverage, cprog by clang-16
    source-based; common.h is covered by both. The one report must be what
    lcov -a makes of the two reports apart (lines, functions, branches)."""
    if not shutil.which("gcc-12") or not shutil.which("lcov"):
        print("  skip: gcc-12 or lcov missing")
        return
    p = os.path.join(tmp, "mixed")
    write(os.path.join(p, "common.h"), COMMON_H)
    write(os.path.join(p, "g.c"), GCC_C)
    write(os.path.join(p, "c.c"), CLANG_C)
    for cmd in (["gcc-12", "--coverage", "-O0", "-c", "g.c", "-o", "g.o"], ["gcc-12", "--coverage", "-o", "gprog", "g.o"],
                [CLANG, "-fprofile-instr-generate", "-fcoverage-mapping", "-O0", "-o", "cprog", "c.c"]):
        r = run(cmd, cwd=p)
        check(r.returncode == 0, f"build {' '.join(cmd)}: {r.stderr}")
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(p, "prof", "%p.profraw"))
    for prog in ("./gprog", "./cprog", "./cprog"):
        run([prog], cwd=p, env=env)
    # Apart: the GCC objects only (the .gcno/.gcda), the clang side only.
    r = run([COVKIT, "report", "-q", "--lcov", os.path.join(tmp, "gcc.info"), "g.gcda"], cwd=p)
    check(r.returncode == 0, f"gcc side: {r.stderr}")
    r = run([COVKIT, "report", "-q", "--lcov", os.path.join(tmp, "clang.info"), "--object", "cprog", "prof"], cwd=p)
    check(r.returncode == 0, f"clang side: {r.stderr}")
    # Together, from the directory.
    r = run([COVKIT, "report", "-q", "--lcov", os.path.join(tmp, "mixed.info"), "-s", "."], cwd=p)
    check(r.returncode == 0, f"mixed: {r.stderr}")
    r = run(["lcov", "-q", "--rc", "lcov_branch_coverage=1", "-a", os.path.join(tmp, "gcc.info"), "-a",
             os.path.join(tmp, "clang.info"), "-o", os.path.join(tmp, "lcov.info")])
    check(r.returncode == 0, f"lcov -a: {r.stderr}")
    with open(os.path.join(tmp, "mixed.info")) as f:
        mixed = lcov_records(f.read())
    with open(os.path.join(tmp, "lcov.info")) as f:
        merged = lcov_records(f.read())
    check(sorted(mixed) == sorted(merged), f"files: covkit {sorted(mixed)}, lcov -a {sorted(merged)}")
    for f in merged:
        check(mixed.get(f) == merged[f], f"{f}: covkit {mixed.get(f)} against lcov -a {merged[f]}")
    header = os.path.join(p, "common.h")
    das = [l for l in mixed.get(header, []) if l.startswith("DA:")]
    # Both tools counted the header: gcc's twice() ran 3 times, clang's twice 1.
    check(any(l.startswith("DA:1,") and int(l.split(",")[1]) >= 4 for l in das),
          f"common.h line 1 should add GCC's and clang's counts: {das}")


def scenario_damaged(tmp):
    """Damaged and odd inputs: one line each naming the file; the good
    profile and binary are still reported; nothing useful -> exit 1."""
    p = os.path.join(tmp, "damaged")
    write(os.path.join(p, "m.c"), "int f(int x) { return x > 2 ? x : 0; }\nint main(int c, char **v) { (void)v; return f(c); }\n")
    r = run([CLANG, "-fprofile-instr-generate", "-fcoverage-mapping", "-o", "prog", "m.c"], cwd=p)
    check(r.returncode == 0, f"build: {r.stderr}")
    run(["./prog"], cwd=p, env=dict(os.environ, LLVM_PROFILE_FILE=os.path.join(p, "good.profraw")))
    with open(os.path.join(p, "good.profraw"), "rb") as f:
        good = f.read()
    bad = os.path.join(p, "bad")
    os.makedirs(bad)
    with open(os.path.join(bad, "cut.profraw"), "wb") as f:
        f.write(good[:100])
    with open(os.path.join(bad, "empty.profraw"), "wb") as f:
        pass
    with open(os.path.join(bad, "text.profdata"), "w") as f:
        f.write("not a profile\n")
    v12 = bytearray(b"\xfflprofi\x81") + (12).to_bytes(8, "little") + bytes(64)
    with open(os.path.join(bad, "v12.profdata"), "wb") as f:
        f.write(v12)
    # A binary whose mapping is damaged: its __llvm_covfun section filled with 0xff.
    shutil.copy(os.path.join(p, "prog"), os.path.join(bad, "prog2"))
    r = run(["readelf", "-SW", os.path.join(bad, "prog2")])
    m = re.search(r"__llvm_covfun\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", r.stdout)
    check(m is not None, "no __llvm_covfun in the test binary")
    if m:
        off, size = int(m.group(1), 16), int(m.group(2), 16)
        with open(os.path.join(bad, "prog2"), "r+b") as f:
            f.seek(off + 8)
            f.write(b"\xff" * min(32, size - 8))
    # Two copies of a binary whose first function's regions are damaged (its
    # record's header intact): covkit decodes a function that several
    # binaries hold alike once, yet each copy is left out with its own line.
    for copy in ("prog3", "prog4"):
        shutil.copy(os.path.join(p, "prog"), os.path.join(bad, copy))
        if m:
            with open(os.path.join(bad, copy), "r+b") as f:
                f.seek(off + 28)
                f.write(b"\xff" * 8)
    r = run([COVKIT, "report", "--lcov", os.path.join(tmp, "d.info"), "--object", "prog",
             "--object", "bad/prog2", "--object", "bad/prog3", "--object", "bad/prog4", "good.profraw", "bad"], cwd=p)
    check(r.returncode == 0, f"good inputs beside damaged ones: exit {r.returncode}")
    lines = r.stderr.splitlines()
    for name, what in (("bad/cut.profraw", "damaged raw profile"), ("bad/text.profdata", "not a clang profile"),
                       ("bad/v12.profdata", "indexed profile version 12"), ("bad/prog2", "damaged coverage mapping"),
                       ("bad/prog3", "damaged coverage mapping"), ("bad/prog4", "damaged coverage mapping")):
        hits = [l for l in lines if name in l and what in l]
        check(len(hits) == 1, f"one line for {name} saying '{what}', got: {lines}")
    check(not any("empty.profraw" in l for l in lines), f"an empty profile is skipped silently: {lines}")
    with open(os.path.join(tmp, "d.info")) as f:
        check("FNDA:1,f" in f.read(), "the good profile still counts f")
    # Nothing readable at all.
    r = run([COVKIT, "report", "--object", "bad/prog2", "bad/cut.profraw"], cwd=p)
    check(r.returncode == 1 and "nothing to report" in r.stderr, f"nothing readable: {r.returncode} {r.stderr}")
    # Profiles with no binary, binaries with no profile.
    r = run([COVKIT, "report", "good.profraw"], cwd=p)
    check(r.returncode == 1 and "no program or library with a coverage mapping" in r.stderr,
          f"profiles alone: {r.returncode} {r.stderr}")
    r = run([COVKIT, "report", "--object", "prog", "--lcov", os.path.join(tmp, "zero.info"), "m.c"], cwd=p)
    check("reported as never run" in r.stderr, f"binary alone: {r.stderr}")
    # --object that is not a binary.
    r = run([COVKIT, "report", "--object", "m.c", "."], cwd=p)
    check(r.returncode == 1 and "--object m.c: not an ELF program" in r.stderr, f"--object m.c: {r.stderr}")
    # covkit merge: all or nothing.
    out = os.path.join(tmp, "m.profdata")
    r = run([COVKIT, "merge", "-o", out, "good.profraw", "bad/cut.profraw"], cwd=p)
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "bad/cut.profraw" in r.stderr
          and not os.path.exists(out), f"merge with a damaged profile: {r.returncode} {r.stderr}")
    r = run([COVKIT, "merge", "-o", out, "good.profraw", "good.profraw", "bad/empty.profraw"], cwd=p)
    check(r.returncode == 0 and os.path.exists(out), f"merge: {r.stderr}")
    r = run([COVKIT, "report", "--lcov", "-", "--object", "prog", out], cwd=p)
    check("FNDA:2,f" in r.stdout, f"the merged profile counts both runs: {r.stdout}")
    r = run([COVKIT, "merge", "-o", out, "good.profraw", os.path.join(tmp, "d.info")], cwd=p)
    check(r.returncode == 1 and "is not a clang profile" in r.stderr, f"profiles and tracefiles: {r.stderr}")


def scenario_mismatch(tmp):
    """A binary rebuilt after its profile was written: llvm-cov's warning,
    worded by covkit, naming the binary and the functions."""
    p = os.path.join(tmp, "mismatch")
    src = "int g(int x) {\n#ifdef CHANGED\n  if (x > 3) return 2;\n#endif\n  return x; }\nint main(int c, char **v) { (void)v; return g(c); }\n"
    write(os.path.join(p, "x.c"), src)
    run([CLANG, "-fprofile-instr-generate", "-fcoverage-mapping", "-o", "prog", "x.c"], cwd=p)
    run(["./prog"], cwd=p, env=dict(os.environ, LLVM_PROFILE_FILE=os.path.join(p, "x.profraw")))
    run([CLANG, "-DCHANGED", "-fprofile-instr-generate", "-fcoverage-mapping", "-o", "prog", "x.c"], cwd=p)
    r = run([COVKIT, "report", "--lcov", "-", "."], cwd=p)
    check("prog: 1 function has mismatched data" in r.stderr and ": g" in r.stderr,
          f"mismatch warning: {r.stderr}")
    check("FN:1,g" not in r.stdout and "FNDA:1,main" in r.stdout, f"g left out, main counted: {r.stdout}")


def main():
    global COVKIT
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    COVKIT = os.path.abspath(sys.argv[1])
    if not shutil.which(CLANG):
        print(f"SKIP: {CLANG} missing")
        return 77
    wanted = sys.argv[2:] or ["mixed", "damaged", "mismatch"]
    tmp = tempfile.mkdtemp(prefix="covkit-clang-report-")
    try:
        for name in wanted:
            print(f"== {name}", flush=True)
            globals()["scenario_" + name](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("FAILED" if FAILS else "all scenarios passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
