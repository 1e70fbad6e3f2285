#!/usr/bin/env python3
"""End-to-end scenarios of `covkit report` (and one of `covkit merge`).

Each scenario compiles small C/C++ programs with gcc-12/g++-12 --coverage in
a fresh temporary directory, runs them, runs covkit and checks exact numbers
in its lcov/terminal/JSON output, its stderr lines and its exit status.

  run_report_cli.py --covkit PATH --scenario NAME   one scenario
  run_report_cli.py --covkit PATH                   all of them
  run_report_cli.py --list                          the scenario names

Exit status: 0 passed, 1 failed, 77 skipped (a compiler or git is missing).
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

COVKIT = None
KEEP = False


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def eq(actual, expected, what):
    if actual != expected:
        raise Failure(f"{what}:\n--- expected ---\n{expected!r}\n--- actual ---\n{actual!r}")


def need(program):
    if shutil.which(program) is None:
        raise Skip(f"{program} is not installed")


def run(cmd, cwd, env=None, check_rc=True, timeout=60):
    full_env = dict(os.environ)
    full_env.update({"LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1", "HOME": cwd})
    full_env.pop("GCOV_PREFIX", None)
    full_env.pop("GCOV_PREFIX_STRIP", None)
    if env:
        full_env.update(env)
    p = subprocess.run(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    if check_rc and p.returncode != 0:
        raise Failure(f"{cmd} failed with {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def covkit(args, cwd):
    """Runs `covkit ARGS` in `cwd`; returns (rc, stdout, stderr lines).

    gcov's "source file is newer than notes file" note is left out: scenarios
    that edit a source after building get it only when the edit lands in a
    later second than the compile (gcov compares whole seconds)."""
    p = run([COVKIT] + args, cwd, check_rc=False)
    lines = [l for l in p.stderr.splitlines()
             if "source file is newer than notes file" not in l
             and "(the message is displayed only once per source file)" not in l]
    return p.returncode, p.stdout, lines


def covkit_ok(args, cwd):
    rc, out, err = covkit(args, cwd)
    if rc != 0:
        raise Failure(f"covkit {' '.join(args)}: exit {rc}\n" + "\n".join(err))
    return out, err


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


# --- lcov and table parsing ------------------------------------------------------


def parse_lcov(text):
    """SF -> {'DA': {line: count}, 'BRDA': [(line, block, branch, taken)], 'FN': {name: line},
    'FNDA': {name: count}, and the LF/LH/BRF/BRH/FNF/FNH numbers}."""
    records = {}
    cur = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "SF":
            cur = records.setdefault(value, {"DA": {}, "BRDA": [], "FN": {}, "FNDA": {}})
        elif key == "DA":
            n, c = value.split(",")[:2]
            cur["DA"][int(n)] = int(c)
        elif key == "BRDA":
            n, b, i, t = value.split(",")
            cur["BRDA"].append((int(n), int(b), int(i), t))
        elif key == "FN":
            n, name = value.split(",", 1)
            cur["FN"][name] = int(n)
        elif key == "FNDA":
            c, name = value.split(",", 1)
            cur["FNDA"][name] = int(c)
        elif key in ("LF", "LH", "BRF", "BRH", "FNF", "FNH"):
            cur[key] = int(value)
    return records


def lcov_totals(text):
    t = {k: 0 for k in ("LF", "LH", "BRF", "BRH", "FNF", "FNH")}
    for rec in parse_lcov(text).values():
        for k in t:
            t[k] += rec.get(k, 0)
    return t


def table_rows(stdout):
    """File (or TOTAL) -> the nine cells of its row in the summary table (the
    Missing column left out: missing_cells)."""
    return {name: cells[:9] for name, cells in table_cells(stdout).items()}


def missing_cells(stdout):
    """File -> its Missing cell ("1-4,7"), for the files with uncovered lines."""
    return {name: cells[9] for name, cells in table_cells(stdout).items() if len(cells) > 9}


def table_cells(stdout):
    rows = {}
    for line in stdout.splitlines()[3:]:
        if line.startswith("---"):
            continue
        cells = line.split()
        rows[cells[0]] = cells[1:]
    return rows


# --- the programs ------------------------------------------------------------------

UTIL_H = """int clamp(int v, int lo, int hi);
int unused_fn(int x);
"""

UTIL_C = """#include "util.h"

int clamp(int v, int lo, int hi) {
  if (v < lo)
    return lo;
  if (v > hi)
    return hi;
  return v;
}

int unused_fn(int x) {
  return x * 2;
}
"""

MAIN_C = """#include <stdio.h>
#include "util.h"

int main(int argc, char **argv) {
  int s = 0;
  (void)argv;
  for (int i = 0; i < 5; i++)
    s += clamp(i, 1, 3);
  if (argc > 1)
    printf("args\\n");
  printf("%d\\n", s);
  return 0;
}
"""

# Compiled, never linked: its notes file has no data file.
NEVER_C = """int never_called(int a) {
  if (a)
    return 1;
  return 0;
}
"""

# The lcov tracefile of one run of prog (no arguments); @P@ is the project.
C_PROJECT_LCOV = """TN:
SF:@P@/src/main.c
FN:4,main
FNDA:1,main
FNF:1
FNH:1
BRDA:7,0,0,5
BRDA:7,0,1,1
BRDA:9,0,0,0
BRDA:9,0,1,1
BRF:4
BRH:3
DA:4,1
DA:5,1
DA:7,6
DA:8,5
DA:9,1
DA:10,0
DA:11,1
DA:12,1
LF:8
LH:7
end_of_record
TN:
SF:@P@/src/never.c
FN:1,never_called
FNDA:0,never_called
FNF:1
FNH:0
BRDA:2,0,0,-
BRDA:2,0,1,-
BRF:2
BRH:0
DA:1,0
DA:2,0
DA:3,0
DA:4,0
LF:4
LH:0
end_of_record
TN:
SF:@P@/src/util.c
FN:3,clamp
FN:11,unused_fn
FNDA:5,clamp
FNDA:0,unused_fn
FNF:2
FNH:1
BRDA:4,0,0,1
BRDA:4,0,1,4
BRDA:6,0,0,1
BRDA:6,0,1,3
BRF:4
BRH:4
DA:3,5
DA:4,5
DA:5,1
DA:6,4
DA:7,1
DA:8,3
DA:11,0
DA:12,0
LF:8
LH:6
end_of_record
"""

C_PROJECT_TABLE = (
    "                      Lines                  Functions                Branches        \n"
    "File           Total    Exec   Cover    Total    Exec   Cover    Total    Exec   Cover  Missing\n"
    "-----------------------------------------------------------------------------------------------\n"
    "src/main.c         8       7   87.5%        1       1  100.0%        4       3   75.0%  10\n"
    "src/never.c        4       0    0.0%        1       0    0.0%        2       0    0.0%  1-4\n"
    "src/util.c         8       6   75.0%        2       1   50.0%        4       4  100.0%  11-12\n"
    "-----------------------------------------------------------------------------------------------\n"
    "TOTAL             20      13   65.0%        4       2   50.0%       10       7   70.0%\n")

# Exclusion markers of every kind. Without markers: 17 lines, 5 functions,
# 6 branches; with them: lines 5, 10-13 and 24, function debug_only and the
# branches of lines 11 and 18 go.
EXCL_C = """#include <stdlib.h>

int checked(int x) {
  if (x < 0)
    abort(); /* LCOV_EXCL_LINE */
  return x;
}

/* LCOV_EXCL_START */
int debug_only(int x) {
  if (x > 100)
    return 1;
  return 0;
}
/* LCOV_EXCL_STOP */

int pick(int a, int b) {
  if (a > b) /* LCOV_EXCL_BR_LINE */
    return a;
  return b;
}

int rare(int x) {
  return x + 1; // GCOVR_EXCL_LINE
}

int main(void) {
  int s = checked(3) + pick(1, 2);
  return s == 0;
}
"""

EXCL_LCOV = """TN:
SF:@S@/excl.c
FN:3,checked
FN:17,pick
FN:23,rare
FN:27,main
FNDA:1,checked
FNDA:1,pick
FNDA:0,rare
FNDA:1,main
FNF:4
FNH:3
BRDA:4,0,0,0
BRDA:4,0,1,1
BRF:2
BRH:1
DA:3,1
DA:4,1
DA:6,1
DA:17,1
DA:18,1
DA:19,0
DA:20,1
DA:23,0
DA:27,1
DA:28,1
DA:29,1
LF:11
LH:9
end_of_record
"""

VECTOR_CC = """#include <vector>

int sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v)
    s += x;
  return s;
}

int main() {
  std::vector<int> v{1, 2, 3};
  v.push_back(4);
  return sum(v) == 10 ? 0 : 1;
}
"""

EXCEPTIONS_CC = """#include <stdexcept>
#include <string>

static int parse(int x) {
  if (x < 0)
    throw std::runtime_error("negative");
  return x * 2;
}

int main(int argc, char **) {
  int total = 0;
  for (int i = -1; i < argc + 1; i++) {
    try {
      total += parse(i);
    } catch (const std::exception &e) {
      total -= 1;
    }
  }
  return total == 1 ? 0 : 1;
}
"""


def c_project(tmp):
    """tmp/proj: sources in src/, objects in build/, build/prog linked from
    main.o and util.o (never.o is compiled but not linked). Not run yet."""
    need("gcc-12")
    proj = os.path.join(tmp, "proj")
    write(f"{proj}/src/util.h", UTIL_H)
    write(f"{proj}/src/util.c", UTIL_C)
    write(f"{proj}/src/main.c", MAIN_C)
    write(f"{proj}/src/never.c", NEVER_C)
    os.makedirs(f"{proj}/build")
    for name in ("util", "main", "never"):
        run(["gcc-12", "--coverage", "-O0", "-c", f"src/{name}.c", "-o", f"build/{name}.o"], proj)
    run(["gcc-12", "--coverage", "-o", "build/prog", "build/main.o", "build/util.o"], proj)
    return proj


def run_prog(proj, *args, env=None):
    run([f"{proj}/build/prog"] + list(args), proj, env=env)


def excl_project(tmp, name="m"):
    """tmp/NAME/orig: src/excl.c built into build/excl and run once."""
    need("gcc-12")
    root = os.path.join(tmp, name, "orig")
    write(f"{root}/src/excl.c", EXCL_C)
    os.makedirs(f"{root}/build")
    run(["gcc-12", "--coverage", "-O0", "-c", "src/excl.c", "-o", "build/excl.o"], root)
    run(["gcc-12", "--coverage", "-o", "build/excl", "build/excl.o"], root)
    run([f"{root}/build/excl"], root)
    return root


def cxx_program(tmp, name, source):
    need("g++-12")
    d = os.path.join(tmp, name)
    write(f"{d}/{name}.cc", source)
    run(["g++-12", "--coverage", "-O0", "-c", f"{name}.cc", "-o", f"{name}.o"], d)
    run(["g++-12", "--coverage", "-o", name, f"{name}.o"], d)
    run([f"{d}/{name}"], d, check_rc=False)
    return d


# --- scenarios -------------------------------------------------------------------------


def scenario_summary(tmp):
    """The default output: the summary table, exact."""
    proj = c_project(tmp)
    run_prog(proj)
    out, err = covkit_ok(["report", "build"], proj)
    eq(out, C_PROJECT_TABLE, "summary table")
    eq(err, [], "stderr")
    # -j 1 and an explicit root give the same table.
    out, _ = covkit_ok(["report", "-j", "1", "--root", proj, f"{proj}/build"], tmp)
    eq(out, C_PROJECT_TABLE, "summary table with --root")
    # Colour only when asked (stdout is a pipe here, so "auto" means none).
    out, _ = covkit_ok(["report", "build", "--color", "never"], proj)
    eq(out, C_PROJECT_TABLE, "--color never")
    out, _ = covkit_ok(["report", "build", "--color", "auto"], proj)
    eq(out, C_PROJECT_TABLE, "--color auto on a pipe")
    out, _ = covkit_ok(["report", "build", "--color", "always"], proj)
    check("src/util.c         8       6 \033[" in out and "\033[32m 100.0%\033[0m" in out,
          f"--color always paints the percentages: {out!r}")
    for code in ("\033[31m", "\033[32m", "\033[33m", "\033[0m"):
        out = out.replace(code, "")
    eq(out, C_PROJECT_TABLE, "--color always without its escapes")


def covkit_on_terminal(args, cwd, env):
    """Runs `covkit ARGS` with standard output a pseudo-terminal (stderr a
    pipe); returns what it wrote there, "\r\n" made "\n" again."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([COVKIT] + args, cwd=cwd, env=dict(os.environ, **env), stdout=slave,
                         stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer is gone
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = p.stderr.read()
    if p.wait(timeout=60) != 0:
        raise Failure(f"covkit {' '.join(args)}: exit {p.returncode}\n{err.decode()}")
    return out.decode().replace("\r\n", "\n")


def scenario_color_terminal(tmp):
    """--color auto colours a terminal, unless NO_COLOR (no-color.org) or
    TERM=dumb asks for plain text; --color always and never win over both."""
    proj = c_project(tmp)
    run_prog(proj)
    plain = {"NO_COLOR": "", "TERM": "xterm"}
    painted = covkit_on_terminal(["report", "build"], proj, plain)
    check("\033[32m 100.0%\033[0m" in painted, f"auto on a terminal paints: {painted!r}")
    for code in ("\033[31m", "\033[32m", "\033[33m", "\033[0m"):
        painted = painted.replace(code, "")
    eq(painted, C_PROJECT_TABLE, "the painted table without its escapes")
    for env in ({"NO_COLOR": "1", "TERM": "xterm"}, {"NO_COLOR": "", "TERM": "dumb"}):
        eq(covkit_on_terminal(["report", "build"], proj, env), C_PROJECT_TABLE, f"auto on a terminal with {env}")
        eq(covkit_on_terminal(["report", "build", "--color", "always"], proj, env).count("\033[32m"),
           covkit_on_terminal(["report", "build"], proj, plain).count("\033[32m"), f"--color always with {env}")
    eq(covkit_on_terminal(["report", "build", "--color", "never"], proj, plain), C_PROJECT_TABLE,
       "--color never on a terminal")


def ci_section():
    """The CONTINUOUS INTEGRATION section of docs/covkit-report.md."""
    doc = read(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "covkit-report.md"))
    m = re.search(r"^## CONTINUOUS INTEGRATION\n(.*?)^## ", doc, re.M | re.S)
    check(m, "docs/covkit-report.md has a CONTINUOUS INTEGRATION section")
    return m.group(1)


def run_documented(line, proj, env):
    """Runs a documented shell line in `proj` with bash, `covkit` on PATH
    being the covkit under test."""
    bindir = os.path.join(proj, "ci-bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.lexists(f"{bindir}/covkit"):
        os.symlink(os.path.abspath(COVKIT), f"{bindir}/covkit")
    full = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], **env)
    return subprocess.run(["bash", "-c", line], cwd=proj, env=full, capture_output=True, text=True, timeout=120)


