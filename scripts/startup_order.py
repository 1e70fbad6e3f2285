#!/usr/bin/env python3
"""Writes cmake/startup_order.txt: the functions of covkit that its start-up
and `covkit gcov` on a small program run, for the linker to place side by
side (lld's --symbol-ordering-file; CMakeLists.txt).

Why: covkit's code is ~5 MB, and what one small `covkit gcov` runs was spread
over all of it: every 64 KB window it touched cost a page fault that maps 16
pages (38 faults over the text where gcov-12 takes 6). Those faults, not the
instructions, were most of what `covkit gcov` cost beyond gcov
(bench/startup_vs_gcov.py). Placed together, they are a few windows.

The list is data, regenerated with this script when the start-up path changes
much (a function renamed since only drops out of the order; nothing breaks):

  scripts/startup_order.py [--covkit build/covkit] [--out cmake/startup_order.txt]

A name renamed or re-signed since drops out of the order unsaid (the link
passes --no-warn-symbol-ordering), so the list went stale unseen (19 names
once): --check lists the names that covkit's symbol table (nm) no longer
holds, and fails from --stale-limit of them (the ctest startup_order_fresh):

  scripts/startup_order.py --check [--covkit build/covkit] [--stale-limit 0.05]

It runs covkit under valgrind's callgrind (which counts every function that
runs, unlike a sampling profiler) on: --version, --help, a command's --help,
and `covkit gcov` with the options gcov's clients use, on a one-file program
built with gcc-12 --coverage, then with -b -c on the same built and never
run, and on a C++ object of a real one's size (g++-12); it keeps the mangled names of covkit's own functions (not
those of shared libraries), those of the start-up first.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
static int collatz(long n) {
  int steps = 0;
  while (n != 1) { n = n % 2 ? 3 * n + 1 : n / 2; steps++; }
  return steps;
}
int main(int argc, char **argv) {
  long limit = argc > 1 ? atol(argv[1]) : 1000;
  int longest = 0;
  for (long i = 1; i < limit; i++) { int s = collatz(i); if (s > longest) longest = s; }
  printf("%d\n", longest);
  return 0;
}
"""

# A C++ object of the size real ones have (tinyxml2.cpp, a jsoncpp file):
# notes and a source past 64 KiB (mapped, not copied), a header's
# functions, exceptions and calls. Its runs add what the small C program
# leaves out (the mapping, the exception walk, a hash of many names):
# functions that ran only for real objects sat outside the ordered code,
# a page fault each (tinyxml2.cpp: 5 of its 28 faults on covkit's file).
def cxx_program(functions=320):
    body = ["#include <stdexcept>", "#include <string>", "#include <vector>", '#include "shapes.h"',
            "static int may_throw(int i) {", "  if (i % 7 == 0) throw std::runtime_error(\"seven\");",
            "  return i;", "}"]
    for i in range(functions):
        body += [f"int step_{i}(int v) {{",
                 f"  std::vector<int> seen;",
                 f"  for (int k = 0; k < v % 5; ++k) seen.push_back(k * {i + 1});",
                 f"  if (v > {i}) return twice(v) - int(seen.size());",
                 f"  try {{ return may_throw(v + {i}); }} catch (const std::exception&) {{ return -{i}; }}",
                 "}"]
    body += ["int main(int argc, char**) {", "  Square sq(argc + 2);", "  int total = sq.area();"]
    body += [f"  total += step_{i}(total % {i + 7});" for i in range(functions)]
    body += ["  return total == 42;", "}"]
    return "\n".join(body) + "\n"


HEADER = """
template <typename T> T twice(T v) { return v + v; }
struct Shape { virtual ~Shape() = default; virtual int area() const = 0; };
struct Square : Shape {
  int side;
  explicit Square(int s) : side(s) {}
  int area() const override { return side * side; }
};
"""

# The start-up of every command first, then the gcov runs that clients make
# (lcov: -b -c -a -p -u among others; gcovr: --json-format --stdout), then
# those of the C++ object.
COMMANDS = [
    ["--version"],
    ["--help"],
    ["gcov", "prog.c"],
    ["gcov", "-b", "-c", "prog.c"],
    ["gcov", "-a", "-b", "-c", "-p", "-u", "-l", "prog.c"],
    ["gcov", "--json-format", "--stdout", "-b", "prog.c"],
    ["gcov", "-f", "-n", "prog.c"],
    ["report", "--help"],
    # An object that never ran (no .gcda: CMake's compiler-id objects, a
    # test never run): gcov's warning, and lcov's, gcovr's and CTest's most
    # common single-object call.
    ["gcov", "-b", "-c", "never.c"],
    ["gcov", "-b", "-c", "big.cpp"],
    ["gcov", "-a", "-b", "-c", "-p", "-u", "-l", "big.cpp"],
]

