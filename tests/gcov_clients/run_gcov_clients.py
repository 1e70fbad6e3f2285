#!/usr/bin/env python3
"""covkit as the gcov of the tools teams already run: each client runs once
with gcov 12 and once with covkit started as `covkit-gcov` (or as `gcov`
first on PATH), on the same build of project/ (C and C++, a header with
inline code, templates, exceptions), and what the client writes must be the
same, byte for byte once its clock is taken out.

  run_gcov_clients.py --covkit build/covkit --work DIR SCENARIO

  lcov    lcov 1.16 --capture --gcov-tool (branch coverage on): the tracefile
  gcovr   gcovr 5.2 --gcov-executable: text, JSON and Cobertura reports
  ctest   CTest's coverage handler, both ways: `ctest -T Coverage` with
          COVERAGE_COMMAND (DartConfiguration.tcl's CoverageCommand) and a
          `ctest -S` script with CTEST_COVERAGE_COMMAND: Coverage.xml and the
          per-line CoverageLog-*.xml
  meson   Meson's `ninja coverage` (gcovr's XML, text and SonarQube reports
          and lcov's tracefile), gcov taken from PATH as Meson does

fastcov is not in Debian 12, so it is not tested. lcov runs its Perl with a
fixed hash seed: otherwise the order of its records changes from run to run
whatever the gcov.

Exit 0 when the outputs are the same, 1 when they differ (the first
difference is printed), 77 when a client or gcc-12 is missing.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.join(HERE, "project")


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def need(*tools):
    for t in tools:
        if not shutil.which(t):
            raise Skip("%s is not installed (scripts/install-deps.sh installs it)" % t)


def run(cmd, cwd=None, env=None, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise Failure("%s (in %s): exit %d\n%s%s" % (" ".join(cmd), cwd, p.returncode, p.stdout[-3000:],
                                                     p.stderr[-3000:]))
    return p


def same(a_path, b_path, what, normalize=lambda s: s):
    a = normalize(open(a_path, encoding="utf-8").read())
    b = normalize(open(b_path, encoding="utf-8").read())
    if a != b:
        diff = "".join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), "with gcov-12",
                                                 "with covkit", n=2))[:40])
        raise Failure("%s differs:\n%s" % (what, diff))


class Env:
    def __init__(self, a):
        self.covkit = os.path.abspath(a.covkit)
        self.work = os.path.abspath(a.work)

    def fresh(self, name):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def gcovs(self, d):
        """The two gcovs: gcov-12, and covkit under the name covkit-gcov."""
        bindir = os.path.join(d, "bin")
        os.makedirs(bindir, exist_ok=True)
        link = os.path.join(bindir, "covkit-gcov")
        os.symlink(self.covkit, link)
        return [("gcov-12", shutil.which("gcov-12")), ("covkit", link)]

    def cmake_build(self, d, extra=()):
        """project/ built with gcc-12 --coverage and its tests run."""
        build = os.path.join(d, "build")
        run(["cmake", "-S", PROJECT, "-B", build, "-G", "Ninja", "-DCMAKE_C_COMPILER=gcc-12",
             "-DCMAKE_CXX_COMPILER=g++-12", "-DCMAKE_C_FLAGS=--coverage", "-DCMAKE_CXX_FLAGS=--coverage",
             "-DCMAKE_BUILD_TYPE=Debug", *extra])
        run(["cmake", "--build", build])
        run(["ctest", "--test-dir", build])
        return build


def perl_env():
    # lcov is Perl: its hash order (and so its record order) is random per
    # run unless the seed is fixed.
    return dict(os.environ, PERL_HASH_SEED="0", PERL_PERTURB_KEYS="0")


def scenario_lcov(e):
    need("lcov", "gcov-12", "gcc-12", "cmake", "ninja")
    d = e.fresh("lcov")
    build = e.cmake_build(d)
    outputs = []
    for label, gcov in e.gcovs(d):
        out = os.path.join(d, "%s.info" % label)
        run(["lcov", "--capture", "--directory", build, "--gcov-tool", gcov, "--output-file", out,
             "--rc", "lcov_branch_coverage=1", "--quiet"], env=perl_env())
        outputs.append(out)
    text = open(outputs[0]).read()
    check(re.search(r"^SF:.*lib/shapes\.c$", text, re.M) and "BRDA:" in text and re.search(r"^DA:\d+,[1-9]", text, re.M),
          "lcov's tracefile has lines, counts and branches:\n%s" % text[:500])
    same(*outputs, "lcov --capture's tracefile")


def gcovr_timestamp(text):
    return re.sub(r'timestamp="\d+"', 'timestamp="T"', text)


def scenario_gcovr(e):
    need("gcovr", "gcov-12", "gcc-12", "cmake", "ninja")
    d = e.fresh("gcovr")
    build = e.cmake_build(d)
    files = {}
    for label, gcov in e.gcovs(d):
        out = os.path.join(d, label)
        os.makedirs(out)
        run(["gcovr", "--gcov-executable", gcov, "-r", PROJECT, build, "--txt", os.path.join(out, "coverage.txt"),
             "--json", os.path.join(out, "coverage.json"), "--json-pretty",
             "--xml", os.path.join(out, "coverage.xml"), "--xml-pretty"], cwd=d)
        files[label] = out
    text = open(os.path.join(files["gcov-12"], "coverage.txt")).read()
    check("lib/shapes.c" in text and "TOTAL" in text, "gcovr's text report:\n%s" % text)
    same(os.path.join(files["gcov-12"], "coverage.txt"), os.path.join(files["covkit"], "coverage.txt"), "gcovr --txt")
    same(os.path.join(files["gcov-12"], "coverage.json"), os.path.join(files["covkit"], "coverage.json"), "gcovr --json")
    same(os.path.join(files["gcov-12"], "coverage.xml"), os.path.join(files["covkit"], "coverage.xml"),
         "gcovr --xml (Cobertura)", gcovr_timestamp)


def ctest_times(text):
    """CTest's XML without its clock: dates, times, durations, the build stamp."""
    text = re.sub(r'BuildStamp="[^"]*"', 'BuildStamp="S"', text)
    text = re.sub(r"<(StartDateTime|EndDateTime|StartTime|EndTime|ElapsedMinutes|StartCoverageTime|EndCoverageTime)>"
                  r"[^<]*</\1>", r"<\1>T</\1>", text)
    return text