def scenario_ci_recipes(tmp):
    """The CI recipes of docs/covkit-report.md, pasted: GitLab's covkit step
    fails its gate (exit 2, one stderr line) after writing the Cobertura
    file, and the documented coverage regex takes the line coverage from
    its log; GitHub's step appends the Markdown summary to the job's."""
    section = ci_section()
    proj = c_project(tmp)
    run_prog(proj)
    gitlab = re.findall(r"^    - (covkit report .*)$", section, re.M)
    regex = re.findall(r"^  coverage: '/(.*)/'$", section, re.M)
    check(len(gitlab) == 1 and len(regex) == 1, f"one GitLab covkit step and coverage regex: {gitlab} {regex}")
    p = run_documented(gitlab[0], proj, {})
    eq(p.returncode, 2, f"{gitlab[0]}: the 80% gate fails on this project")
    eq(p.stderr.splitlines(), ["covkit report: line coverage 65.0% (13/20) is below --fail-under-line 80"], "stderr")
    check(read(f"{proj}/coverage.xml").startswith("<?xml") and 'line-rate="0.65"' in read(f"{proj}/coverage.xml"),
          "coverage.xml written before the gate failed")
    found = re.findall(regex[0], p.stdout, re.M)
    eq(found, ["65.0"], "the coverage regex on the job's log (GitLab uses the last match)")
    eq(table_rows(p.stdout)["TOTAL"][2], "65.0%", "what the regex took is the table's TOTAL line coverage")
    github = re.findall(r"^- run: (covkit report .*)$", section, re.M)
    check(len(github) == 1, f"one GitHub Actions step: {github}")
    summary = f"{proj}/step-summary.md"
    write(summary, "earlier step\n")
    p = run_documented(github[0], proj, {"GITHUB_STEP_SUMMARY": summary})
    eq(p.returncode, 2, f"{github[0]}: the gate fails")
    eq(p.stdout, "", "nothing else on stdout")
    text = read(summary)
    check(text.startswith("earlier step\n## Coverage report\n") and "| Lines | 13 | 20 | 65.0% |" in text,
          f"the summary appended: {text!r}")
    check("SF:" in read(f"{proj}/coverage.info"), "coverage.info written")


# Uncovered lines with code, blank and comment lines and an excluded one
# between them: which ranges gcovr 5.2 makes of them.
GAPS_C = """#include <stdlib.h>
static int g;
int odd(int v) {
  if (v > 100) {
    g = 1;
    g += 2;

    g += 3;
    /* a comment */
    g += 4;
    g += 5; /* LCOV_EXCL_LINE */
    g += 6;
  }
  return v % 2;
}
int main(int argc, char **argv) {
  (void)argv;
  return odd(argc) ? 0 : 1;
}
"""


def gcovr_missing(cwd, build):
    """{file: Missing} of gcovr 5.2's text report (gcovr -r . BUILD)."""
    p = run(["gcovr", "-r", ".", "--gcov-executable", "gcov-12", build], cwd)
    rows = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(\S+)\s+\d+\s+\d+\s+(?:\d+|--)%(?:\s+(\S+))?$", line)
        if m and m.group(1) != "TOTAL":
            rows[m.group(1)] = m.group(2) or ""
    return rows


