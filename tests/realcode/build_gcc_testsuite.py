#!/usr/bin/env python3
"""build_gcc_testsuite.py SRCDIR TREE CC CXX OPT

GCC's own gcov test programs (gcc/testsuite/gcc.misc-tests/gcov*.c and
g++.dg/gcov/*.C of the gcc-12 source package: setjmp, goto, computed goto,
switch, exceptions, templates, constexpr, threads, fork, noreturn, line
directives, PRs filed against gcov), each built in a directory of its own
under TREE with the options its dg-options line asks for (plus -OPT unless
OPT is O0) and run once, so that compare.sh can hold covkit gcov against
gcov-N on them. The tests' expected counts (the `count(N)` comments) are
not used: gcov itself is the oracle.

The testsuite files are read from the upstream tarball inside the Debian
source (gcc-X.Y.Z-dfsg.tar.xz); only they are extracted, once, beside it.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

SUITES = ("gcc/testsuite/gcc.misc-tests/", "gcc/testsuite/g++.dg/gcov/")
# Programs that are no test of their own: sources another test adds.
HELPERS = re.compile(r"^gcovpart-")
DEFAULT_OPTIONS = ["-fprofile-arcs", "-ftest-coverage"]


def extract(srcdir, dest):
    """The gcov test files of the upstream tarball into dest; their count."""
    tarballs = glob.glob(os.path.join(srcdir, "gcc-*.tar.xz"))
    if not tarballs:
        sys.exit(f"build_gcc_testsuite: no gcc-*.tar.xz in {srcdir}")
    os.makedirs(dest, exist_ok=True)
    top = os.path.basename(tarballs[0]).split("-dfsg")[0].removesuffix(".tar.xz")
    patterns = [f"{top}/{SUITES[0]}gcov*", f"{top}/{SUITES[1]}*"]
    subprocess.run(["tar", "xJf", tarballs[0], "-C", dest, "--strip-components=3", "--wildcards", *patterns],
                   check=True)
    n = 0
    for suite in SUITES:
        for f in glob.glob(os.path.join(dest, suite.split("/", 2)[2], "*")):
            if f.endswith((".exp", ".py")):
                os.remove(f)
            else:
                n += 1
    return n


def directives(text):
    """(options, additional sources, compile only) from the dg- comments."""
    m = re.search(r'dg-options "([^"]*)"', text)
    options = m.group(1).split() if m else list(DEFAULT_OPTIONS)
    m = re.search(r'dg-additional-sources\s+"?([^"}]*)"?', text)
    extra = m.group(1).split() if m else []
    return options, extra, "dg-do compile" in text


def build_one(src, tree, cc, cxx, opt, log):
    name = os.path.basename(src)
    text = open(src, errors="replace").read()
    options, extra, compile_only = directives(text)
    if compile_only:
        return "compile-only"
    if opt != "O0":
        options = options + [f"-{opt}"]
    d = os.path.join(tree, os.path.basename(os.path.dirname(src)), os.path.splitext(name)[0])
    os.makedirs(d)
    suite_dir = os.path.dirname(src)
    sources = [name] + extra
    for f in sources + [os.path.basename(h) for h in glob.glob(os.path.join(suite_dir, "*.h"))]:
        shutil.copy(os.path.join(suite_dir, f), d)
    compiler = cxx if name.endswith(".C") else cc
    # Compiled one by one, then linked: GCC 11 names the notes of
    # `gcc -o prog a.c` prog-a.gcno, which gcov a.c would not find.
    steps = [[compiler, *options, "-c", s] for s in sources]
    steps.append([compiler, *options, *[os.path.splitext(s)[0] + ".o" for s in sources], "-o", "prog", "-lm",
                  "-pthread"])
    for argv in steps:
        p = subprocess.run(argv, cwd=d, capture_output=True, text=True)
        log.write(f"+ (cd {d} && {' '.join(argv)})\n{p.stdout}{p.stderr}")
        if p.returncode:
            # An option this compiler lacks (gcc-11 has no -fno-implicit-constexpr):
            # the program is left out, said in the log.
            shutil.rmtree(d)
            return "not built"
    try:
        p = subprocess.run(["./prog"], cwd=d, capture_output=True, timeout=60)
        log.write(f"+ (cd {d} && ./prog) -> {p.returncode}\n")
    except subprocess.TimeoutExpired:
        log.write(f"+ (cd {d} && ./prog) timed out\n")
    return "built"


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: build_gcc_testsuite.py SRCDIR TREE CC CXX OPT")
    srcdir, tree, cc, cxx, opt = sys.argv[1:]
    # Extracted once beside the unpacked source (fetch_and_build.sh holds the
    # cache's lock): reading the 75 MB tarball takes half a minute.
    files = os.path.join(os.path.dirname(os.path.abspath(srcdir)), "gcov-testsuite")
    if not os.path.isfile(os.path.join(files, ".extracted")):
        shutil.rmtree(files, ignore_errors=True)
        if extract(srcdir, files) == 0:
            sys.exit(f"build_gcc_testsuite: no gcov test in {srcdir}")
        open(os.path.join(files, ".extracted"), "w").close()
    outcome = {}
    with open(os.path.join(tree, "build.log"), "w") as log:
        tests = []
        for suite in SUITES:
            here = os.path.join(files, suite.split("/", 2)[2])
            tests += sorted(glob.glob(here + "*.c") + glob.glob(here + "*.C"))
        for src in tests:
            if HELPERS.match(os.path.basename(src)):
                continue
            what = build_one(src, os.path.join(tree, "progs"), cc, cxx, opt, log)
            outcome.setdefault(what, []).append(os.path.basename(src))
    print(", ".join(f"{len(v)} {k}" for k, v in sorted(outcome.items())),
          "|", "not built:", " ".join(outcome.get("not built", [])) or "none")
    return 0 if len(outcome.get("built", [])) >= 40 else 1


if __name__ == "__main__":
    sys.exit(main())