def collect_ctest_xml(build, dest):
    tag = open(os.path.join(build, "Testing", "TAG")).read().split()[0]
    src = os.path.join(build, "Testing", tag)
    os.makedirs(dest)
    names = sorted(f for f in os.listdir(src) if f.startswith("Coverage"))
    for f in names:
        shutil.copy(os.path.join(src, f), dest)
    return names


def scenario_ctest(e):
    need("ctest", "gcov-12", "gcc-12", "cmake", "ninja")
    d = e.fresh("ctest")
    build = e.cmake_build(d, ["-DCOVERAGE_COMMAND=" + shutil.which("gcov-12")])
    results = {}
    for label, gcov in e.gcovs(d):
        # ctest -T Coverage: the command comes from DartConfiguration.tcl.
        run(["cmake", "-DCOVERAGE_COMMAND=" + gcov, build])
        dart = open(os.path.join(build, "DartConfiguration.tcl")).read()
        check("CoverageCommand: %s" % gcov in dart, "DartConfiguration.tcl names %s" % gcov)
        shutil.rmtree(os.path.join(build, "Testing"), ignore_errors=True)
        run(["ctest", "-T", "Coverage"], cwd=build)
        t_names = collect_ctest_xml(build, os.path.join(d, label, "T"))
        # ctest -S with CTEST_COVERAGE_COMMAND.
        script = os.path.join(d, "coverage-%s.cmake" % label)
        with open(script, "w") as f:
            f.write('set(CTEST_SOURCE_DIRECTORY "%s")\nset(CTEST_BINARY_DIRECTORY "%s")\n'
                    'set(CTEST_COVERAGE_COMMAND "%s")\nctest_start(Experimental)\nctest_coverage()\n'
                    % (PROJECT, build, gcov))
        shutil.rmtree(os.path.join(build, "Testing"), ignore_errors=True)
        run(["ctest", "-S", script], cwd=d)
        s_names = collect_ctest_xml(build, os.path.join(d, label, "S"))
        results[label] = (t_names, s_names)
    check(results["gcov-12"] == results["covkit"], "the same files: %s" % results)
    check("Coverage.xml" in results["gcov-12"][0] and any(n.startswith("CoverageLog") for n in results["gcov-12"][0]),
          "Coverage.xml and CoverageLog-*.xml written: %s" % results["gcov-12"][0])
    summary = open(os.path.join(d, "gcov-12", "T", "Coverage.xml")).read()
    check(re.search(r"<LOCTested>[1-9]\d*</LOCTested>", summary) and "shapes.c" in summary,
          "CTest's Coverage.xml counts tested lines:\n%s" % summary[-1500:])
    for mode, names in (("T", results["gcov-12"][0]), ("S", results["gcov-12"][1])):
        for n in names:
            same(os.path.join(d, "gcov-12", mode, n), os.path.join(d, "covkit", mode, n),
                 "CTest's %s (%s)" % (n, "ctest -T Coverage" if mode == "T" else "ctest -S, CTEST_COVERAGE_COMMAND"),
                 ctest_times)