def covkit_missing(out):
    """{file: Missing} of covkit's summary table."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)(?:\s+\d+\s+\d+\s+(?:[\d.]+%|-)){3}(?:  (\S+))?$", line)
        if m and m.group(1) != "TOTAL":
            rows[m.group(1)] = m.group(2) or ""
    return rows


def scenario_missing_like_gcovr(tmp):
    """The table's Missing column lists what gcovr 5.2's does, file by file:
    uncovered lines, consecutive numbers as ranges, a blank line, a comment
    or an excluded line breaking a range; the Markdown has it too."""
    need("gcovr")
    proj = c_project(tmp)
    run_prog(proj)
    out, _ = covkit_ok(["report", "build"], proj)
    want = gcovr_missing(proj, "build")
    got = covkit_missing(out)
    eq({f: got.get(f) for f in want}, want, "Missing of the C project, against gcovr")
    d = os.path.join(tmp, "gaps")
    write(f"{d}/gaps.c", GAPS_C)
    run(["gcc-12", "--coverage", "-O0", "-o", "gaps", "gaps.c"], d)
    run([f"{d}/gaps"], d, check_rc=False)
    out, _ = covkit_ok(["report", "."], d)
    want = gcovr_missing(d, ".")
    eq(want, {"gaps.c": "5-6,8,10,12"}, "gcovr's Missing of gaps.c (the oracle itself)")
    eq(covkit_missing(out), want, "Missing of gaps.c, against gcovr")
    covkit_ok(["report", ".", "--markdown", "gaps.md"], d)
    check("| `gaps.c` | " in read(f"{d}/gaps.md") and " | 5-6,8,10,12 |" in read(f"{d}/gaps.md"),
          f"Markdown: {read(f'{d}/gaps.md')!r}")


def scenario_lcov(tmp):
    """--lcov: the whole tracefile; no table unless -s."""
    proj = c_project(tmp)
    run_prog(proj)
    out, err = covkit_ok(["report", "build", "--lcov", "out.info"], proj)
    eq(out, "", "stdout when writing a file")
    eq(err, [], "stderr")
    eq(read(f"{proj}/out.info"), C_PROJECT_LCOV.replace("@P@", proj), "lcov tracefile")
    out, _ = covkit_ok(["report", "build", "--lcov", "out2.info", "-s", "--test-name", "unit"], proj)
    eq(out, C_PROJECT_TABLE, "table with -s")
    eq(read(f"{proj}/out2.info"), C_PROJECT_LCOV.replace("@P@", proj).replace("TN:\n", "TN:unit\n"),
       "lcov tracefile with a test name")


def scenario_never_run(tmp):
    """An object compiled but never linked counts at 0%; one that is linked but
    not run too."""
    proj = c_project(tmp)
    out, err = covkit_ok(["report", "build"], proj)  # nothing ran at all
    # (The tests did not run, or wrote their counts elsewhere: said once.)
    eq(err, ["covkit report: no .gcda file found: the 3 objects are reported as never run (did the tests run? "
             "counts written elsewhere, as with GCOV_PREFIX, are found when that tree is a PATH too)"],
       "stderr when no object ran")
    eq(covkit_ok(["report", "-q", "build"], proj), (out, []), "-q: the same table, no warning")
    rows = table_rows(out)
    # Each file's row ends with its Missing lines (all of them: nothing ran).
    eq(rows["src/never.c"], ["4", "0", "0.0%", "1", "0", "0.0%", "2", "0", "0.0%"], "never.c row")
    eq(rows["src/util.c"], ["8", "0", "0.0%", "2", "0", "0.0%", "4", "0", "0.0%"], "util.c row")
    missing = missing_cells(out)
    eq(missing["src/never.c"], "1-4", "never.c's Missing lines")
    eq("TOTAL" in missing, False, "TOTAL has no Missing cell")
    eq(rows["TOTAL"], ["20", "0", "0.0%", "4", "0", "0.0%", "10", "0", "0.0%"], "TOTAL row")
    run_prog(proj)
    eq(covkit_ok(["report", "build", "--lcov", "out.info"], proj)[1], [],
       "stderr (an object that did not run beside one that did is no warning)")
    rec = parse_lcov(read(f"{proj}/out.info"))[f"{proj}/src/never.c"]
    eq(rec["DA"], {1: 0, 2: 0, 3: 0, 4: 0}, "never.c DA")
    eq(rec["BRDA"], [(2, 0, 0, "-"), (2, 0, 1, "-")], "never.c BRDA: not executed")
    eq(rec["FNDA"], {"never_called": 0}, "never.c FNDA")
    eq((rec["LF"], rec["LH"], rec["BRF"], rec["BRH"], rec["FNF"], rec["FNH"]), (4, 0, 2, 0, 1, 0), "never.c totals")
    util_lines = sorted(parse_lcov(read(f"{proj}/out.info"))[f"{proj}/src/util.c"]["DA"])
    eq(sorted(n for part in missing["src/util.c"].split(",")
              for n in range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1)), util_lines,
       "util.c's Missing lines: every line with code")
    # The notes file named alone.
    out, _ = covkit_ok(["report", "build/never.gcno"], proj)
    eq(table_rows(out)["TOTAL"], ["4", "0", "0.0%", "1", "0", "0.0%", "2", "0", "0.0%"], "never.gcno alone")


def scenario_single_files(tmp):
    """Single .gcda/.gcno files as PATHs: each brings its partner from beside it."""
    proj = c_project(tmp)
    run_prog(proj)
    covkit_ok(["report", "build", "--lcov", "all.info"], proj)
    every = parse_lcov(read(f"{proj}/all.info"))
    for args, files in ((["build/util.gcda"], ["util.c"]), (["build/util.gcno"], ["util.c"]),
                        (["build/main.gcda", "build/util.gcno"], ["main.c", "util.c"]),
                        ([f"{proj}/build/never.gcno"], ["never.c"])):
        out, err = covkit_ok(["report"] + args + ["--lcov", "one.info"], proj)
        never_ran = ["covkit report: no .gcda file found: the object is reported as never run (did the tests run? "
                     "counts written elsewhere, as with GCOV_PREFIX, are found when that tree is a PATH too)"]
        eq(err, never_ran if files == ["never.c"] else [], f"stderr of {args}")
        got = parse_lcov(read(f"{proj}/one.info"))
        eq(sorted(got), [f"{proj}/src/{f}" for f in files], f"files of {args}")
        for sf in got:
            eq(got[sf], every[sf], f"{args}: {sf}")


def scenario_source_prefix(tmp):
    """--source-prefix shortens reported names, but two different sources stay
    two files (src/util.c and util.c both display as "util.c" here)."""
    need("gcc-12")
    d = os.path.join(tmp, "sp")
    write(f"{d}/util.c", "int f(void) { return 1; }\n")
    write(f"{d}/src/util.c", "int g(void) { return 2; }\nint h(void) { return 3; }\n")
    write(f"{d}/m.c", "int f(void);\nint main(void) { return f() - 1; }\n")
    for src, obj in (("util.c", "u1.o"), ("src/util.c", "u2.o"), ("m.c", "m.o")):
        run(["gcc-12", "--coverage", "-O0", "-c", src, "-o", obj], d)
    run(["gcc-12", "--coverage", "-o", "p", "u1.o", "u2.o", "m.o"], d)
    run([f"{d}/p"], d)
    out, _ = covkit_ok(["report", ".", "--lcov", "plain.info", "-s"], d)
    eq(sorted(table_rows(out)), ["TOTAL", "m.c", "src/util.c", "util.c"], "rows without a prefix")
    eq(table_rows(out)["TOTAL"], ["4", "2", "50.0%", "4", "2", "50.0%", "0", "0", "-"], "TOTAL without a prefix")
    out, _ = covkit_ok(["report", ".", "--source-prefix", "src", "--lcov", "prefix.info", "-s"], d)
    # Same records (absolute SF); their order follows the displayed names, and
    # the two util.c, both "util.c" after the prefix, are shown by absolute path.
    records = lambda text: sorted(r for r in text.split("end_of_record\n") if r)
    eq(records(read(f"{d}/prefix.info")), records(read(f"{d}/plain.info")),
       "lcov (absolute SF) does not depend on the prefix")
    eq(table_rows(out)["TOTAL"], ["4", "2", "50.0%", "4", "2", "50.0%", "0", "0", "-"], "TOTAL with a prefix")
    # Cobertura: every filename resolves against one of the <source>s (the
    # root, and the prefix's directory for what it shortened).
    covkit_ok(["report", ".", "--source-prefix", "src", "--cobertura", "c.xml"], d)
    xml = read(f"{d}/c.xml")
    sources = re.findall(r"<source>(.*?)</source>", xml)
    eq(sources, [d, f"{d}/src"], "Cobertura sources with a prefix")
    for name in re.findall(r'filename="([^"]*)"', xml):
        check(any(os.path.isfile(os.path.join(s, name)) for s in sources), f"{name} found under no <source>")


def strip_count(path):
    return len([c for c in path.split("/") if c])


def scenario_gcov_prefix(tmp):
    """GCOV_PREFIX/GCOV_PREFIX_STRIP: data in other trees pairs with the build's
    notes; one prefix run reports what the in-tree run reports; two add up."""
    proj = c_project(tmp)
    run_prog(proj)
    in_tree = covkit_ok(["report", "build", "--lcov", "in_tree.info", "-s"], proj)[0]
    expected = read(f"{proj}/in_tree.info")
    eq(expected, C_PROJECT_LCOV.replace("@P@", proj), "in-tree lcov")
    for f in glob.glob(f"{proj}/build/*.gcda"):
        os.remove(f)

    strip = str(strip_count(tmp))  # data lands in PREFIX/proj/build/*.gcda
    run_prog(proj, env={"GCOV_PREFIX": f"{tmp}/pfx1", "GCOV_PREFIX_STRIP": strip})
    eq(sorted(os.path.relpath(p, tmp) for p in glob.glob(f"{tmp}/pfx1/**/*.gcda", recursive=True)),
       ["pfx1/proj/build/main.gcda", "pfx1/proj/build/util.gcda"], "data files of the prefix run")
    eq(glob.glob(f"{proj}/build/*.gcda"), [], "no data in the build tree")

    eq(covkit_ok(["report", "build", "-q"], proj)[1], [], "-q: no warning that nothing ran in the build tree")
    eq(covkit(["report", "build"], proj)[2][0][:40], "covkit report: no .gcda file found: the ",
       "without the prefix tree: nothing ran, said")
    out, err = covkit_ok(["report", "build", f"{tmp}/pfx1", "--lcov", "p1.info", "-s"], proj)
    eq(err, [], "stderr")
    eq(read(f"{proj}/p1.info"), expected, "lcov of the prefix run")
    eq(out, in_tree, "table of the prefix run")
    # The data tree alone, with the notes from --object-directory.
    covkit_ok(["report", f"{tmp}/pfx1", "--object-directory", "build", "--lcov", "p1b.info"], proj)
    eq(read(f"{proj}/p1b.info"), expected, "lcov with --object-directory")

    run_prog(proj, env={"GCOV_PREFIX": f"{tmp}/pfx2", "GCOV_PREFIX_STRIP": strip})
    covkit_ok(["report", "build", f"{tmp}/pfx1", f"{tmp}/pfx2", "--lcov", "p12.info"], proj)
    both = parse_lcov(read(f"{proj}/p12.info"))
    one = parse_lcov(expected)
    eq(sorted(both), sorted(one), "source files of two runs")
    for sf in one:
        eq(both[sf]["DA"], {n: 2 * c for n, c in one[sf]["DA"].items()}, f"{sf}: DA of two runs")
        eq(both[sf]["FNDA"], {n: 2 * c for n, c in one[sf]["FNDA"].items()}, f"{sf}: FNDA of two runs")
        eq(both[sf]["BRDA"], [(n, b, i, t if t == "-" else str(2 * int(t))) for n, b, i, t in one[sf]["BRDA"]],
           f"{sf}: BRDA of two runs")
    eq(lcov_totals(read(f"{proj}/p12.info")), lcov_totals(expected), "LF/LH/BRF/BRH/FNF/FNH of two runs")


def scenario_data_paired_by_stamp(tmp):
    """A data file whose path matches two notes files equally well (a/x.c and
    b/x.c built as build/a/x.o and build/b/x.o, the run's x.gcda collected
    into one flat directory) is paired with the one whose stamp it carries,
    as gcov pairs them; a data file that no candidate's stamp matches is
    skipped with a warning."""
    need("gcc-12")
    d = os.path.join(tmp, "stamp")
    write(f"{d}/src/a/x.c", "int ax(int v) {\n  if (v > 1)\n    return v;\n  return 0;\n}\n")
    write(f"{d}/src/b/x.c", "int bx(void) {\n  return 7;\n}\n")
    write(f"{d}/src/main.c", "int ax(int);\nint main(void) { return ax(2) - 2; }\n")
    for src, obj in (("src/a/x.c", "build/a/x.o"), ("src/b/x.c", "build/b/x.o"), ("src/main.c", "build/main.o")):
        os.makedirs(os.path.dirname(f"{d}/{obj}"), exist_ok=True)
        run(["gcc-12", "--coverage", "-O0", "-c", src, "-o", obj], d)
    run(["gcc-12", "--coverage", "-o", "prog", "build/a/x.o", "build/b/x.o", "build/main.o"], d)
    run([f"{d}/prog"], d)
    # Only a's x.gcda (b's function never ran, but its object still wrote
    # one): the artifact directory holds a's, as a flat copy would.
    os.makedirs(f"{d}/data")
    shutil.move(f"{d}/build/a/x.gcda", f"{d}/data/x.gcda")
    shutil.move(f"{d}/build/main.gcda", f"{d}/data/main.gcda")
    os.remove(f"{d}/build/b/x.gcda")
    rc, out, err = covkit(["report", "build", "data", "--lcov", "t.info"], d)
    eq((rc, err), (0, []), "status and stderr")
    rec = parse_lcov(read(f"{d}/t.info"))
    eq(rec[f"{d}/src/a/x.c"]["DA"], {1: 1, 2: 1, 3: 1, 4: 0}, "a/x.c has the run's counts")
    eq(rec[f"{d}/src/b/x.c"]["DA"], {1: 0, 2: 0}, "b/x.c never ran")

    # b's notes rebuilt: its stamp changes, a's stays; a data file with a
    # stamp of neither (a's object rebuilt too) pairs with nothing.
    time.sleep(1.1)  # gcc takes the stamp from the clock (ms): a later build has another
    run(["gcc-12", "--coverage", "-O0", "-c", "src/a/x.c", "-o", "build/a/x.o"], d)
    rc, out, err = covkit(["report", "build", "data", "--lcov", "t2.info"], d)
    eq(rc, 0, "status")
    eq(err, [f"covkit report: {d}/data/x.gcda: several .gcno files match equally well and no single one has its "
             "stamp; skipped (pass the build tree that holds it)"], "stderr")


def scenario_path_map(tmp):
    """Sources moved after the build: without --path-map they are not found
    (HTML notice, markers cannot apply); with it, SF names the new place and
    the markers apply."""
    orig = excl_project(tmp)
    moved = os.path.join(tmp, "m", "moved")
    os.makedirs(moved)
    shutil.move(f"{orig}/src", f"{moved}/src")

    out, err = covkit_ok(["report", "build", "--lcov", "nomap.info", "--html", "html_nomap"], orig)
    recs = parse_lcov(read(f"{orig}/nomap.info"))
    eq(list(recs), [f"{orig}/src/excl.c"], "SF without a map")
    rec = recs[f"{orig}/src/excl.c"]
    eq((rec["LF"], rec["BRF"], rec["FNF"]), (17, 6, 5), "LF/BRF/FNF without the source (no markers)")
    pages = [p for p in glob.glob(f"{orig}/html_nomap/*.html")
             if not p.endswith("index.html") and not os.path.basename(p).startswith("dir-")]
    eq(len(pages), 1, "source pages")
    page = read(pages[0])
    check("source not found" in page and f"{orig}/src/excl.c" in page,
          "the HTML page says the source was not found and names it")

    out, err = covkit_ok(["report", "build", "--path-map", f"{orig}/src={moved}/src", "--lcov", "map.info", "--html",
                          "html_map", "-s"], orig)
    eq(err, [], "stderr")
    eq(read(f"{orig}/map.info"), EXCL_LCOV.replace("@S@", f"{moved}/src"), "lcov with the map")
    eq(table_rows(out)["TOTAL"], ["11", "9", "81.8%", "4", "3", "75.0%", "2", "1", "50.0%"], "TOTAL with the map")
    for p in glob.glob(f"{orig}/html_map/*.html"):
        check("source not found" not in read(p), f"{p}: source found with the map")
    # A map whose OLD only shares a prefix of a name does not apply.
    covkit_ok(["report", "build", "--path-map", f"{orig}/sr={moved}/src", "--lcov", "partial.info"], orig)
    eq(list(parse_lcov(read(f"{orig}/partial.info"))), [f"{orig}/src/excl.c"], "SF with a map of a partial name")
    # First match wins.
    covkit_ok(["report", "build", "--path-map", f"{orig}={moved}", "--path-map", f"{orig}/src={tmp}/nowhere",
               "--lcov", "first.info"], orig)
    eq(list(parse_lcov(read(f"{orig}/first.info"))), [f"{moved}/src/excl.c"], "SF with two maps")


def scenario_unreadable_sources(tmp):
    """A CI job with the build tree and not the sources: the first ten
    sources not readable are named, one line each, then one line counts the
    rest and says what helps; every count is kept (lcov says one warning per
    file, gcovr drops the file; neither caps)."""
    need("gcc-12")
    proj = os.path.join(tmp, "many")
    n = 13
    for i in range(n):
        write(f"{proj}/src/f{i:02}.c", f"int f{i:02}(int x) {{\n  if (x > {i})\n    return x - {i};\n  return {i};\n}}\n")
    calls = "".join(f"  s += f{i:02}(argc);\n" for i in range(n))
    decls = "".join(f"int f{i:02}(int);\n" for i in range(n))
    write(f"{proj}/src/main.c", f"{decls}int main(int argc, char **argv) {{\n  int s = 0;\n{calls}  return s < 0;\n}}\n")
    os.makedirs(f"{proj}/build")
    objs = []
    for name in [f"f{i:02}" for i in range(n)] + ["main"]:
        run(["gcc-12", "--coverage", "-O0", "-c", f"src/{name}.c", "-o", f"build/{name}.o"], proj)
        objs.append(f"build/{name}.o")
    run(["gcc-12", "--coverage", "-o", "build/prog"] + objs, proj)
    run([f"{proj}/build/prog"], proj)
    covkit_ok(["report", "build", "--lcov", "with.info"], proj)
    with_sources = read(f"{proj}/with.info")
    # Two missing: each named, no count line.
    os.rename(f"{proj}/src/f03.c", f"{proj}/f03.c.away")
    os.rename(f"{proj}/src/main.c", f"{proj}/main.c.away")
    rc, _, err = covkit(["report", "build", "--lcov", "two.info"], proj)
    eq((rc, err), (0, [f"covkit report: {proj}/src/{name}: source not readable (No such file or directory); its "
                       "counts are reported, its exclusion markers cannot be (try --path-map OLD=NEW)"
                       for name in ("f03.c", "main.c")]), "two sources missing")
    eq(read(f"{proj}/two.info"), with_sources, "the counts of two missing sources")
    os.rename(f"{proj}/f03.c.away", f"{proj}/src/f03.c")
    os.rename(f"{proj}/main.c.away", f"{proj}/src/main.c")
    # All of them missing (14): ten named, in the report's order, then one line.
    shutil.move(f"{proj}/src", f"{proj}/src.away")
    rc, _, err = covkit(["report", "build", "--lcov", "none.info"], proj)
    eq(rc, 0, "exit status without sources")
    named = [f"covkit report: {proj}/src/f{i:02}.c: source not readable (No such file or directory); its counts are "
             "reported, its exclusion markers cannot be (try --path-map OLD=NEW)" for i in range(10)]
    eq(err, named + ["covkit report: 4 more sources not readable (14 in all); their counts are reported, their "
                     "exclusion markers cannot be (are the sources elsewhere? --path-map OLD=NEW reads them there; "
                     "--no-exclusion-markers reads none)"], "fourteen sources missing")
    eq(read(f"{proj}/none.info"), with_sources, "the counts of every missing source")
    # The hints do what they say.
    out, err = covkit_ok(["report", "build", "--no-exclusion-markers", "--lcov", "nomark.info"], proj)
    eq(err, [], "--no-exclusion-markers reads no source")
    os.rename(f"{proj}/src.away", f"{proj}/moved")
    out, err = covkit_ok(["report", "build", "--path-map", f"{proj}/src={proj}/moved", "--lcov", "map.info"], proj)
    eq(err, [], "--path-map finds them")


def scenario_markers(tmp):
    """LCOV_EXCL_LINE, START/STOP, BR_LINE, GCOVR_EXCL_LINE; --no-exclusion-markers."""
    root = excl_project(tmp)
    out, err = covkit_ok(["report", "build", "--lcov", "on.info", "-s"], root)
    eq(err, [], "stderr")
    eq(read(f"{root}/on.info"), EXCL_LCOV.replace("@S@", f"{root}/src"), "lcov with markers")
    eq(table_rows(out)["TOTAL"], ["11", "9", "81.8%", "4", "3", "75.0%", "2", "1", "50.0%"], "TOTAL with markers")

    out, err = covkit_ok(["report", "build", "--no-exclusion-markers", "--lcov", "off.info", "-s"], root)
    rec = parse_lcov(read(f"{root}/off.info"))[f"{root}/src/excl.c"]
    eq((rec["LF"], rec["LH"], rec["FNF"], rec["FNH"], rec["BRF"], rec["BRH"]), (17, 9, 5, 3, 6, 2),
       "totals without markers")
    eq(sorted(rec["DA"]), [3, 4, 5, 6, 10, 11, 12, 13, 17, 18, 19, 20, 23, 24, 27, 28, 29], "DA lines without markers")
    eq(rec["FN"]["debug_only"], 10, "debug_only is back")
    eq(sorted({b[0] for b in rec["BRDA"]}), [4, 11, 18], "branch lines without markers")
    eq(table_rows(out)["TOTAL"], ["17", "9", "52.9%", "5", "3", "60.0%", "6", "2", "33.3%"], "TOTAL without markers")

    # An unclosed region: a warning naming the file and line; excluded to the end.
    src = read(f"{root}/src/excl.c").splitlines()
    src[26] += " // LCOV_EXCL_START"  # line 27: main
    write(f"{root}/src/excl.c", "\n".join(src) + "\n")
    out, err = covkit_ok(["report", "build", "--lcov", "open.info"], root)
    eq(err, ["covkit report: src/excl.c:27: LCOV_EXCL_START without a matching LCOV_EXCL_STOP; excluded to the end "
             "of the file"], "stderr for an unclosed region")
    rec = parse_lcov(read(f"{root}/open.info"))[f"{root}/src/excl.c"]
    eq((rec["LF"], rec["FNF"]), (8, 3), "LF/FNF with main excluded")
    _, err = covkit_ok(["report", "build", "--lcov", "open.info", "-q"], root)
    eq(err, [], "-q silences the warning")


def scenario_filters(tmp):
    """--filter/--exclude regexes on displayed and absolute names."""
    proj = c_project(tmp)
    run_prog(proj)

    def files_and_total(args):
        out, err = covkit_ok(["report", "build", "-s", "--lcov", "f.info"] + args, proj)
        eq(err, [], f"stderr of {args}")
        return sorted(parse_lcov(read(f"{proj}/f.info"))), table_rows(out)["TOTAL"]

    p = f"{proj}/src/"
    files, total = files_and_total(["--filter", "util"])
    eq(files, [p + "util.c"], "--filter util")
    eq(total, ["8", "6", "75.0%", "2", "1", "50.0%", "4", "4", "100.0%"], "TOTAL of --filter util")
    files, total = files_and_total(["--exclude", r"main\.c$"])
    eq(files, [p + "never.c", p + "util.c"], "--exclude main.c")
    eq(total, ["12", "6", "50.0%", "3", "1", "33.3%", "6", "4", "66.7%"], "TOTAL of --exclude main.c")
    files, _ = files_and_total(["-f", "^src/", "-e", "never", "-e", "util"])
    eq(files, [p + "main.c"], "include then two excludes")
    files, _ = files_and_total(["-f", "^src/main", "-f", "^src/never"])
    eq(files, [p + "main.c", p + "never.c"], "two includes")
    files, _ = files_and_total(["--filter", "^" + proj + r"/src/util\.c$"])  # the absolute name
    eq(files, [p + "util.c"], "--filter on the absolute path")
    files, _ = files_and_total(["--filter", "^/nowhere/"])
    eq(files, [], "a filter nothing matches")


def scenario_system_headers(tmp):
    """System headers are dropped by default, kept with --keep-system-headers."""
    d = cxx_program(tmp, "vec", VECTOR_CC)
    out, err = covkit_ok(["report", ".", "--lcov", "def.info", "-s"], d)
    eq(err, [], "stderr")
    recs = parse_lcov(read(f"{d}/def.info"))
    eq(list(recs), [f"{d}/vec.cc"], "SF by default")
    eq(list(table_rows(out)), ["vec.cc", "TOTAL"], "table rows by default")
    vec = recs[f"{d}/vec.cc"]
    eq((vec["LF"], vec["LH"], vec["FNF"], vec["FNH"]), (10, 10, 2, 2), "vec.cc totals")

    covkit_ok(["report", ".", "--keep-system-headers", "--lcov", "all.info"], d)
    recs = parse_lcov(read(f"{d}/all.info"))
    system = [sf for sf in recs if sf.startswith("/usr/")]
    check("/usr/include/c++/12/bits/stl_vector.h" in system, f"stl_vector.h kept: {sorted(recs)}")
    check(all(sf.startswith("/usr/include/") for sf in system), f"system headers: {system}")
    eq(recs[f"{d}/vec.cc"], vec, "vec.cc is the same either way")
    # --keep-system-headers still honours --exclude.
    covkit_ok(["report", ".", "--keep-system-headers", "-e", "^/usr/include/c\\+\\+/12/bits/", "--lcov", "x.info"], d)
    check(not any("/bits/" in sf for sf in parse_lcov(read(f"{d}/x.info"))), "bits/ excluded")


def throw_branches_per_line(gcov_json):
    out = {}
    for f in gcov_json["files"]:
        if f["file"].startswith("/usr/"):
            continue
        for line in f["lines"]:
            n = sum(1 for b in line["branches"] if b["throw"])
            if n:
                out[line["line_number"]] = out.get(line["line_number"], 0) + n
    return out


def scenario_throw_branches(tmp):
    """--exclude-throw-branches drops exactly the branches gcov marks "throw"."""
    need("gcov-12")
    d = cxx_program(tmp, "exc", EXCEPTIONS_CC)
    # The throw branches, counted by gcov-12 itself and by `covkit gcov`.
    os.makedirs(f"{d}/gcov")
    run(["gcov-12", "--json-format", "-b", "-o", d, f"{d}/exc.gcda"], f"{d}/gcov")
    gcov12 = throw_branches_per_line(json.load(gzip.open(glob.glob(f"{d}/gcov/*.gcov.json.gz")[0])))
    p = run([COVKIT, "gcov", "-j", "-b", "-t", "exc.gcda"], d)
    ours = throw_branches_per_line(json.loads(p.stdout))
    eq(ours, gcov12, "throw branches per line, covkit gcov vs gcov-12")
    throws = sum(gcov12.values())
    eq(throws, 2, "throw branches in exc.cc")

    covkit_ok(["report", ".", "--lcov", "all.info"], d)
    covkit_ok(["report", ".", "--exclude-throw-branches", "--lcov", "nothrow.info"], d)
    all_ = parse_lcov(read(f"{d}/all.info"))[f"{d}/exc.cc"]
    nothrow = parse_lcov(read(f"{d}/nothrow.info"))[f"{d}/exc.cc"]
    eq((all_["BRF"], all_["BRH"]), (10, 8), "BRF/BRH")
    eq(all_["BRF"] - nothrow["BRF"], throws, "branches dropped by --exclude-throw-branches")
    eq((nothrow["BRF"], nothrow["BRH"]), (8, 7), "BRF/BRH without throw branches")
    for line, n in gcov12.items():
        before = sum(1 for b in all_["BRDA"] if b[0] == line)
        after = sum(1 for b in nothrow["BRDA"] if b[0] == line)
        eq(before - after, n, f"branches dropped on line {line}")
    eq(all_["DA"], nothrow["DA"], "lines are untouched")

    # LCOV_EXCL_EXCEPTION_BR_LINE on one call line drops only its throw branch.
    call_line = 14
    check(call_line in gcov12, f"line {call_line} has a throw branch: {gcov12}")
    src = read(f"{d}/exc.cc").splitlines()
    src[call_line - 1] += " // LCOV_EXCL_EXCEPTION_BR_LINE"
    write(f"{d}/exc.cc", "\n".join(src) + "\n")
    covkit_ok(["report", ".", "--lcov", "marker.info"], d)
    marked = parse_lcov(read(f"{d}/marker.info"))[f"{d}/exc.cc"]
    eq(marked["BRF"], all_["BRF"] - gcov12[call_line], "BRF with the exception marker")
    eq(sorted(b for b in marked["BRDA"] if b[0] != call_line), sorted(b for b in all_["BRDA"] if b[0] != call_line),
       "other lines keep their branches")


HANDLER_CC = """#include <stdexcept>

