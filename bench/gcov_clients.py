#!/usr/bin/env python3
"""How long the tools that run gcov take with gcov-12 and with covkit as
their gcov (`covkit-gcov`), side by side on one build: lcov --capture,
gcovr (text + JSON + Cobertura), CTest's coverage handler (`ctest -T
Coverage`) and Meson's `ninja coverage`.

  bench/gcov_clients.py build/covkit [--objects N] [--runs R] [--work DIR]

The project is generated: N translation units (C and C++, a third of them
with templates from a shared header, branches, loops, a switch), one
program that calls them all, built with gcc-12 --coverage by CMake and by
Meson and run once. Before timing, each client's output with covkit is
checked against its output with gcov-12 (as tests/gcov_clients does): a
faster wrong answer must not look good. Then each client runs R times with
each gcov, alternating; the best time of each is printed with the ratio
gcov-12 / covkit (above 1: covkit is faster).

The clients run gcov once per object (lcov, CTest) or per object directory
(gcovr): what a client pays is mostly gcov's start-up, R times N starts.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gcov_clients"))
import run_gcov_clients as clients  # noqa: E402  (comparison rules shared with the test)

C_UNIT = """#include "common.h"
int unit{i}_step(int n) {{
  int s = 0;
  for (int k = 0; k < n; k++) {{
    switch ((k + {i}) % 4) {{
      case 0: s += k; break;
      case 1: s -= k / 2; break;
      case 2: s ^= k; break;
      default: s += clamp(k, 0, {i});
    }}
  }}
  if (s < 0 && n > 1000) return -s;
  return s;
}}
int unit{i}_unused(int n) {{ return n > 0 ? n * {i} : -n; }}
"""

CPP_UNIT = """#include "common.hpp"
int unit{i}_step(int n) {{
  Accumulator<int> ints;
  Accumulator<long> longs;
  for (int k = 0; k < n; k++) {{
    ints.add(k % ({i} + 3));
    if (k % 3 == 0) longs.add(k);
  }}
  return int(ints.total() + longs.total() % 97);
}}
"""

COMMON_H = """#pragma once
#ifdef __cplusplus
extern "C" {
#endif
static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
#ifdef __cplusplus
}
#endif
"""

COMMON_HPP = """#pragma once
#include <vector>
template <typename T>
class Accumulator {
 public:
  void add(T v) { if (v >= 0) values_.push_back(v); }
  T total() const { T s{}; for (T v : values_) s += v; return s; }
 private:
  std::vector<T> values_;
};
"""


def generate(src, n):
    os.makedirs(os.path.join(src, "units"), exist_ok=True)
    with open(os.path.join(src, "units", "common.h"), "w") as f:
        f.write(COMMON_H)
    with open(os.path.join(src, "units", "common.hpp"), "w") as f:
        f.write(COMMON_HPP)
    names = []
    for i in range(n):
        cpp = i % 3 == 2
        name = "units/unit%d.%s" % (i, "cpp" if cpp else "c")
        with open(os.path.join(src, name), "w") as f:
            f.write((CPP_UNIT if cpp else C_UNIT).format(i=i))
        names.append(name)
    decls = "".join('extern "C++" int unit%d_step(int);\n' % i if i % 3 == 2 else
                    'extern "C" int unit%d_step(int);\n' % i for i in range(n))
    calls = "".join("  total += unit%d_step(n + %d);\n" % (i, i % 7) for i in range(n))
    with open(os.path.join(src, "main.cpp"), "w") as f:
        f.write("#include <cstdio>\n#include <cstdlib>\n%sint main(int argc, char** argv) {\n"
                "  int n = argc > 1 ? std::atoi(argv[1]) : 20;\n  long total = 0;\n%s"
                "  std::printf(\"%%ld\\n\", total);\n  return 0;\n}\n" % (decls, calls))
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.20)\nproject(bench C CXX)\ninclude(CTest)\n"
                "add_executable(prog main.cpp %s)\nadd_test(NAME run COMMAND prog 30)\n" % " ".join(names))
    with open(os.path.join(src, "meson.build"), "w") as f:
        f.write("project('bench', 'c', 'cpp')\nprog = executable('prog', 'main.cpp', %s)\n"
                "test('run', prog, args : ['30'])\n" % ", ".join("'%s'" % n for n in names))


def timed(cmd, cwd=None, env=None):
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    spent = time.monotonic() - start
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return spent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("covkit")
    ap.add_argument("--objects", type=int, default=150)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="/tmp/covkit-bench-gcov-clients")
    a = ap.parse_args()
    for tool in ("gcc-12", "g++-12", "gcov-12", "lcov", "gcovr", "ctest", "meson", "ninja"):
        if not shutil.which(tool):
            sys.exit("bench: %s is not installed (scripts/install-deps.sh)" % tool)
    covkit = os.path.abspath(a.covkit)
    shutil.rmtree(a.work, ignore_errors=True)
    src = os.path.join(a.work, "src")
    generate(src, a.objects)
    bindir = os.path.join(a.work, "bin")
    os.makedirs(os.path.join(bindir, "covkit"))
    os.makedirs(os.path.join(bindir, "gcov-12"))
    os.symlink(covkit, os.path.join(bindir, "covkit", "covkit-gcov"))
    os.symlink(covkit, os.path.join(bindir, "covkit", "gcov"))
    os.symlink(shutil.which("gcov-12"), os.path.join(bindir, "gcov-12", "gcov"))
    gcovs = {"gcov-12": shutil.which("gcov-12"), "covkit": os.path.join(bindir, "covkit", "covkit-gcov")}

    print("bench: %d objects, %d runs each; building with CMake and Meson..." % (a.objects, a.runs), flush=True)
    build = os.path.join(a.work, "cmake")
    clients.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_C_COMPILER=gcc-12",
                 "-DCMAKE_CXX_COMPILER=g++-12", "-DCMAKE_C_FLAGS=--coverage", "-DCMAKE_CXX_FLAGS=--coverage",
                 "-DCOVERAGE_COMMAND=" + gcovs["gcov-12"]])
    clients.run(["cmake", "--build", build])
    clients.run(["ctest", "--test-dir", build])
    mbuild = os.path.join(a.work, "meson")
    clients.run(["meson", "setup", mbuild, src, "-Db_coverage=true"], env=dict(os.environ, CC="gcc-12", CXX="g++-12"))
    clients.run(["meson", "compile", "-C", mbuild])
    clients.run(["meson", "test", "-C", mbuild])
    perl = clients.perl_env()
    out = os.path.join(a.work, "out")

    def lcov(label):
        os.makedirs(os.path.join(out, label), exist_ok=True)
        return ["lcov", "--capture", "--directory", build, "--gcov-tool", gcovs[label], "--quiet",
                "--rc", "lcov_branch_coverage=1", "--output-file", os.path.join(out, label, "lcov.info")], None, perl

    def gcovr(label):
        o = os.path.join(out, label)
        os.makedirs(o, exist_ok=True)
        return ["gcovr", "--gcov-executable", gcovs[label], "-r", src, build, "--txt", os.path.join(o, "gcovr.txt"),
                "--json", os.path.join(o, "gcovr.json"), "--xml", os.path.join(o, "gcovr.xml")], a.work, None

    def ctest(label):
        clients.run(["cmake", "-DCOVERAGE_COMMAND=" + gcovs[label], build])
        shutil.rmtree(os.path.join(build, "Testing"), ignore_errors=True)
        return ["ctest", "-T", "Coverage"], build, None

    def meson(label):
        logs = os.path.join(mbuild, "meson-logs")
        for f in os.listdir(logs):
            if f.startswith("coverage") or f == "sonarqube.xml":
                p = os.path.join(logs, f)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        path = os.path.join(bindir, "covkit" if label == "covkit" else "gcov-12")
        return ["ninja", "-C", mbuild, "coverage"], None, dict(perl, PATH=path + ":" + os.environ["PATH"])

    # Verification first: the same outputs with either gcov.
    for label in gcovs:
        for client in (lcov, gcovr, meson):
            cmd, cwd, env = client(label)
            timed(cmd, cwd, env)
        logs = os.path.join(mbuild, "meson-logs")
        shutil.copy(os.path.join(logs, "coverage.txt"), os.path.join(out, label, "meson.txt"))
        cmd, cwd, env = ctest(label)
        timed(cmd, cwd, env)
        tag = open(os.path.join(build, "Testing", "TAG")).read().split()[0]
        shutil.copy(os.path.join(build, "Testing", tag, "Coverage.xml"), os.path.join(out, label, "ctest.xml"))
    for f, norm in (("lcov.info", lambda s: s), ("gcovr.txt", lambda s: s), ("gcovr.json", lambda s: s),
                    ("gcovr.xml", clients.gcovr_timestamp), ("meson.txt", lambda s: s),
                    ("ctest.xml", clients.ctest_times)):
        try:
            clients.same(os.path.join(out, "gcov-12", f), os.path.join(out, "covkit", f), f, norm)
        except clients.Failure as e:
            sys.exit("bench: outputs differ, no timing: %s" % e)
    print("bench: outputs identical with either gcov (lcov, gcovr, CTest, Meson)\n", flush=True)

    print("%-34s %10s %10s %8s" % ("client", "gcov-12 s", "covkit s", "ratio"))
    for name, client in (("lcov --capture", lcov), ("gcovr (text, JSON, Cobertura)", gcovr),
                         ("ctest -T Coverage", ctest), ("meson: ninja coverage", meson)):
        best = {}
        for _ in range(a.runs):
            for label in gcovs:
                cmd, cwd, env = client(label)
                t = timed(cmd, cwd, env)
                best[label] = min(best.get(label, t), t)
        print("%-34s %10.2f %10.2f %7.2fx" % (name, best["gcov-12"], best["covkit"], best["gcov-12"] / best["covkit"]),
              flush=True)
    load = os.getloadavg()[0]
    print("\n(load average %.1f on %d cores while measuring)" % (load, os.cpu_count()))


if __name__ == "__main__":
    main()