DEFINITION = re.compile(r"^c?fn=\((\d+)\)(?: (.+))?$")


def functions_run(out_file, binary):
    """The mangled names of the functions of `binary` that ran, in the order
    callgrind lists them."""
    names, run, objects = {}, [], {}
    binary = os.path.realpath(binary)
    current_object = None
    with open(out_file) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^ob=\((\d+)\)(?: (.+))?$", line)
            if m:
                if m.group(2):
                    objects[m.group(1)] = os.path.realpath(m.group(2)) if m.group(2).startswith("/") else m.group(2)
                current_object = objects.get(m.group(1))
                continue
            m = re.match(r"^cob=\((\d+)\)(?: (.+))?$", line)
            if m and m.group(2):
                objects[m.group(1)] = os.path.realpath(m.group(2)) if m.group(2).startswith("/") else m.group(2)
                continue
            m = DEFINITION.match(line)
            if not m:
                continue
            if m.group(2):
                names[m.group(1)] = m.group(2)
            if line.startswith("fn=") and current_object == binary:
                run.append(m.group(1))
    out = []
    for fid in run:
        name = names.get(fid, "")
        # Addresses without a symbol, and callgrind's "'2" recursion marks.
        name = name.split("'")[0]
        # callgrind's "(below main)" is no symbol either.
        if name and not name.startswith("0x") and not name.startswith("("):
            out.append(name)
    return out


def check(covkit, order_file, stale_limit):
    """Prints the names of `order_file` that `covkit` does not define; 1 when
    they are `stale_limit` of the list or more, else 0."""
    with open(order_file) as f:
        order = [line.strip() for line in f if line.strip()]
    nm = subprocess.run(["nm", "--defined-only", covkit], check=True, capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in nm.splitlines() if line.split()}
    stale = [name for name in order if name not in defined]
    for name in stale:
        print(f"stale: {name}")
    share = len(stale) / len(order) if order else 0.0
    print(f"{order_file}: {len(stale)} of {len(order)} names not in {covkit} ({share:.1%}; fails from {stale_limit:.0%})"
          + ("; regenerate it: scripts/startup_order.py" if stale else ""))
    return 1 if order and share >= stale_limit else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default=os.path.join(here, "..", "build", "covkit"))
    ap.add_argument("--out", default=os.path.join(here, "..", "cmake", "startup_order.txt"))
    ap.add_argument("--check", action="store_true",
                    help="list the names of --out that covkit no longer defines; fail from --stale-limit")
    ap.add_argument("--stale-limit", type=float, default=0.05,
                    help="with --check: the share of stale names that fails (default 0.05)")
    args = ap.parse_args()
    covkit = os.path.abspath(args.covkit)
    if args.check:
        return check(covkit, args.out, args.stale_limit)
    if not shutil.which("valgrind") or not shutil.which("gcc-12") or not shutil.which("g++-12"):
        sys.exit("startup_order.py: needs valgrind, gcc-12 and g++-12")
    order, seen = [], set()
    with tempfile.TemporaryDirectory(prefix="covkit-startup-order-") as work:
        with open(os.path.join(work, "prog.c"), "w") as f:
            f.write(PROGRAM)
        subprocess.run(["gcc-12", "--coverage", "-O0", "prog.c", "-o", "prog"], cwd=work, check=True)
        subprocess.run(["./prog", "3000"], cwd=work, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(work, "never.c"), "w") as f:
            f.write(PROGRAM)
        subprocess.run(["gcc-12", "--coverage", "-O0", "never.c", "-o", "never"], cwd=work, check=True)
        with open(os.path.join(work, "big.cpp"), "w") as f:
            f.write(cxx_program())
        with open(os.path.join(work, "shapes.h"), "w") as f:
            f.write(HEADER)
        subprocess.run(["g++-12", "--coverage", "-O0", "big.cpp", "-o", "big"], cwd=work, check=True)
        subprocess.run(["./big"], cwd=work, check=False, stdout=subprocess.DEVNULL)
        for i, argv in enumerate(COMMANDS):
            out_file = os.path.join(work, f"callgrind.{i}")
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out_file}",
                            covkit] + argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for name in functions_run(out_file, covkit):
                if name not in seen:
                    seen.add(name)
                    order.append(name)
    with open(args.out, "w") as f:
        f.write("".join(name + "\n" for name in order))
    print(f"{args.out}: {len(order)} functions")


if __name__ == "__main__":
    sys.exit(main())