def scenario_meson(e):
    need("meson", "gcovr", "lcov", "genhtml", "gcov-12", "gcc-12", "ninja")
    d = e.fresh("meson")
    build = os.path.join(d, "build")
    env = dict(os.environ, CC="gcc-12", CXX="g++-12")
    run(["meson", "setup", build, PROJECT, "-Db_coverage=true"], env=env)
    run(["meson", "compile", "-C", build])
    run(["meson", "test", "-C", build])
    # Meson tells gcovr and lcov no gcov: they run the `gcov` on PATH.
    outputs = {}
    for label, gcov in e.gcovs(d):
        bindir = os.path.join(d, "gcov-" + label)
        os.makedirs(bindir)
        os.symlink(os.path.realpath(gcov), os.path.join(bindir, "gcov"))
        logs = os.path.join(build, "meson-logs")
        for f in os.listdir(logs):
            if f.startswith("coverage") or f == "sonarqube.xml":
                p = os.path.join(logs, f)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        run(["ninja", "-C", build, "coverage"], env=dict(perl_env(), PATH=bindir + ":" + os.environ["PATH"]))
        out = os.path.join(d, label)
        os.makedirs(out)
        for f in ("coverage.txt", "coverage.xml", "sonarqube.xml", "coverage.info"):
            check(os.path.isfile(os.path.join(logs, f)), "ninja coverage wrote meson-logs/%s" % f)
            shutil.copy(os.path.join(logs, f), out)
        outputs[label] = out
    text = open(os.path.join(outputs["gcov-12"], "coverage.txt")).read()
    check("lib/shapes.c" in text, "Meson's text report:\n%s" % text)
    for f, norm in (("coverage.txt", lambda s: s), ("coverage.xml", gcovr_timestamp), ("sonarqube.xml", lambda s: s),
                    ("coverage.info", lambda s: s)):
        same(os.path.join(outputs["gcov-12"], f), os.path.join(outputs["covkit"], f), "meson-logs/%s" % f, norm)


SCENARIOS = {"lcov": scenario_lcov, "gcovr": scenario_gcovr, "ctest": scenario_ctest, "meson": scenario_meson}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--covkit")
    ap.add_argument("--work")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenario", nargs="?")
    a = ap.parse_args()
    if a.list:
        print("\n".join(SCENARIOS))
        return 0
    try:
        SCENARIOS[a.scenario](Env(a))
    except Skip as s:
        print("SKIP: %s" % s)
        return 77
    except Failure as f:
        print("FAIL: %s" % f)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