static int parse(int x) {
  if (x < 0)
    throw std::runtime_error("negative");
  return x * 2;
}

int main(int argc, char **) {
  int total = 0;
  for (int i = -1; i < argc + 1; i++) {
    try {
      total += parse(i);
    } catch (const std::exception &e) {  // HANDLER
      if (total > 100)                   // HANDLER
        total = 0;
      total -= 1;
    }
  }
  return total == 1 ? 0 : 1;
}
"""


def scenario_unreachable_branches(tmp):
    """--exclude-unreachable-branches drops the branches of code reachable only
    through exception arcs -- here the catch handler's type test and the `if`
    inside it -- and nothing else."""
    d = cxx_program(tmp, "handler", HANDLER_CC)
    covkit_ok(["report", ".", "--lcov", "all.info"], d)
    covkit_ok(["report", ".", "--exclude-unreachable-branches", "--lcov", "unr.info"], d)
    all_ = parse_lcov(read(f"{d}/all.info"))[f"{d}/handler.cc"]
    unr = parse_lcov(read(f"{d}/unr.info"))[f"{d}/handler.cc"]
    handler = {n + 1 for n, text in enumerate(HANDLER_CC.splitlines()) if "// HANDLER" in text}
    eq(sorted({b[0] for b in all_["BRDA"]} & handler), sorted(handler), "the handler lines have branches")
    eq([b for b in unr["BRDA"] if b[0] in handler], [], "no branch left in the handler")
    eq([b for b in all_["BRDA"] if b[0] not in handler], unr["BRDA"], "other branches untouched")
    eq(all_["DA"], unr["DA"], "lines are untouched")


TEMPLATE_H = """template <typename T>
T twice(T v) {
  if (v > T(0))
    return v + v;
  return T(0);
}
"""

TEMPLATE_CC = """#include "twice.h"

int main() {
  int a = twice(3) + twice(-1);
  double b = twice(2.5);
  return a + b > 0 ? 0 : 1;
}
"""


def scenario_instantiations(tmp):
    """Template instantiations are one line, one count (the sum) everywhere;
    --show-instantiations adds each instantiation's own count (JSON, HTML)."""
    need("g++-12")
    d = os.path.join(tmp, "tpl")
    write(f"{d}/twice.h", TEMPLATE_H)
    write(f"{d}/main.cc", TEMPLATE_CC)
    run(["g++-12", "--coverage", "-O0", "-o", "main", "main.cc"], d)
    run([f"{d}/main"], d)
    covkit_ok(["report", ".", "--lcov", "t.info", "--json", "plain.json"], d)
    rec = parse_lcov(read(f"{d}/t.info"))[f"{d}/twice.h"]
    # twice<int> runs twice (3, -1), twice<double> once: line 3 ran 3 times,
    # line 4 twice (3 and 2.5), line 5 once (-1).
    eq({n: rec["DA"][n] for n in (3, 4, 5)}, {3: 3, 4: 2, 5: 1}, "summed line counts")
    eq(sorted(rec["FNDA"].values()), [1, 2], "one function per instantiation")
    plain = json.loads(read(f"{d}/plain.json"))
    eq([l for f in plain["files"] for l in f["lines"] if "instances" in l], [], "no instances without the switch")

    covkit_ok(["report", ".", "--show-instantiations", "--json", "inst.json", "--html", "html"], d)
    inst = json.loads(read(f"{d}/inst.json"))
    lines = {l["line"]: l for f in inst["files"] if f["path"] == "twice.h" for l in f["lines"]}
    per_fn = {i["function"]: i["count"] for i in lines[4]["instances"]}
    eq(sorted(per_fn.items()), [("_Z5twiceIdET_S0_", 1), ("_Z5twiceIiET_S0_", 1)], "line 4 per instantiation")
    eq(lines[4]["count"], 2, "line 4 total")
    eq(sorted(i["count"] for i in lines[5]["instances"]), [0, 1], "line 5 per instantiation")
    page = [p for p in glob.glob(f"{d}/html/twice.h-*.html")]
    eq(len(page), 1, "one page for twice.h")
    check("twice&lt;double&gt;" in read(page[0]) or "twice<double>" in read(page[0]),
          "the HTML names the instantiation")


TMAX_H = """template <class T> T tmax(T a, T b) {
  if (a > b)
    return a;
  return b;
}
"""


def scenario_instantiations_across_objects(tmp):
    """A template instantiated in several objects: every instantiation is
    listed, also those that are the only one of their object (b.cc holds
    tmax<double> alone, m.cc tmax<int> and tmax<long>; one.cc and two.cc one
    each), and the instances add up to the line's count. A plain function
    or an inline one that several objects hold gets no instances."""
    need("g++-12")
    d = os.path.join(tmp, "across")
    write(f"{d}/t.h", TMAX_H + "inline int shared(int x) { return x + 1; }\n")
    write(f"{d}/b.cc", '#include "t.h"\ndouble bd(double x) { return tmax(x, 2.0) + shared(1); }\n')
    write(f"{d}/m.cc", '#include "t.h"\ndouble bd(double);\n'
          'int main() { int r = tmax(1, 2); long l = tmax(3L, 1L);\n'
          '  return int(bd(1.0)) + r + int(l) + shared(0) - 10; }\n')
    run(["g++-12", "--coverage", "-O0", "-c", "b.cc", "m.cc"], d)
    run(["g++-12", "--coverage", "-o", "m", "b.o", "m.o"], d)
    run([f"{d}/m"], d)
    covkit_ok(["report", ".", "--show-instantiations", "--json", "j.json"], d)
    files = {f["path"]: f for f in json.loads(read(f"{d}/j.json"))["files"]}
    lines = {l["line"]: l for l in files["t.h"]["lines"]}
    names = {"_Z4tmaxIdET_S0_S0_": "double", "_Z4tmaxIiET_S0_S0_": "int", "_Z4tmaxIlET_S0_S0_": "long"}
    per_line = {n: sorted((names[i["function"]], i["count"]) for i in lines[n].get("instances", []))
                for n in (1, 2, 3, 4)}
    # tmax(2.0 vs 1.0) returns b, tmax(1, 2) b, tmax(3L, 1L) a.
    eq(per_line, {1: [("double", 1), ("int", 1), ("long", 1)],
                  2: [("double", 1), ("int", 1), ("long", 1)],
                  3: [("double", 0), ("int", 0), ("long", 1)],
                  4: [("double", 1), ("int", 1), ("long", 0)]}, "every instantiation on every line")
    for n in (1, 2, 3, 4):
        eq(sum(i["count"] for i in lines[n]["instances"]), lines[n]["count"], f"line {n}: instances add up")
    eq(lines[6].get("instances"), None, "an inline function of two objects is no instantiation")
    eq([l["line"] for f in ("b.cc", "m.cc") for l in files[f]["lines"] if "instances" in l], [],
       "plain functions have no instances")

    # One instantiation in each object, nothing shared within either.
    e = os.path.join(tmp, "one_each")
    write(f"{e}/t.h", TMAX_H)
    write(f"{e}/one.cc", '#include "t.h"\nint one() { return tmax(1, 0); }\n')
    write(f"{e}/two.cc", '#include "t.h"\nint one();\nint main() { return one() + int(tmax(0.5, 1.5)) - 2; }\n')
    run(["g++-12", "--coverage", "-O0", "-c", "one.cc", "two.cc"], e)
    run(["g++-12", "--coverage", "-o", "two", "one.o", "two.o"], e)
    run([f"{e}/two"], e)
    covkit_ok(["report", ".", "--show-instantiations", "--json", "j.json"], e)
    th = [f for f in json.loads(read(f"{e}/j.json"))["files"] if f["path"] == "t.h"][0]
    eq(sorted((i["function"], i["count"]) for l in th["lines"] if l["line"] == 3 for i in l["instances"]),
       [("_Z4tmaxIdET_S0_S0_", 0), ("_Z4tmaxIiET_S0_S0_", 1)], "one instantiation per object, both listed")


def scenario_odd_file_names(tmp):
    """File names that are no UTF-8 (a 0xff byte), hold a control character,
    or have multi-byte and wide characters: every row of the terminal table
    has the same width in columns, and the Markdown table is valid UTF-8
    with the bad bytes shown as U+FFFD."""
    need("gcc-12")
    d = os.path.join(tmp, "odd").encode()
    names = [b"b\xffd.c", "\u00fc.c".encode(), b"x\x01y.c", "\u65e5\u672c.c".encode()]
    os.makedirs(d, exist_ok=True)
    for i, n in enumerate(names):
        with open(os.path.join(d, n), "wb") as f:
            f.write(b"int f%d(void) { return %d; }\n" % (i, i))
    with open(os.path.join(d, b"m.c"), "wb") as f:
        f.write(b"int f0(void); int f1(void); int f2(void); int f3(void);\n"
                b"int main(void) { return f0() + f1() + f2() + f3() - 6; }\n")
    for n in names + [b"m.c"]:
        subprocess.run([b"gcc-12", b"--coverage", b"-O0", b"-c", n], cwd=d, check=True)
    objs = sorted(o for o in os.listdir(d) if o.endswith(b".o"))
    subprocess.run([b"gcc-12", b"--coverage", b"-o", b"m"] + objs, cwd=d, check=True)
    subprocess.run([b"./m"], cwd=d, check=True)
    p = subprocess.run([COVKIT, "report", ".", "--markdown", "cov.md", "-s"], cwd=d, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=dict(os.environ, LC_ALL="C"))
    eq(p.returncode, 0, "status")
    try:
        table = p.stdout.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Failure(f"the table is no UTF-8 ({e}): {p.stdout!r}")
    wide = lambda ch: 2 if "\u4e00" <= ch <= "\u9fff" else 1
    # Rules (---) run on over the Missing column, which ends the header and
    # is empty here (all covered): the columns before it align.
    widths = {sum(wide(ch) for ch in line.removesuffix("  Missing")) for line in table.splitlines()
              if not line.startswith("---")}
    eq(len(widths), 1, f"every row of the table as wide as the others:\n{table}")
    check("b\ufffdd.c" in table and "x\ufffdy.c" in table and "\u00fc.c" in table and "\u65e5\u672c.c" in table,
          f"names shown with U+FFFD for the bad bytes:\n{table}")
    with open(os.path.join(d, b"cov.md"), "rb") as f:
        raw = f.read()
    try:
        md = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Failure(f"the Markdown is no UTF-8 ({e}): {raw!r}")
    check("| `b\ufffdd.c` |" in md and "| `x\ufffdy.c` |" in md, f"Markdown cells:\n{md}")


def scenario_gates(tmp):
    """--fail-under-*: exit 2 and one stderr line per failing gate."""
    proj = c_project(tmp)
    run_prog(proj)  # lines 13/20 = 65%, functions 2/4 = 50%, branches 7/10 = 70%
    # A threshold that is no number is a usage error: "nan" compared false
    # with everything, and the gate never failed.
    for bad in ("nan", "NaN", "-nan", "nan%", "inf", "80 ", ""):
        rc, _, err = covkit(["report", "build", "--fail-under-branch", bad], proj)
        eq((rc, err), (1, [f"covkit report: --fail-under-branch: '{bad.rstrip('%')}' is not a number from 0 to 100 "
                           "(see covkit report --help)"]), f"--fail-under-branch {bad!r}")
    rc, out, err = covkit(["report", "build", "--fail-under-line", "66"], proj)
    eq(rc, 2, "exit status of a failing line gate")
    eq(err, ["covkit report: line coverage 65.0% (13/20) is below --fail-under-line 66"], "stderr")
    eq(out, C_PROJECT_TABLE, "the table is still printed")

    rc, out, err = covkit(["report", "build", "--fail-under-line", "65.1", "--fail-under-branch", "70.5",
                           "--fail-under-function", "51"], proj)
    eq(rc, 2, "exit status of three failing gates")
    eq(err, ["covkit report: line coverage 65.0% (13/20) is below --fail-under-line 65.1",
             "covkit report: branch coverage 70.0% (7/10) is below --fail-under-branch 70.5",
             "covkit report: function coverage 50.0% (2/4) is below --fail-under-function 51"], "stderr")

    rc, _, err = covkit(["report", "build", "--fail-under-branch", "71", "--fail-under-line", "10"], proj)
    eq(rc, 2, "exit status of a failing branch gate")
    eq(err, ["covkit report: branch coverage 70.0% (7/10) is below --fail-under-branch 71"], "stderr")

    rc, _, err = covkit(["report", "build", "--fail-under-function", "50.01", "--lcov", "g.info"], proj)
    eq(rc, 2, "exit status of a failing function gate while writing a file")
    eq(err, ["covkit report: function coverage 50.0% (2/4) is below --fail-under-function 50.01"], "stderr")
    eq(read(f"{proj}/g.info"), C_PROJECT_LCOV.replace("@P@", proj), "the file is written anyway")

    rc, out, err = covkit(["report", "build", "--fail-under-line", "65", "--fail-under-branch", "70",
                           "--fail-under-function", "50"], proj)
    eq((rc, err), (0, []), "gates met exactly")
    rc, _, err = covkit(["report", "build", "--fail-under-line", "0", "--fail-under-branch", "0",
                         "--fail-under-function", "0"], proj)
    eq((rc, err), (0, []), "zero gates")
    # No lines at all means nothing was measured (a filter or path that
    # matched nothing, damaged objects): the line gate fails, as gcovr's does;
    # no branches or functions to cover pass (C code without branches).
    rc, out, err = covkit(["report", "build", "-e", ".", "--fail-under-line", "100", "--fail-under-branch", "100",
                           "--fail-under-function", "100"], proj)
    eq((rc, err), (2, ["covkit report: line coverage cannot be measured: there are no lines (check the paths and "
                       "filters) and --fail-under-line 100 asks for some"]), "gates on an empty project")
    rc, out, err = covkit(["report", "build", "-e", ".", "--fail-under-branch", "100", "--fail-under-function", "100"],
                          proj)
    eq((rc, err), (0, []), "branch and function gates on an empty project")
    eq(table_rows(out)["TOTAL"], ["0", "0", "-", "0", "0", "-", "0", "0", "-"], "TOTAL of an empty project")


DIFF_V1 = """int add(int a, int b) {
  return a + b;
}

int sub(int a, int b) {
  return a - b;
}

int main(void) {
  int r = add(2, 3);
  r = sub(r, 1);
  return r == 4 ? 0 : 1;
}
"""

DIFF_V2 = """int add(int a, int b) {
  return a + b;
}

int sub(int a, int b) {
  int d = a - b;
  if (d < 0)
    d = -d;
  return d;
}

int main(void) {
  int r = add(2, 3);
  r = sub(r, 1);
  return r == 4 ? 0 : 1;
}
"""


