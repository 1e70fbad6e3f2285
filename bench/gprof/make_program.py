#!/usr/bin/env python3
"""A generated program for gprof benchmarks: FUNCTIONS functions in FILES
source files, built with gcc-12 -pg (or g++-12: templates with long mangled
names), each doing a little work and calling two later functions (and,
rarely, an earlier one: cycles of mutual recursion), so that gmon.out holds
a histogram over a large text and tens of thousands of arcs. argv[1] seeds
the run: different seeds give different counts (inputs to add up).

  make_program.py DIR FUNCTIONS FILES [--cxx] [--static]   -> DIR/prog
"""
import argparse
import os
import random
import subprocess


def body(i, n, rng, call):
    c1 = min(n - 1, i + 1 + rng.randrange(40))
    c2 = min(n - 1, i + 1 + rng.randrange(40))
    back = max(0, i - 1 - rng.randrange(5))
    lines = [
        "  if (d > 48) return x;",
        "  unsigned s = x;",
        f"  for (unsigned k = 0; k < (x & 15u) + {8 + i % 7}u; k++) s = s * 31u + k;",
    ]
    if c1 > i:
        lines.append(f"  if (x & 1u) s += {call(c1)}(s >> 1, d + 1);")
    if c2 > i:
        lines.append(f"  if (x & 2u) s += {call(c2)}(s >> 2, d + 1);")
    if back < i:
        lines.append(f"  if (x % 61u == 0u) s += {call(back)}(s + 1u, d + 8);")
    lines.append("  return s;")
    return "\n".join(lines)


def rounds(n):
    """Calls of every function from main: 300,000 in all, each starting a
    chain of ~50 calls on average in a large program (a run of a second or
    so: a hundred samples and more for the histogram)."""
    return max(1, 300000 // n)


def write_c(d, n, files, rng):
    name = lambda i: f"f{i}"  # noqa: E731
    per = (n + files - 1) // files
    srcs = []
    with open(os.path.join(d, "decls.h"), "w") as h:
        for i in range(n):
            h.write(f"unsigned f{i}(unsigned x, int d);\n")
    for f in range(files):
        path = os.path.join(d, f"part{f}.c")
        with open(path, "w") as out:
            out.write('#include "decls.h"\n')
            for i in range(f * per, min(n, (f + 1) * per)):
                # A few static functions: gprof names their files in the index.
                static = "static " if i % 97 == 5 and i + 1 < n and (i // per) == ((i + 1) // per) else ""
                if static:
                    out.write(f"static unsigned g{i}(unsigned x, int d) {{\n{body(i, n, rng, name)}\n}}\n")
                    out.write(f"unsigned f{i}(unsigned x, int d) {{ return g{i}(x, d) + 1u; }}\n")
                else:
                    out.write(f"unsigned f{i}(unsigned x, int d) {{\n{body(i, n, rng, name)}\n}}\n")
        srcs.append(path)
    main = os.path.join(d, "main.c")
    with open(main, "w") as out:
        out.write('#include <stdio.h>\n#include <stdlib.h>\n#include "decls.h"\n')
        out.write("typedef unsigned (*fn)(unsigned, int);\nstatic const fn all[] = {\n")
        out.write(",\n".join(f"  f{i}" for i in range(n)))
        out.write("\n};\n")
        out.write("int main(int argc, char **argv) {\n"
                  "  unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1u, s = 0;\n"
                  f"  for (int round = 0; round < {rounds(n)}; round++)\n"
                  "    for (unsigned i = 0; i < sizeof all / sizeof *all; i++) s += all[i](seed * 2654435761u + i * 40503u + round, 0);\n"
                  '  printf("%u\\n", s);\n  return 0;\n}\n')
    return srcs + [main]


def write_cxx(d, n, files, rng):
    # Templates with long names: a class template per function index, in a
    # namespace, instantiated over a tag type.
    name = lambda i: f"bench::detail::Worker<{i}, bench::Tag<long>>::run"  # noqa: E731
    per = (n + files - 1) // files
    with open(os.path.join(d, "decls.h"), "w") as h:
        h.write("namespace bench {\ntemplate <typename T> struct Tag {};\nnamespace detail {\n"
                "template <int N, typename T> struct Worker {\n"
                "  static unsigned run(unsigned x, int d);\n};\n}\n}\n")
        # Every specialization declared before any is used.
        for i in range(n):
            h.write(f"template <> unsigned bench::detail::Worker<{i}, bench::Tag<long>>::run(unsigned x, int d);\n")
    srcs = []
    for f in range(files):
        path = os.path.join(d, f"part{f}.cc")
        with open(path, "w") as out:
            out.write('#include "decls.h"\n')
            for i in range(f * per, min(n, (f + 1) * per)):
                out.write(f"template <> unsigned bench::detail::Worker<{i}, bench::Tag<long>>::run(unsigned x, int d) {{\n"
                          f"{body(i, n, rng, name)}\n}}\n")
        srcs.append(path)
    main = os.path.join(d, "main.cc")
    with open(main, "w") as out:
        out.write('#include <cstdio>\n#include <cstdlib>\n#include "decls.h"\n')
        out.write("typedef unsigned (*fn)(unsigned, int);\nstatic const fn all[] = {\n")
        out.write(",\n".join(f"  &{name(i)}" for i in range(n)))
        out.write("\n};\n")
        out.write("int main(int argc, char **argv) {\n"
                  "  unsigned seed = argc > 1 ? (unsigned)std::atoi(argv[1]) : 1u, s = 0;\n"
                  f"  for (int round = 0; round < {rounds(n)}; round++)\n"
                  "    for (unsigned i = 0; i < sizeof all / sizeof *all; i++) s += all[i](seed * 2654435761u + i * 40503u + round, 0);\n"
                  '  std::printf("%u\\n", s);\n  return 0;\n}\n')
    return srcs + [main]


def build(d, functions, files, cxx=False, static=False):
    """Writes and compiles the program in d; returns its path (reused when built)."""
    prog = os.path.join(d, "prog")
    if os.path.exists(prog):
        return prog
    rng = random.Random(functions * 7 + files)
    srcs = (write_cxx if cxx else write_c)(d, functions, files, rng)
    cc = "g++-12" if cxx else "gcc-12"
    objs = []
    procs = []
    for s in srcs:
        o = s + ".o"
        procs.append(subprocess.Popen([cc, "-pg", "-O1", "-g", "-c", s, "-o", o], cwd=d))
        objs.append(o)
        if len(procs) >= 2:
            if procs.pop(0).wait() != 0:
                raise SystemExit("compile failed")
    for p in procs:
        if p.wait() != 0:
            raise SystemExit("compile failed")
    subprocess.run([cc, "-pg"] + (["-static"] if static else []) + objs + ["-o", prog], cwd=d, check=True)
    return prog


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("functions", type=int)
    ap.add_argument("files", type=int)
    ap.add_argument("--cxx", action="store_true")
    ap.add_argument("--static", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    print(build(args.dir, args.functions, args.files, args.cxx, args.static))


if __name__ == "__main__":
    main()