def diff_repo(tmp, name="repo"):
    """A git repository with calc.c at DIFF_V1 (HEAD~1) and DIFF_V2 (HEAD)."""
    need("git")
    need("gcc-12")
    repo = os.path.join(tmp, name)
    write(f"{repo}/calc.c", DIFF_V1)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    run(git + ["init", "-q", "."], repo)
    run(git + ["add", "calc.c"], repo)
    run(git + ["commit", "-q", "-m", "one"], repo)
    write(f"{repo}/calc.c", DIFF_V2)  # lines 6-9 replace line 6
    run(git + ["commit", "-q", "-a", "-m", "two"], repo)
    return repo


def build_calc(where):
    """Builds and runs calc in `where` (with PWD=where, as a shell would)."""
    os.makedirs(f"{where}/build")
    env = {"PWD": where}
    run(["gcc-12", "--coverage", "-O0", "-c", "calc.c", "-o", "build/calc.o"], where, env=env)
    run(["gcc-12", "--coverage", "-o", "build/calc", "build/calc.o"], where, env=env)
    run([f"{where}/build/calc"], where, env=env)


def scenario_diff(tmp):
    """--diff REV keeps only the lines changed since REV."""
    repo = diff_repo(tmp)
    build_calc(repo)
    covkit_ok(["report", "build", "--lcov", "all.info"], repo)
    eq(lcov_totals(read(f"{repo}/all.info"))["LF"], 11, "LF of the whole file")
    out, err = covkit_ok(["report", "build", "--diff", "HEAD~1", "--lcov", "diff.info", "-s"], repo)
    eq(err, [], "stderr")
    rec = parse_lcov(read(f"{repo}/diff.info"))[f"{repo}/calc.c"]
    eq(rec["DA"], {6: 1, 7: 1, 8: 0, 9: 1}, "DA of the changed lines")
    eq((rec["LF"], rec["LH"], rec["BRF"], rec["BRH"], rec["FNF"]), (4, 3, 2, 1, 0), "LF/LH/BRF/BRH/FNF")
    eq(table_rows(out)["TOTAL"], ["4", "3", "75.0%", "0", "0", "-", "2", "1", "50.0%"], "TOTAL")
    # Gates apply to the changed lines only.
    rc, _, err = covkit(["report", "build", "--diff", "HEAD~1", "--fail-under-line", "80"], repo)
    eq((rc, err), (2, ["covkit report: line coverage 75.0% (3/4) is below --fail-under-line 80"]), "diff gate")
    # No change since HEAD: nothing left to report, still exit 0.
    rc, out, err = covkit(["report", "build", "--diff", "HEAD", "--lcov", "none.info"], repo)
    eq((rc, err), (0, []), "--diff HEAD")
    eq(read(f"{repo}/none.info"), "", "lcov of no changed lines")
    # ...and the line gate passes: no changed line needs covering, as
    # diff-cover passes --fail-under on a diff without coverable lines (a
    # pull request that changes only documentation); it says so.
    rc, _, err = covkit(["report", "build", "--diff", "HEAD", "--fail-under-line", "80"], repo)
    eq((rc, err), (0, ["covkit report: no line changed since HEAD has code: --fail-under-line 80 passes, with nothing "
                       "to measure"]), "--diff HEAD with a line gate")
    # A commit that changes only the documentation and a comment.
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    write(f"{repo}/README.md", "# calc\n")
    write(f"{repo}/calc.c", DIFF_V2.replace("int main(void) {", "/* the entry */\nint main(void) {", 1))
    run(git + ["add", "README.md"], repo)
    run(git + ["commit", "-q", "-a", "-m", "docs"], repo)
    build_calc_again = ["gcc-12", "--coverage", "-O0", "-c", "calc.c", "-o", "build/calc.o"]
    run(build_calc_again, repo, env={"PWD": repo})
    run(["gcc-12", "--coverage", "-o", "build/calc", "build/calc.o"], repo, env={"PWD": repo})
    for f in glob.glob(f"{repo}/build/*.gcda"):
        os.unlink(f)
    run([f"{repo}/build/calc"], repo, env={"PWD": repo})
    rc, out, err = covkit(["report", "build", "--diff", "HEAD~1", "--fail-under-line", "100", "--fail-under-branch",
                           "100", "-s", "--lcov", "docs.info"], repo)
    eq((rc, err), (0, ["covkit report: no line changed since HEAD~1 has code: --fail-under-line 100 passes, with "
                       "nothing to measure"]), "a documentation-only change passes the gates")
    eq(table_rows(out)["TOTAL"], ["0", "0", "-", "0", "0", "-", "0", "0", "-"], "TOTAL of the changed lines")
    # Paths and filters that leave nothing still fail (nothing measured at
    # all), as without --diff; so do changed lines below the gate.
    rc, _, err = covkit(["report", "build", "--diff", "HEAD~1", "-e", ".", "--fail-under-line", "80"], repo)
    eq((rc, err), (2, ["covkit report: line coverage cannot be measured: there are no lines (check the paths and "
                       "filters) and --fail-under-line 80 asks for some"]), "--diff with filters that leave nothing")
    rc, _, err = covkit(["report", "build", "--diff", "HEAD~2", "--fail-under-line", "80"], repo)
    eq((rc, err), (2, ["covkit report: line coverage 75.0% (3/4) is below --fail-under-line 80"]),
       "the changes of two commits, below the gate")
    run(git + ["reset", "-q", "--hard", "HEAD~1"], repo)
    run(build_calc_again, repo, env={"PWD": repo})
    run(["gcc-12", "--coverage", "-o", "build/calc", "build/calc.o"], repo, env={"PWD": repo})
    for f in glob.glob(f"{repo}/build/*.gcda"):
        os.unlink(f)
    run([f"{repo}/build/calc"], repo, env={"PWD": repo})
    # An uncommitted change counts (the working tree against REV).
    write(f"{repo}/calc.c", DIFF_V2.replace("  return a + b;", "  return b + a;"))
    covkit_ok(["report", "build", "--diff", "HEAD", "--lcov", "wt.info"], repo)
    eq(parse_lcov(read(f"{repo}/wt.info"))[f"{repo}/calc.c"]["DA"], {2: 1}, "DA of a working-tree change")

    rc, out, err = covkit(["report", "build", "--diff", "nosuchrev", "--lcov", "bad.info"], repo)
    eq(rc, 1, "exit status of a bad revision")
    eq(len(err), 1, f"one stderr line: {err}")
    check(err[0].startswith("covkit report: --diff nosuchrev: ") and "nosuchrev" in err[0][30:],
          f"the error names the revision: {err[0]}")
    check(not os.path.exists(f"{repo}/bad.info"), "nothing written after a bad revision")


def scenario_diff_through_symlink(tmp):
    """--diff on a checkout reached through a symbolic link (a symlinked
    workspace or home, macOS's /tmp): GCC records the linked path, git
    reports the real one; the changed lines must still be found."""
    repo = diff_repo(tmp, "real")
    link = os.path.join(tmp, "link")
    os.symlink(repo, link)
    build_calc(link)
    with open(f"{repo}/build/calc.gcno", "rb") as f:
        check(link.encode() in f.read(), "gcc recorded the linked directory")
    out, err = covkit_ok(["report", "build", "--diff", "HEAD~1", "--lcov", "diff.info", "-s"], link)
    eq(err, [], "stderr")
    eq(table_rows(out)["TOTAL"], ["4", "3", "75.0%", "0", "0", "-", "2", "1", "50.0%"], "TOTAL of the changed lines")
    rc, _, err = covkit(["report", "build", "--diff", "HEAD~1", "--fail-under-line", "80"], link)
    eq(rc, 2, "the gate sees the changed lines (a vacuous pass would hide them)")


def scenario_diff_built_elsewhere(tmp):
    """--diff with a line gate when the build names the sources outside the
    checkout (built from a copy, in a container, without --path-map): the
    changed lines cannot be matched, which is not a change without code; the
    gate fails, saying why, and passes judgement once --path-map matches."""
    repo = diff_repo(tmp)
    elsewhere = os.path.join(tmp, "elsewhere")
    os.makedirs(elsewhere)
    shutil.copy(f"{repo}/calc.c", f"{elsewhere}/calc.c")
    build_calc(elsewhere)
    rc, _, err = covkit(["report", f"{elsewhere}/build", "--diff", "HEAD~1", "--fail-under-line", "80"], repo)
    eq(rc, 2, "a change not matched with the build fails the gate")
    eq(len(err), 2, f"two stderr lines: {err}")
    check(err[0].startswith("covkit report: --diff HEAD~1: no file of the report is inside the git checkout ")
          and "--path-map" in err[0], f"says why and what helps: {err[0]}")
    eq(err[1], "covkit report: line coverage cannot be measured: there are no lines (check the paths and filters) "
       "and --fail-under-line 80 asks for some", "the gate's line")
    rc, _, err = covkit(["report", f"{elsewhere}/build", "--path-map", f"{elsewhere}={repo}", "--diff", "HEAD~1",
                         "--fail-under-line", "80"], repo)
    eq((rc, err), (2, ["covkit report: line coverage 75.0% (3/4) is below --fail-under-line 80"]),
       "with --path-map the changed lines are found")


def scenario_tracefiles(tmp):
    """--add-tracefile with lcov and covkit JSON: totals add up."""
    proj = c_project(tmp)
    run_prog(proj)
    covkit_ok(["report", "build", "--lcov", "t1.info", "--json", "t1.json"], proj)
    one = read(f"{proj}/t1.info")
    eq(one, C_PROJECT_LCOV.replace("@P@", proj), "the first tracefile")

    # Alone, each file reproduces the report it came from.
    covkit_ok(["report", "-a", "t1.info", "--lcov", "from_info.info"], proj)
    eq(read(f"{proj}/from_info.info"), one, "lcov from the lcov tracefile")
    covkit_ok(["report", "-a", "t1.json", "--lcov", "from_json.info"], proj)
    eq(read(f"{proj}/from_json.info"), one, "lcov from the JSON file")
    out, _ = covkit_ok(["report", "-a", "t1.json"], proj)
    eq(out, C_PROJECT_TABLE, "table from the JSON file")

    # The same data twice: counts double, line/hit sets stay.
    single = parse_lcov(one)
    for args in (["build", "-a", "t1.info"], ["build", "-a", "t1.json"], ["-a", "t1.info", "-a", "t1.json"],
                 ["--add-tracefile", "t1.info", "--add-tracefile", "t1.info"]):
        covkit_ok(["report"] + args + ["--lcov", "sum.info"], proj)
        text = read(f"{proj}/sum.info")
        eq(lcov_totals(text), lcov_totals(one), f"{args}: LF/LH/BRF/BRH/FNF/FNH")
        both = parse_lcov(text)
        eq(sorted(both), sorted(single), f"{args}: files")
        for sf, rec in single.items():
            eq(both[sf]["DA"], {n: 2 * c for n, c in rec["DA"].items()}, f"{args}: {sf} DA")
            eq(both[sf]["FNDA"], {n: 2 * c for n, c in rec["FNDA"].items()}, f"{args}: {sf} FNDA")
            eq(both[sf]["BRDA"], [(n, b, i, t if t == "-" else str(2 * int(t))) for n, b, i, t in rec["BRDA"]],
               f"{args}: {sf} BRDA")

    # A tracefile and another run add their hits.
    run_prog(proj, "x")  # the data files now hold two runs, one with an argument
    covkit_ok(["report", "build", "--lcov", "t2.info"], proj)
    covkit_ok(["report", "-a", "t1.info", "-a", "t2.info", "--lcov", "t12.info"], proj)
    t12 = parse_lcov(read(f"{proj}/t12.info"))[f"{proj}/src/main.c"]
    eq(t12["DA"][10], 1, "printf(\"args\") ran once")
    eq(t12["DA"][4], 3, "main ran three times")
    eq((t12["LH"], t12["BRH"]), (8, 4), "main.c LH/BRH")

    # Filters apply to tracefiles too.
    covkit_ok(["report", "-a", "t1.info", "-f", "util", "--lcov", "fil.info"], proj)
    eq(list(parse_lcov(read(f"{proj}/fil.info"))), [f"{proj}/src/util.c"], "--filter on a tracefile")

    rc, _, err = covkit(["report", "-a", "missing.info"], proj)
    eq(rc, 1, "exit status of a missing tracefile")
    eq(len(err), 1, f"one stderr line: {err}")
    check(err[0].startswith("covkit report: missing.info: "), f"names the file: {err[0]}")


def scenario_bad_output(tmp):
    """An unwritable output: exit 3, one line naming it, other outputs written."""
    proj = c_project(tmp)
    run_prog(proj)
    # A directory that does not exist (under the work directory, so that it
    # cannot exist even for root).
    bad = f"{tmp}/nonexistent/dir/x.info"
    rc, out, err = covkit(["report", "build", "--lcov", bad, "--json", "ok.json", "--cobertura", "ok.xml"], proj)
    eq(rc, 3, "exit status")
    eq(err, [f"covkit report: {bad}: cannot write: No such file or directory"], "stderr")
    check(os.path.getsize(f"{proj}/ok.json") > 0 and os.path.getsize(f"{proj}/ok.xml") > 0,
          "the other outputs are written")
    check(read(f"{proj}/ok.json").lstrip().startswith("{"), "ok.json is JSON")
    # Standard output on a full disk: the table was not written, and covkit
    # says so (it said nothing and exited 0), with the exit status of an
    # output not written (it was 1, which --help gives to bad usage), before
    # a failing gate's.
    if os.path.exists("/dev/full"):
        for args in (["build"], ["build", "-s", "--lcov", "ok.info"], ["build", "--fail-under-line", "99"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([COVKIT, "report"] + args, cwd=proj, stdout=full, stderr=subprocess.PIPE,
                                   text=True)
            gate = "covkit report: line coverage 65.0% (13/20) is below --fail-under-line 99\n" if "99" in args else ""
            eq((p.returncode, p.stderr), (3, gate + "covkit report: <stdout>: No space left on device\n"),
               f"report {' '.join(args)} > /dev/full")
    eq(glob.glob(f"{proj}/*covkit-tmp*") + glob.glob(f"{tmp}/nonexistent*"), [], "nothing else left behind")
    # A failing gate does not hide the write error.
    rc, _, err = covkit(["report", "build", "--lcov", bad, "--fail-under-line", "99"], proj)
    eq(rc, 3, "exit status with a failing gate too")
    eq(err, [f"covkit report: {bad}: cannot write: No such file or directory",
             "covkit report: line coverage 65.0% (13/20) is below --fail-under-line 99"], "stderr")
    # A file of the kernel's: its temporary file cannot be created in /proc,
    # which says "No such file or directory" for it (what covkit said).
    rc, _, err = covkit(["report", "build", "--lcov", "/proc/version"], proj)
    eq((rc, err), (3, ["covkit report: /proc/version: cannot write: /proc is in the kernel's proc file system, where "
                       "no file can be created"]), "a file in /proc")
    # Below a regular file, and a directory in place of the file.
    write(f"{proj}/afile", "")
    rc, _, err = covkit(["report", "build", "--lcov", "afile/x.info"], proj)
    eq((rc, err), (3, ["covkit report: afile/x.info: cannot write: Not a directory"]), "below a file")
    # A directory after a format option is an input, never written into
    # (docs/command-line.md): the tracefile goes to standard output.
    os.makedirs(f"{proj}/adir")
    rc, out, err = covkit(["report", "build", "--lcov", "adir"], proj)
    check(rc == 0 and "end_of_record" in out and os.listdir(f"{proj}/adir") == [],
          f"--lcov adir: adir is an input, the tracefile on stdout: {rc} {err}")
    # A directory named like a file, given to -o with a format: refused.
    os.makedirs(f"{proj}/adir.info")
    rc, _, err = covkit(["report", "build", "--lcov", "-o", "adir.info"], proj)
    eq((rc, err), (1, ["covkit report: adir.info: is a directory, not a file to write"]), "a directory")
    rc, _, err = covkit(["report", "build", "--html", "afile/html", "--lcov", "ok.info"], proj)
    eq(rc, 3, "exit status of an HTML directory that cannot be made")
    eq(len(err), 1, f"one stderr line: {err}")
    check("afile/html" in err[0], f"names the directory: {err}")
    eq(read(f"{proj}/ok.info"), C_PROJECT_LCOV.replace("@P@", proj), "the lcov file is still written")


def tree_listing(top):
    """Every path under `top` with its size (directories as -1), sorted."""
    found = []
    for d, dirs, files in os.walk(top):
        found += [(os.path.relpath(os.path.join(d, n), top), -1) for n in dirs]
        found += [(os.path.relpath(os.path.join(d, n), top), os.path.getsize(os.path.join(d, n))) for n in files]
    return sorted(found)


def scenario_html_output_dir(tmp):
    """--html with the output directory forgotten (`--html build/`) refuses the
    build tree before writing anything; a reused covkit site loses the pages
    of files no longer reported, keeps a user's own files, and nothing is
    left beside it."""
    proj = c_project(tmp)
    run_prog(proj)
    before = tree_listing(f"{proj}/build")
    rc, _, err = covkit(["report", "--html", "build/", "build/", "--lcov", "ok.info"], proj)
    eq(rc, 3, "exit status")
    eq(err, ["covkit report: build/ is not empty and holds no covkit HTML report (.covkit-html is missing): give "
             "--html a new or empty directory"], "stderr")
    eq(tree_listing(f"{proj}/build"), before, "the build tree is untouched")
    eq(sorted(os.listdir(proj)), ["build", "ok.info", "src"], "nothing written beside it")

    covkit_ok(["report", "build", "--html", "site"], proj)
    pages = sorted(os.listdir(f"{proj}/site"))
    never = [p for p in pages if p.startswith("src_never.c-")]
    eq(len(never), 1, f"a page for never.c: {pages}")
    write(f"{proj}/site/NOTES.txt", "mine\n")
    covkit_ok(["report", "build", "--html", "site", "-e", "never"], proj)
    now = sorted(os.listdir(f"{proj}/site"))
    eq(sorted(set(pages) - set(now)), never, "only never.c's page is gone")
    eq(sorted(set(now) - set(pages)), ["NOTES.txt"], "the user's file stays")
    eq(sorted(os.listdir(proj)), ["build", "ok.info", "site", "src"], "no staging directory left")


def site_title(site):
    """The title every page of `site` carries, or None when the pages disagree
    (a mix of two runs) or the site is incomplete."""
    try:
        with open(f"{site}/.covkit-html") as f:
            listed = f.read().splitlines()[1:]
    except FileNotFoundError:
        return None
    if sorted(listed + [".covkit-html"]) != sorted(os.listdir(site)):
        return None
    titles = set()
    for name in listed:
        if name.endswith(".html"):
            text = read(f"{site}/{name}")
            titles.add(text[text.index("<h1><a href=\"index.html\">") + 25:text.index("</a>", text.index("<h1>"))])
    return titles.pop() if len(titles) == 1 else None


def scenario_html_killed_run(tmp):
    """A run killed at any moment leaves the previous site or the new one,
    complete and unmixed (the site is staged beside and swapped in)."""
    proj = c_project(tmp)
    run_prog(proj)
    covkit_ok(["report", "build", "--html", "site", "--title", "old"], proj)
    eq(site_title(f"{proj}/site"), "old", "the first site, complete and listed in its marker")
    seen = set()
    for attempt in range(40):
        title = f"run{attempt}"
        p = subprocess.Popen([COVKIT, "report", "build", "--html", "site", "--title", title], cwd=proj,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep((attempt % 20) * 0.0007)
        p.kill()
        p.wait()
        got = site_title(f"{proj}/site")
        check(got is not None, f"attempt {attempt}: the site is a mix or incomplete")
        seen.add("new" if got == title else "previous")
        for d in glob.glob(f"{proj}/.site.covkit-*"):  # what a killed run leaves: its hidden staging directory
            seen.add("killed while writing")
            shutil.rmtree(d)
    eq(sorted(os.listdir(proj)), ["build", "site", "src"], "only hidden staging directories were left")
    print(f"  killed runs left: {sorted(seen)}")


def scenario_html_mount_point(tmp):
    """--html naming a mount point (a container's volume), which cannot be
    renamed: the site moves in file by file, the stale page goes, the user's
    file stays, the staging directory inside is removed. Skipped where this
    process cannot mount a tmpfs."""
    proj = c_project(tmp)
    run_prog(proj)
    site = f"{proj}/site"
    os.makedirs(site)
    if subprocess.run(["mount", "-t", "tmpfs", "covkit-test", site], capture_output=True).returncode != 0:
        raise Skip("cannot mount a tmpfs (needs root and CAP_SYS_ADMIN)")
    try:
        covkit_ok(["report", "build", "--html", "site", "--title", "first"], proj)
        eq(site_title(site), "first", "the first site")
        pages = sorted(os.listdir(site))
        write(f"{site}/NOTES.txt", "mine\n")
        covkit_ok(["report", "build", "--html", "site", "--title", "second", "-e", "never"], proj)
        eq(sorted(set(pages) - set(os.listdir(site))), [p for p in pages if p.startswith("src_never.c-")],
           "only never.c's page is gone")
        eq(read(f"{site}/NOTES.txt"), "mine\n", "the user's file stays")
        os.remove(f"{site}/NOTES.txt")
        eq(site_title(site), "second", "the second site, complete and listed in its marker")
        eq(sorted(os.listdir(proj)), ["build", "site", "src"], "nothing left beside it")
    finally:
        subprocess.run(["umount", site], capture_output=True)


CMAKE_LISTS = """cmake_minimum_required(VERSION 3.16)
project(probe C CXX)
add_executable(app main.c)
"""


def scenario_cmake_probes(tmp):
    """CMake compiles its compiler-identification sources with the project's
    --coverage flags; they are left out unless --keep-cmake-probes."""
    need("gcc-12")
    need("g++-12")
    need("cmake")
    src = f"{tmp}/p/src"
    write(f"{src}/CMakeLists.txt", CMAKE_LISTS)
    write(f"{src}/main.c", "int main(void) { return 0; }\n")
    env = {"CC": "gcc-12", "CXX": "g++-12", "CFLAGS": "--coverage", "CXXFLAGS": "--coverage"}
    run(["cmake", "-S", "src", "-B", "build"], f"{tmp}/p", env=env, timeout=120)
    run(["cmake", "--build", "build"], f"{tmp}/p", env=env, timeout=120)
    run([f"{tmp}/p/build/app"], f"{tmp}/p")
    check(glob.glob(f"{tmp}/p/build/CMakeFiles/*/CompilerIdC/*.gcno"), "CMake left a probe's notes file")
    out, err = covkit_ok(["report", "build"], f"{tmp}/p")
    eq(sorted(table_rows(out)), ["TOTAL", "src/main.c"], "files by default")
    out, err = covkit_ok(["report", "build", "--keep-cmake-probes"], f"{tmp}/p")
    rows = sorted(table_rows(out))
    check(any(r.endswith("/CompilerIdC/CMakeCCompilerId.c") for r in rows), f"the C probe is kept: {rows}")
    check(any(r.endswith("/CompilerIdCXX/CMakeCXXCompilerId.cpp") for r in rows), f"the C++ probe is kept: {rows}")


def scenario_corrupt_data(tmp):
    """A truncated .gcda: a warning naming it, and the report still completes."""
    proj = c_project(tmp)
    run_prog(proj)
    with open(f"{proj}/build/util.gcda", "r+b") as f:
        f.truncate(30)
    rc, out, err = covkit(["report", "build"], proj)
    eq(rc, 0, "exit status")
    check(len(err) >= 1, "a warning")
    check(all(line.startswith("covkit report: ") for line in err), f"prefixed: {err}")
    check(any(f"{proj}/build/util.gcda" in line for line in err), f"the warning names util.gcda: {err}")
    rows = table_rows(out)
    eq(rows["src/main.c"], ["8", "7", "87.5%", "1", "1", "100.0%", "4", "3", "75.0%"], "main.c is intact")
    eq(sorted(rows), ["TOTAL", "src/main.c", "src/never.c", "src/util.c"], "every file is reported")
    # Notes rebuilt after the run: the old data does not fit.
    write(f"{proj}/src/never.c", NEVER_C.replace("return 1;", "return 2;"))
    run_prog(proj)
    run(["gcc-12", "--coverage", "-O0", "-c", "src/main.c", "-o", "build/main.o"], proj)
    rc, out, err = covkit(["report", "build"], proj)
    eq(rc, 0, "exit status with a stale data file")
    eq([e for e in err if "main.gcda" in e], [f"covkit report: {proj}/build/main.gcda:stamp mismatch with notes file: "
                                              "the object was compiled again after this data file was written; its "
                                              "counts are left out (run the tests again)"],
       "stamp mismatch warning")
    eq(table_rows(out)["src/main.c"], ["8", "0", "0.0%", "1", "0", "0.0%", "4", "0", "0.0%"], "main.c without data")
    # An empty data file.
    open(f"{proj}/build/main.gcda", "w").close()
    rc, out, err = covkit(["report", "build"], proj)
    eq(rc, 0, "exit status with an empty data file")
    check(any(f"{proj}/build/main.gcda" in line for line in err), f"the warning names main.gcda: {err}")


TRUNCATED_C = """#include <stdio.h>
static int sq(int x) { return x * x; }
int tri(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i % 3) s += sq(i); else s -= i; } return s; }
int rarely(int n) { if (n > 1000) return 1; return 0; }
int main(int argc, char **argv) {
  int t = 0;
  for (int k = 0; k < 20 + argc; k++) t += tri(k);
  t += rarely(t);
  printf("%d\\n", t);
  return 0;
}
"""


def lcov_counts(text):
    """SF -> (DA, FNDA, BRDA) of an lcov tracefile, to compare two tools' counts."""
    return {sf: (r["DA"], r["FNDA"], sorted(r["BRDA"])) for sf, r in parse_lcov(text).items()}


def scenario_truncated_data(tmp):
    """A .gcda that ends early (a run killed while writing it, a copy cut
    short), the build's only object: reported with the counts it holds, as
    lcov (through gcov-12, which keeps what it read) reports them, with a
    warning naming the file and the offset; exit 0. It used to be left out:
    "nothing to report", exit 1."""
    need("gcc-12")
    need("lcov")
    proj = os.path.join(tmp, "trunc")
    write(f"{proj}/t.c", TRUNCATED_C)
    run(["gcc-12", "--coverage", "-O0", "t.c", "-o", "prog"], proj)
    run([f"{proj}/prog"], proj)
    data = f"{proj}/prog-t.gcda"
    whole = open(data, "rb").read()
    full_lines = sum(parse_lcov(read_lcov_of(proj))[f"{proj}/t.c"]["DA"].values())
    lower = 0
    # Where records start (gcc-12: a 16-byte header, lengths in bytes): a
    # cut there leaves a shorter file of whole records, which gcov reads
    # without a word; only the missing end word shows it.
    starts, at = [], 16
    while at + 8 <= len(whole) and int.from_bytes(whole[at:at + 4], "little"):
        starts.append(at)
        at += 8 + int.from_bytes(whole[at + 4:at + 8], "little")
    check(len(starts) > 6 and at == len(whole) - 4, f"the records of {data}: {starts}, end word at {at}")
    # Inside the first function's record, its counters, mid-counter, the
    # middle of the file, mid-counter at the end, inside the end word; and
    # between records: in the middle, and just before the end word.
    for cut in sorted({28, 44, 50, len(whole) // 2, len(whole) // 2 + 2, len(whole) - 8, len(whole) - 2,
                       starts[len(starts) // 2], len(whole) - 4}):
        with open(data, "wb") as f:
            f.write(whole[:cut])
        rc, out, err = covkit(["report", ".", "--lcov", "c.info"], proj)
        eq(rc, 0, f"cut at {cut}: exit status (the counts there are reported)")
        # A cut inside a function record also reads as gcov's "profile
        # mismatch" for it (the checksums missing read as 0).
        said = [e for e in err if not e.startswith(f"covkit report: {data}:profile mismatch for '")]
        check(len(said) == 2 and said[0].startswith(f"covkit report: {data}:corrupted at byte ")
              and said[0].endswith("; the counts read up to there are reported, and may be lower than the run's"),
              f"cut at {cut}: one warning naming the file, the offset, and that the counts are partial: {err}")
        eq(said[-1], "covkit report: 1 of 1 objects has damaged or unreadable inputs; its counts are missing or "
           "partial", f"cut at {cut}: the summary line")
        ours = lcov_counts(read(f"{proj}/c.info"))
        run(["lcov", "-q", "--rc", "lcov_branch_coverage=1", "--gcov-tool", "gcov-12", "--capture", "-d", ".",
             "-o", "l.info"], proj)
        eq(ours, lcov_counts(read(f"{proj}/l.info")), f"cut at {cut}: the counts are lcov's")
        lower += sum(ours[f"{proj}/t.c"][0].values()) < full_lines
    check(lower >= 3, f"the cuts lowered the counts ({lower} of them did): the test compares partial counts")
    # -q: no warnings, as for every other one; the report is the same.
    rc, out, err = covkit(["report", ".", "-q", "--lcov", "q.info"], proj)
    eq((rc, err), (0, []), "-q")
    eq(read(f"{proj}/q.info"), read(f"{proj}/c.info"), "-q writes the same report")


def read_lcov_of(proj):
    """The lcov tracefile of covkit's report of `proj` as it is."""
    covkit_ok(["report", ".", "--lcov", "whole.info"], proj)
    return read(f"{proj}/whole.info")


FORK_EXEC_C = """#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static void reset_signal(void) { signal(SIGPIPE, SIG_DFL); }

static int spawn(int i) {
  int pid;
  if ((pid = fork()) == 0) {
    reset_signal();
    execl("/bin/true", "true", (char *)0);
    _exit(127);
  }
  if (pid == -1)
    return -1;
  waitpid(pid, 0, 0);
  return i;
}

int main(void) {
  int s = 0;
  for (int i = 0; i < 5; i++)
    s += spawn(i);
  printf("%d\\n", s);
  return 0;
}
"""


def scenario_data_of_another_compiler(tmp):
    """A .gcda left by a gcc-11 build beside the notes of a gcc-12 rebuild: the
    versions named as compilers with what to do, the stamp line saying the
    counts are left out; notes that are no notes file at all say only that
    (no stamp or version line after it)."""
    need("gcc-11")
    proj = c_project(tmp)
    run(["gcc-11", "--coverage", "-O0", "-c", "src/util.c", "-o", "build/util.o"], proj)
    run(["gcc-11", "--coverage", "-O0", "-c", "src/main.c", "-o", "build/main.o"], proj)
    run(["gcc-11", "--coverage", "-o", "build/prog", "build/main.o", "build/util.o"], proj)
    run_prog(proj)
    run(["gcc-12", "--coverage", "-O0", "-c", "src/util.c", "-o", "build/util.o"], proj)
    rc, out, err = covkit(["report", "build"], proj)
    eq(rc, 0, "exit status (main.o's counts are good)")
    data = f"{proj}/build/util.gcda"
    eq([e for e in err if "util.gcda" in e],
       [f"covkit report: {data}:version 'B13*', prefer version 'B22*': the data file was written by GCC 11.3, its "
        "notes file by GCC 12.2 (left from a build with another compiler? delete the .gcda files and run the tests "
        "again)",
        f"covkit report: {data}:stamp mismatch with notes file: the object was compiled again after this data file "
        "was written; its counts are left out (run the tests again)"], "the stale data file's lines")
    eq(table_rows(out)["src/util.c"][1], "0", "util.c reported without the stale counts")
    write(f"{proj}/build/util.gcno", "not a notes file\n")
    rc, out, err = covkit(["report", "build"], proj)
    eq([e for e in err if "util.g" in e], [f"covkit report: {proj}/build/util.gcno:not a gcov notes file"],
       "an unreadable notes file: no stamp or version line about its data file")


def scenario_fork_exec_negative(tmp):
    """One thread, fork() then execl() in the child (as gawk's `cmd | getline`): libgcov clears the
    child's counters at the fork and writes them at the exec, so spawn's counts do not add up and
    one is solved below zero. The warning names the data file and the function and does not blame
    racing threads alone (-fprofile-update=atomic changes nothing here); the count reads as 0."""
    need("gcc-12")
    proj = os.path.join(tmp, "forkexec")
    write(f"{proj}/f.c", FORK_EXEC_C)
    for update in ("single", "atomic"):
        for f in os.listdir(proj):
            if f.endswith(".gcda"):
                os.unlink(os.path.join(proj, f))
        run(["gcc-12", "--coverage", f"-fprofile-update={update}", "-O2", "-o", "prog", "f.c"], proj)
        eq(run([f"{proj}/prog"], proj).stdout, "10\n", "the program's output")
        rc, out, err = covkit(["report", ".", "--lcov", "out.info"], proj)
        eq(rc, 0, f"exit status ({update})")
        eq(len(err), 1, f"one warning ({update}): {err}")
        check(err[0].startswith(f"covkit report: {proj}/prog-f.gcda: function spawn (line 8): "
                                "suspicious counter value -5 (negative: "), f"names file, function, count: {err}")
        check("fork()ed child" in err[0] and "-fprofile-update=atomic" in err[0],
              f"both causes named ({update}): {err}")
        da = parse_lcov(read(f"{proj}/out.info"))[f"{proj}/f.c"]["DA"]
        check(all(c >= 0 for c in da.values()), f"no negative line count ({update}): {da}")
        eq(da[21], 1, f"main ran once ({update})")


def scenario_no_data(tmp):
    """No coverage data at all: exit 1 with a one-line error."""
    os.makedirs(f"{tmp}/empty/sub")
    write(f"{tmp}/empty/sub/readme.txt", "nothing here\n")
    rc, out, err = covkit(["report", "empty"], tmp)
    eq(rc, 1, "exit status")
    eq(out, "", "stdout")
    eq(len(err), 1, f"one stderr line: {err}")
    check(err[0].startswith("covkit report: "), f"prefixed: {err}")


def scenario_bad_regex(tmp):
    """Invalid regular expressions and --path-map: exit 1 before any work."""
    for args, named in ((["-f", "("], "--filter '('"), (["-e", "[a-"], "--exclude '[a-'"),
                        (["--filter", "ok", "--exclude", "*bad"], "--exclude '*bad'")):
        rc, out, err = covkit(["report", "."] + args, tmp)
        eq(rc, 1, f"exit status of {args}")
        eq(len(err), 1, f"one stderr line for {args}: {err}")
        check(err[0].startswith(f"covkit report: bad {named} regular expression: "), f"message: {err}")
    rc, _, err = covkit(["report", ".", "--path-map", "no-equals-sign"], tmp)
    eq((rc, err), (1, ["covkit report: --path-map: no-equals-sign: expected OLD=NEW (see covkit report --help)"]),
       "bad --path-map")


def scenario_usage_errors(tmp):
    """`covkit report --help`: "1 on bad usage" -- for every kind of bad usage."""
    rc, out, _ = covkit(["report", "--help"], tmp)
    eq(rc, 0, "--help")
    check("Exit status: 0 on success; 1 on bad usage" in out, "the help states the exit status")
    wrong = []
    for args in (["--no-such-option"], ["--color", "purple"], ["--fail-under-line", "101"],
                 ["--fail-under-branch", "-1"], ["--jobs", "many"], ["--lcov"]):
        rc, _, err = covkit(["report", "."] + args, tmp)
        if rc != 1:
            wrong.append(f"{' '.join(args)}: exit {rc} ({' / '.join(err)})")
    check(not wrong, "bad usage must exit 1:\n  " + "\n  ".join(wrong))


def scenario_output_to_fifo(tmp):
    """Outputs that are not regular files (a FIFO here; /dev/stdout in CI
    scripts) are written to, not replaced."""
    proj = c_project(tmp)
    run_prog(proj)
    fifo = f"{proj}/out.fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
    try:
        rc, _, err = covkit(["report", "build", "--lcov", fifo], proj)
        eq((rc, err), (0, []), "exit status and stderr")
        check(stat.S_ISFIFO(os.stat(fifo).st_mode), "out.fifo is still a FIFO (covkit renamed a file over it)")
        got, _ = reader.communicate(timeout=10)
        eq(got.decode(), C_PROJECT_LCOV.replace("@P@", proj), "what the reader got")
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


def scenario_merge(tmp):
    """`covkit merge` of two lcov tracefiles equals --add-tracefile of both."""
    proj = c_project(tmp)
    run_prog(proj)
    covkit_ok(["report", "build", "--lcov", "a.info"], proj)
    run_prog(proj, "x")
    covkit_ok(["report", "build", "--lcov", "b.info"], proj)
    out, err = covkit_ok(["merge", "-o", "merged.info", "a.info", "b.info"], proj)
    eq(err, [], "merge stderr")
    covkit_ok(["report", "-a", "a.info", "-a", "b.info", "--lcov", "added.info"], proj)
    merged = read(f"{proj}/merged.info")
    eq(merged, read(f"{proj}/added.info"), "merge vs --add-tracefile")
    eq(parse_lcov(merged)[f"{proj}/src/main.c"]["DA"][4], 3, "main: 1 + 2 runs")


def scenario_merge_test_names(tmp):
    """covkit merge keeps the test name (TN) its inputs share, as lcov -a
    does: the merged file equals lcov's; inputs of two test names are added
    up under an empty TN, with a warning; -t names it in any case."""
    need("lcov")
    proj = c_project(tmp)
    run_prog(proj)
    for name, tn in (("a", "unit"), ("b", "unit"), ("c", "smoke")):
        run(["lcov", "-q", "--capture", "-d", "build", "-t", tn, "-o", f"{name}.info"], proj)
    covkit_ok(["merge", "-o", "ab.info", "a.info", "b.info"], proj)
    run(["lcov", "-q", "-a", "a.info", "-a", "b.info", "-o", "lcov_ab.info"], proj)
    eq(read(f"{proj}/ab.info").splitlines()[0], "TN:unit", "the shared test name")
    compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report", "lcov_compare.py")
    p = run([sys.executable, compare, "ab.info", "lcov_ab.info", "--strict"], proj, check_rc=False)
    eq((p.returncode, p.stdout), (0, ""), "the merge adds up as lcov -a's")
    rc, _, err = covkit(["merge", "-o", "ac.info", "a.info", "c.info"], proj)
    eq(rc, 0, "status with two test names")
    eq(err, ["covkit merge: warning: the inputs have 2 test names (unit, ...); their counts are added up under "
             "one empty TN (name it with --test-name)"], "warning with two test names")
    eq(read(f"{proj}/ac.info").splitlines()[0], "TN:", "two test names: an empty one")
    covkit_ok(["merge", "--test-name", "all", "-o", "named.info", "a.info", "c.info"], proj)
    eq(read(f"{proj}/named.info").splitlines()[0], "TN:all", "-t names it")
    # -t, the spelling of earlier versions, still works, with a warning (issue 35, item 5).
    rc, _, err = covkit(["merge", "-t", "all", "-o", "old.info", "a.info", "c.info"], proj)
    eq((rc, err), (0, ["covkit merge: warning: -t is deprecated (a letter means one thing in every command): "
                       "use --test-name"]), "deprecated -t")
    eq(read(f"{proj}/old.info").splitlines()[0], "TN:all", "deprecated -t names it")


def scenario_source_date_epoch(tmp):
    """SOURCE_DATE_EPOCH (reproducible builds) is the time Cobertura and the
    HTML pages say they were made, as with gcovr and genhtml: two reports a
    second apart are the same bytes. A value that is no number of seconds is
    a one-line error naming it, and nothing is written (exit 3)."""
    proj = c_project(tmp)
    run_prog(proj)
    os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
    try:
        outs = []
        for i in range(2):
            covkit_ok(["report", "build", "--cobertura", f"c{i}.xml", "--html", f"site{i}"], proj)
            pages = {}
            for d, _, fs in os.walk(f"{proj}/site{i}"):
                for f in fs:
                    pages[os.path.relpath(os.path.join(d, f), f"{proj}/site{i}")] = read(os.path.join(d, f))
            outs.append((read(f"{proj}/c{i}.xml"), pages))
            time.sleep(1.1)
        eq('timestamp="1700000000"' in outs[0][0], True, "Cobertura's timestamp")
        eq(outs[0] == outs[1], True, "two reports a second apart differ")
        eq(any("2023-11-14" in t for t in outs[0][1].values()), True, "the pages' date is SOURCE_DATE_EPOCH's")
        os.environ["SOURCE_DATE_EPOCH"] = "yesterday"
        rc, out, err = covkit(["report", "build", "--cobertura", "bad.xml"], proj)
        eq((rc, err), (3, ['covkit report: SOURCE_DATE_EPOCH="yesterday" is not a number of seconds since '
                           '1970-01-01 (unset it for the current time)']), "a malformed SOURCE_DATE_EPOCH")
        eq(os.path.exists(f"{proj}/bad.xml"), False, "written with a malformed SOURCE_DATE_EPOCH")
    finally:
        del os.environ["SOURCE_DATE_EPOCH"]


def scenario_stdout_outputs(tmp):
    """'-' is standard output, as `lcov -a ... -o -` and gcovr's `--xml -`
    take it: the text a file would get, and no file named '-'. Two outputs
    there (or one and the table) are a usage error; a site or a .gcda tree
    cannot go there."""
    need("lcov")
    proj = c_project(tmp)
    run_prog(proj)
    for opt, name in (("--lcov", "f.info"), ("--cobertura", "f.xml"), ("--json", "f.json"),
                      ("--sonarqube", "s.xml"), ("--coveralls", "c.json"), ("--markdown", "f.md")):
        covkit_ok(["report", "build", opt, name], proj)
        out, err = covkit_ok(["report", "build", opt, "-"], proj)
        want = read(f"{proj}/{name}")
        if opt == "--cobertura":  # its timestamp is the time of the run
            out, want = (re.sub(r'timestamp="[0-9]+"', "", t) for t in (out, want))
        eq((out, err), (want, []), f"report {opt} -")
    eq(os.path.exists(f"{proj}/-"), False, "a file named '-'")
    rc, out, err = covkit(["report", "build", "--lcov", "-", "--json", "-", "--markdown", "-"], proj)
    eq((rc, out, err), (1, "", ["covkit report: --lcov, --json and --markdown all name standard output ('-'); "
                                 "only one output can go there"]), "three outputs on stdout")
    rc, out, err = covkit(["report", "build", "--lcov", "-", "-s"], proj)
    eq((rc, out, err), (1, "", ["covkit report: --lcov - and --print-summary would both write to standard output"]),
       "an output and the table on stdout")
    rc, out, err = covkit(["report", "build", "--html", "-"], proj)
    eq((rc, out), (1, ""), "--html -")
    check(len(err) == 1 and "standard output ('-') cannot hold" in err[0], f"--html -: {err}")
    # merge -o - writes the sum that lcov -a ... -o - writes (same numbers).
    covkit_ok(["report", "build", "--lcov", "a.info"], proj)
    run_prog(proj, "x")
    covkit_ok(["report", "build", "--lcov", "b.info"], proj)
    out, err = covkit_ok(["merge", "-o", "-", "a.info", "b.info"], proj)
    eq(err, [], "merge -o - stderr")
    lcov_out = run(["lcov", "-q", "-a", "a.info", "-a", "b.info", "--rc", "lcov_branch_coverage=1", "-o", "-"],
                   proj).stdout
    eq(lcov_totals(out), lcov_totals(lcov_out), "merge -o - against lcov -a -o -: LF/LH/BRF/BRH/FNF/FNH")
    eq({sf: (r["DA"], r["FNDA"]) for sf, r in parse_lcov(out).items()},
       {sf: (r["DA"], r["FNDA"]) for sf, r in parse_lcov(lcov_out).items()}, "merge -o - against lcov: DA, FNDA")
    rc, out, err = covkit(["merge", "-o", "-", "build"], proj)
    eq((rc, out, err), (1, "", ["covkit merge: .gcda trees merge into a tree, which standard output (-o -) "
                                 "cannot hold"]), "merge -o - of a tree")
    eq(os.path.exists(f"{proj}/-"), False, "a file named '-' after merge")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([COVKIT, "report", "build", "--lcov", "-"], cwd=proj, stdout=full,
                               stderr=subprocess.PIPE, text=True)
        eq((p.returncode, p.stderr), (3, "covkit report: <stdout>: cannot write: No space left on device\n"),
           "report --lcov - > /dev/full: said once")


def scenario_peer_options(tmp):
    """gcovr's and lcov's spellings, and near misses, get a hint; N% is a
    percentage for the gates; bare `covkit` lists the commands."""
    proj = c_project(tmp)
    run_prog(proj)
    for args, want in (
            (["--html-details", "h"], "covkit report: unknown option --html-details: that is gcovr's; here use --html DIR"),
            (["--txt"], "covkit report: unknown option --txt: that is gcovr's; here use -s/--print-summary"),
            (["--capture"], "covkit report: unknown option --capture: that is lcov's; here use covkit report --lcov"),
            (["--fail-under-lines", "80"], "covkit report: unknown option --fail-under-lines: did you mean "
                                           "--fail-under-line?")):
        rc, out, err = covkit(["report", "build"] + args, proj)
        eq(rc, 1, f"exit status of {args[0]}")
        check(len(err) == 1 and err[0].startswith(want), f"{args[0]}: want a line starting {want!r}, got {err}")
    rc, _, err = covkit(["report", "build", "--fail-under-line=80%"], proj)
    eq((rc, err), (2, ["covkit report: line coverage 65.0% (13/20) is below --fail-under-line 80"]), "80% is 80")
    rc, out, err = covkit([], proj)
    eq(rc, 1, "bare covkit")
    for command in ("gcov", "report", "merge", "trace"):
        check(f"\n  {command} " in out, f"bare covkit lists {command}")
    rc, out, err = covkit(["reprot"], proj)
    eq((rc, err), (1, ["covkit: unknown command 'reprot'; did you mean 'report'? (see covkit --help)"]), "a typo")
    rc, out, err = covkit(["--hlep"], proj)
    eq((rc, err), (1, ["covkit: unknown option '--hlep'; did you mean '--help'? (see covkit --help)"]),
       "a mistyped option")
    rc, out, _ = covkit(["--help"], proj)
    eq(rc, 0, "covkit --help")


def scenario_nothing_to_report(tmp):
    """No coverage data where covkit looked: the message names the place and
    where to look instead (a directory beside it that holds .gcno files), or
    why a build directory below it has none."""
    proj = c_project(tmp)
    # build/ holds the .gcno files and no file of a build system: still found
    # (it was looked for by CMakeCache.txt and the like only).
    rc, out, err = covkit(["report", "src"], proj)
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src (the nearest "
                       f".gcno files are under {proj}/build: covkit report {proj}/build)"]),
       "a build directory without build-system files")
    # A CMake tree beside it that holds no .gcno is no suggestion.
    write(f"{proj}/cmake-build/CMakeCache.txt", "# configured, never built with --coverage\n")
    rc, out, err = covkit(["report", "src"], proj)
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src (the nearest "
                       f".gcno files are under {proj}/build: covkit report {proj}/build)"]),
       "a CMake tree without .gcno files beside")
    shutil.rmtree(f"{proj}/cmake-build")
    os.rename(f"{proj}/build", f"{proj}/out")
    write(f"{proj}/out/CMakeCache.txt", "# a CMake build directory\n")
    rc, out, err = covkit(["report", "src"], proj)
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src (the nearest "
                       f".gcno files are under {proj}/out: covkit report {proj}/out)"]), "a build directory beside")
    rc, out, err = covkit(["report", "."], f"{proj}/src")
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src (the nearest "
                       f".gcno files are under {proj}/out: covkit report {proj}/out)"]), "from inside the sources")
    # src/lib: build directories two levels up are near too.
    os.makedirs(f"{proj}/src/lib")
    rc, out, err = covkit(["report", "src/lib"], proj)
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src/lib (the "
                       f"nearest .gcno files are under {proj}/out: covkit report {proj}/out)"]),
       "a build directory beside the parent")
    os.rmdir(f"{proj}/src/lib")
    for f in glob.glob(f"{proj}/out/*.gc*"):
        os.unlink(f)
    rc, out, err = covkit(["report"], proj)
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj} ({proj}/out looks "
                       "like a build directory but holds no .gcno files: was it built with --coverage?)"]),
       "a build directory below without data")
    rc, out, err = covkit(["report", "."], f"{proj}/src")
    eq((rc, err), (1, [f"covkit report: nothing to report: no .gcno or .gcda files under {proj}/src (give the build "
                       "directory, where the .gcno files are)"]), "from inside the sources, out/ emptied")
    # .gcda files without their .gcno (-fprofile-arcs alone): found, and said
    # so (it said "no .gcno or .gcda files" just after skipping them).
    arcs = f"{tmp}/arcs-only"
    os.makedirs(arcs)
    write(f"{arcs}/a.c", "int main(void) { return 0; }\n")
    run(["gcc-12", "-fprofile-arcs", "a.c", "-o", "prog"], arcs)
    run(["./prog"], arcs)
    rc, out, err = covkit(["report", "."], arcs)
    eq((rc, err), (1, [f"covkit report: {arcs}/prog-a.gcda: no matching .gcno file found; skipped",
                       f"covkit report: nothing to report: 1 .gcda file under {arcs} but no .gcno to read it with "
                       "(built with -fprofile-arcs alone, without -ftest-coverage or --coverage? or the .gcno files "
                       "are elsewhere: --object-directory DIR)"]), "data without notes")


def scenario_damaged_objects(tmp):
    """A .gcda that exists but cannot be read (here a FIFO) is said and counted,
    not taken for an object that never ran; nothing readable is exit 1, and a
    gate never passes on nothing."""
    proj = c_project(tmp)
    run_prog(proj)
    data = f"{proj}/build/util.gcda"
    os.unlink(data)
    os.mkfifo(data)
    rc, out, err = covkit(["report", "build", "--fail-under-line", "10"], proj)
    eq(rc, 0, "exit status with one damaged object")
    eq(err, [f"covkit report: {data}: cannot read the data file (not a regular file); its object is reported as "
             "never run",
             "covkit report: 1 of 3 objects has damaged or unreadable inputs; its counts are missing or partial"],
       "warnings")
    eq(table_rows(out)["src/util.c"][1], "0", "util.c counts as not run")
    # Every notes file damaged beyond its header: nothing could be read.
    for notes in glob.glob(f"{proj}/build/*.gcno"):
        with open(notes, "r+b") as f:
            f.truncate(40)
    rc, out, err = covkit(["report", "build", "--fail-under-line", "0"], proj)
    eq(rc, 1, "exit status when every object is damaged")
    check(err[-1] == "covkit report: nothing to report: none of the 3 objects found could be read (see above)",
          f"the last line says why: {err}")


def scenario_clang_notes(tmp):
    """clang's --coverage files (GCC 4.8's format, '408*') are read as
    llvm-cov gcov reads them. clang records sources as named on its command
    line and no working directory: a source compiled from the project root
    into build/ is found by looking up from the notes' directory, as lcov
    does. A damaged data file is named, and counted as damaged."""
    need("clang")
    d = os.path.join(tmp, "c")
    write(f"{d}/c.c", "int main(int argc, char **argv) {\n  (void)argv;\n  if (argc > 1)\n    return 1;\n  return 0;\n}\n")
    os.makedirs(f"{d}/build", exist_ok=True)
    run(["clang", "--coverage", "-c", "c.c", "-o", "build/c.o"], d)
    run(["clang", "--coverage", "build/c.o", "-o", "build/c"], d)
    run([f"{d}/build/c"], d)
    rc, out, err = covkit(["gcov", "-o", "build", "c.c"], d)
    eq((rc, err), (0, []), "covkit gcov on clang's files")
    eq(out.splitlines()[:2], ["File 'c.c'", "Lines executed:83.33% of 6"], "llvm-cov gcov's summary")
    check(os.path.exists(f"{d}/c.c.gcov"), "c.c.gcov written")
    # -j: gcov's JSON of the same counts; llvm-cov (which has no JSON) -b -c is the oracle.
    need("llvm-cov")
    run(["llvm-cov", "gcov", "-b", "-c", "-o", "build", "c.c"], d)
    oracle_lines, oracle_branches = {}, {}
    for text in open(f"{d}/c.c.gcov").read().splitlines():
        m = re.match(r"^ +(\d+|#####):\s*(\d+):", text)
        if m:
            ln = int(m.group(2))
            oracle_lines[ln] = 0 if m.group(1) == "#####" else int(m.group(1))
        m = re.match(r"^branch +\d+ taken (\d+)$", text)
        if m:
            oracle_branches.setdefault(ln, []).append(int(m.group(1)))
    covkit_ok(["gcov", "-j", "-b", "-o", "build", "c.c"], d)
    doc = json.loads(gzip.open(f"{d}/c.gcov.json.gz").read())
    lines = doc["files"][0]["lines"]
    eq({l["line_number"]: l["count"] for l in lines}, oracle_lines, "-j line counts are llvm-cov's")
    eq({l["line_number"]: [b["count"] for b in l["branches"]] for l in lines if l["branches"]}, oracle_branches,
       "-j branch counts are llvm-cov's")
    out, err = covkit_ok(["report", "-q", "--lcov", f"{tmp}/c.info", "."], d)
    info = open(f"{tmp}/c.info").read().splitlines()
    eq([l for l in info if l.startswith("SF:")], [f"SF:{d}/c.c"], "the source found above build/")
    eq([l for l in info if l.startswith("DA:")], ["DA:1,1", "DA:2,1", "DA:3,1", "DA:4,0", "DA:5,1", "DA:6,1"], "line counts")
    with open(f"{d}/build/c.gcda", "r+b") as f:
        f.truncate(30)
    rc, out, err = covkit(["report", "."], d)
    check(any(l.startswith(f"covkit report: {d}/build/c.gcda:") for l in err), f"the damaged file is named: {err}")


# --- kernel-style trees ----------------------------------------------------------


def kernel_serialized(data):
    """A .gcda as the Linux kernel's gcov code writes it into debugfs (its own
    serializer, kernel/gcov/gcc_4_7.c): no object summary, checksum 0."""
    import struct
    magic, version, stamp, _checksum, tag = struct.unpack_from("<5I", data)
    check(tag == 0xA1000000, "a libgcov .gcda starts with its summary")
    return struct.pack("<4I", magic, version, stamp, 0) + data[16 + 16:]


def kernel_trees(tmp, proj):
    """Runs the program with GCOV_PREFIX=tmp/abs (no strip): tmp/abs then
    mirrors the build tree's absolute path, as /sys/kernel/debug/gcov does,
    and gets the kernel's .gcno links beside each .gcda: absolute (as the
    kernel makes them) in abs/, relative in rel/, absolute again in kernel/
    whose .gcda files are serialized as the kernel does. Returns the three
    roots and the mirrored build directory below each."""
    run_prog(proj, env={"GCOV_PREFIX": f"{tmp}/abs"})
    below = f"{proj}/build".lstrip("/")
    data_dir = f"{tmp}/abs/{below}"
    eq(sorted(os.listdir(data_dir)), ["main.gcda", "util.gcda"], "data files of the prefix run")
    shutil.copytree(f"{tmp}/abs", f"{tmp}/kernel")
    for root in ("abs", "kernel"):
        for name in ("main", "util"):
            os.symlink(f"{proj}/build/{name}.gcno", f"{tmp}/{root}/{below}/{name}.gcno")
    for name in ("main", "util"):
        path = f"{tmp}/kernel/{below}/{name}.gcda"
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(kernel_serialized(data))
    shutil.copytree(f"{tmp}/abs", f"{tmp}/rel", symlinks=True)
    for name in ("main", "util"):
        link = f"{tmp}/rel/{below}/{name}.gcno"
        os.remove(link)
        os.symlink(os.path.relpath(f"{proj}/build/{name}.gcno", os.path.dirname(link)), link)
    return {root: f"{tmp}/{root}/{below}" for root in ("abs", "rel", "kernel")}


def gcov_outputs(tool, args, cwd):
    """Runs gcov-12 or covkit gcov; returns status, stdout, stderr and every
    file it wrote (JSON decompressed), then removes those files."""
    before = set(os.listdir(cwd))
    p = run([tool] + args, cwd, check_rc=False)
    files = {}
    for name in sorted(set(os.listdir(cwd)) - before):
        path = os.path.join(cwd, name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rb") as f:
            files[name] = f.read()
        os.remove(path)
    return p.returncode, p.stdout, p.stderr, files


def scenario_kernel_tree(tmp):
    """A tree laid out like the kernel's /sys/kernel/debug/gcov (.gcda files
    under the build tree's absolute path, .gcno links into the build tree):
    with absolute links, relative links and the kernel's own serialization,
    `covkit report` reports what the build tree itself reports, from any
    working directory (sources resolve from the notes' compile directory),
    `covkit gcov` writes exactly what gcov 12 writes, and a link whose build
    tree moved away is named as such (without gcov's stamp-mismatch noise)."""
    need("gcov-12")
    proj = c_project(tmp)
    run_prog(proj)
    covkit_ok(["report", "build/main.gcda", "build/util.gcda", "--lcov", "expected.info"], proj)
    expected = read(f"{proj}/expected.info")
    check("SF:" + f"{proj}/src/util.c" in expected, "the expected report names util.c absolutely")
    for f in glob.glob(f"{proj}/build/*.gcda"):
        os.remove(f)
    trees = kernel_trees(tmp, proj)

    for root, data_dir in trees.items():
        for cwd in (proj, tmp, data_dir):
            out, err = covkit_ok(["report", f"{tmp}/{root}", "--lcov", f"{tmp}/{root}.info"], cwd)
            eq(err, [], f"{root} from {cwd}: stderr")
            eq(read(f"{tmp}/{root}.info"), expected, f"{root} from {cwd}: the report of the build tree")

        invocations = [
            (proj, ["-b", "-c", "-o", data_dir, "src/main.c"]),        # the kernel's documented way
            (proj, ["-b", "-c", "-o", data_dir, f"{proj}/src/util.c"]),
            (tmp, ["-a", "-b", "-c", "-p", f"{data_dir}/main.gcda", f"{data_dir}/util.gcda"]),
            (data_dir, ["-b", "-c", "-f", "main.gcda", "util.gcno"]),
            (proj, ["-j", "-b", "-o", data_dir, "src/util.c"]),
            (tmp, ["-l", "-x", "-o", data_dir, "main.c"]),
        ]
        for cwd, args in invocations:
            theirs = gcov_outputs("gcov-12", args, cwd)
            ours = gcov_outputs(COVKIT, ["gcov"] + args, cwd)
            eq(ours, theirs, f"{root}: covkit gcov {' '.join(args)} (in {cwd}) against gcov-12")
            check(theirs[0] != 0 or theirs[3], f"{root}: gcov {' '.join(args)} wrote something")

    # The build tree moved: the links lead nowhere.
    os.rename(f"{proj}/build", f"{proj}/build.moved")
    rc, out, err = covkit(["report", f"{tmp}/abs"], tmp)
    data_dir = trees["abs"]
    eq(err, [f"covkit report: {data_dir}/main.gcno: cannot open the notes file: a symbolic link to "
             f"{proj}/build/main.gcno: No such file or directory (a kernel-style tree links into the build tree, "
             "which must stay where it was built)",
             f"covkit report: {data_dir}/util.gcno: cannot open the notes file: a symbolic link to "
             f"{proj}/build/util.gcno: No such file or directory (a kernel-style tree links into the build tree, "
             "which must stay where it was built)",
             "covkit report: 2 of 2 objects have damaged or unreadable inputs; their counts are missing or partial",
             "covkit report: nothing to report: none of the 2 objects found could be read (see above)"],
       "a tree whose build tree moved")
    eq(rc, 1, "exit status with nothing to report")


def scenario_empty_output_paths(tmp):
    """An output option given '' (an unset $OUT in a script) is a usage error,
    not a report that quietly writes nothing, nor a merge into "."."""
    proj = c_project(tmp)
    run_prog(proj)
    for opt in ("--lcov", "--cobertura", "--xml", "--sonarqube", "--coveralls", "--json", "--html", "--markdown"):
        rc, out, err = covkit(["report", "build", opt, ""], proj)
        named = "--cobertura" if opt == "--xml" else opt  # its alias
        eq((rc, out, err), (1, "", [f"covkit report: {named}: an empty path (see covkit report --help)"]), opt)
    before = sorted(os.listdir(proj))
    rc, _, err = covkit(["merge", "-o", "", "build"], proj)
    eq((rc, err), (1, ["covkit merge: --output: an empty path (see covkit merge --help)"]), "merge -o ''")
    eq(sorted(os.listdir(proj)), before, "the working directory after merge -o ''")


SCENARIOS = {name[len("scenario_"):]: fn for name, fn in globals().items() if name.startswith("scenario_")}


def run_scenario(name):
    tmp = tempfile.mkdtemp(prefix=f"covkit-report-cli-{name}-")
    tmp = os.path.realpath(tmp)
    start = time.time()
    try:
        SCENARIOS[name](tmp)
        print(f"PASS {name} ({time.time() - start:.1f} s)")
        return 0
    except Skip as e:
        print(f"SKIP {name}: {e}")
        return 77
    except Failure as e:
        print(f"FAIL {name}: {e}\n  (work directory: {tmp})")
        return 1
    finally:
        if not KEEP:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    global COVKIT, KEEP
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit")
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directories")
    a = ap.parse_args()
    if a.list:
        print(";".join(SCENARIOS))
        return 0
    if not a.covkit:
        ap.error("--covkit is required")
    COVKIT = os.path.abspath(a.covkit)
    KEEP = a.keep
    results = [run_scenario(n) for n in (a.scenario or SCENARIOS)]
    if any(r == 1 for r in results):
        return 1
    if all(r == 77 for r in results):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
