#!/usr/bin/env python3
"""covkit blocks report (libcovkit-blocks + -fsanitize-coverage) against the
oracles that exist, on C cases of tests/corpus (each built once per mode):

  lines    the lines the block hooks show covered against the line truth of
           the same sources built with --coverage (gcc), over every case:
           recall and precision >= 99 % of covered lines at -O0 for
           gcc trace-pc, clang trace-pc-guard, clang inline-8bit-counters
           and clang inline-bool-flag (with pc-table); measured, not
           asserted, at -O2. Precision counts only lines --coverage lists.
           (Measured 100 % in every mode, lean set and all eleven:
           docs/covkit-blocks.md.)
  (BLOCKS_ALL=1: all eleven cases and the -O2 measurement; else five)
  sancov   clang trace-pc-guard: the block addresses of covkit's runtime
           are sancov-14's covered points (the same object linked with the
           sanitizer runtime, UBSAN_OPTIONS=coverage=1), and the covered
           functions are sancov's -covered-functions
  damaged  a damaged block file: one line naming it, exit 1

  run_blocks.py COVKIT BUILD_DIR CORPUS_DIR     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_checks import check, finish, run  # noqa: E402
from lcov_lines import lcov_lines  # noqa: E402

COVKIT = BUILD = CORPUS = None
ALL_CASES = ["goto_maze", "computed_goto", "long_function", "gnu_c_extensions", "short_circuit", "switch_fallthrough",
             "mutual_recursion", "setjmp_longjmp", "never_called", "macro_control", "loops_one_line"]
# CI runs a lean set (the whole set took ~6 min under load); BLOCKS_ALL=1
# runs all of them and measures -O2 too (the manual's table).
CASES = ALL_CASES if os.environ.get("BLOCKS_ALL") else ["goto_maze", "computed_goto", "switch_fallthrough",
                                                         "setjmp_longjmp", "mutual_recursion"]
MODES = [  # name, compiler, flags, link
    ("gcc trace-pc", "gcc", ["-fsanitize-coverage=trace-pc"], "shared"),
    ("clang trace-pc-guard", "clang-14", ["-fsanitize-coverage=trace-pc-guard"], "shared"),
    ("clang inline-8bit-counters", "clang-14", ["-fsanitize-coverage=inline-8bit-counters,pc-table"], "shared"),
    ("clang inline-bool-flag", "clang-14", ["-fsanitize-coverage=inline-bool-flag,pc-table"], "shared"),
]


def case_vars(case):
    r = run(["bash", "-c", f'source {shlex.quote(os.path.join(CORPUS, case, "case.sh"))}; '
                           'printf "%s\\n%s\\n" "$SOURCES" "$RUNS"'])
    sources, runs = r.stdout.split("\n")[:2]
    return sources.split(), runs


def build_and_run(d, compiler, flags, sources, runs, opt, env_extra=None, link=None):
    os.makedirs(d, exist_ok=True)
    for s in sources:
        shutil.copy(os.path.join(CASE_DIR, s), d)
    cmd = [compiler, opt, "-g", "-gdwarf-4"] + flags + sources + ["-o", "prog"] + (link or [])
    r = run(cmd, cwd=d)
    if r.returncode != 0:
        return r.stderr
    env = dict(os.environ, **(env_extra or {}))
    run(runs, cwd=d, env=env, shell=True)
    return None


def measure(tmp, opt):
    totals = {}
    for case in CASES:
        global CASE_DIR
        CASE_DIR = os.path.join(CORPUS, case)
        if not os.path.isdir(CASE_DIR):
            continue
        sources, runs = case_vars(case)
        truth_dir = os.path.join(tmp, opt, case, "truth")
        err = build_and_run(truth_dir, "gcc", ["--coverage"], sources, runs, opt)
        if err:
            check(False, f"{case}: --coverage build: {err}")
            continue
        r = run([COVKIT, "report", "-q", "--lcov", "-", "."], cwd=truth_dir)
        truth = lcov_lines(r.stdout)
        for name, compiler, flags, _ in MODES:
            if not shutil.which(compiler):
                continue
            d = os.path.join(tmp, opt, case, name.replace(" ", "_"))
            link = ["-L", BUILD, "-lcovkit-blocks", "-Wl,-rpath," + BUILD]
            if compiler.startswith("clang"):
                link.append("-fno-sanitize-link-runtime")
            err = build_and_run(d, compiler, flags, sources, runs, opt,
                                {"COVKIT_BLOCKS_FILE": os.path.join(d, "blocks.%p")}, link)
            if err:
                check(False, f"{case} {name}: build: {err}")
                continue
            files = sorted(f for f in os.listdir(d) if f.startswith("blocks."))
            r = run([COVKIT, "blocks", "report", "-q", "--lcov", "-"] + files, cwd=d)
            check(r.returncode == 0 and files, f"{case} {name}: blocks report: {r.stderr}")
            ours = lcov_lines(r.stdout)
            t = totals.setdefault(name, [0, 0, 0, 0])
            truth_cov = {k for k, c in truth.items() if c > 0}
            ours_cov = {k for k, c in ours.items() if c > 0}
            t[0] += len(truth_cov & ours_cov)
            t[1] += len(truth_cov)
            t[2] += len(ours_cov & truth.keys())
            missed, extra = truth_cov - ours_cov, (ours_cov & truth.keys()) - truth_cov
            if opt == "-O0" and (missed or extra):
                print(f"  {case} {name}: missed {sorted(missed)[:8]} extra {sorted(extra)[:8]}")
    for name, (hit, truth_n, ours_n, _) in totals.items():
        recall = hit / truth_n if truth_n else 1.0
        precision = hit / ours_n if ours_n else 1.0
        print(f"{opt} {name}: recall {recall:.4f} ({hit}/{truth_n}), precision {precision:.4f} ({hit}/{ours_n})")
        if opt == "-O0":
            # 100 % measured in every mode (lean set and all eleven);
            # 99 % is the target.
            check(recall >= 0.99 and precision >= 0.99, f"{opt} {name}: recall {recall:.4f} precision {precision:.4f}")


def sancov_oracle(tmp):
    if not shutil.which("sancov-14") or not shutil.which("clang-14"):
        print("sancov: skipped (sancov-14 or clang-14 missing)")
        return
    for case in CASES:
        case_dir = os.path.join(CORPUS, case)
        sources, runs = case_vars(case)
        d = os.path.join(tmp, "sancov", case)
        os.makedirs(d)
        for s in sources:
            shutil.copy(os.path.join(case_dir, s), d)
        objs = []
        for s in sources:
            o = s + ".o"
            r = run(["clang-14", "-O0", "-g", "-fsanitize-coverage=trace-pc-guard", "-c", s, "-o", o], cwd=d)
            check(r.returncode == 0, f"sancov {case}: compile: {r.stderr}")
            objs.append(o)
        r1 = run(["clang-14", "-fsanitize-coverage=trace-pc-guard"] + objs + ["-o", "y"], cwd=d)
        r2 = run(["clang-14", "-fsanitize-coverage=trace-pc-guard", "-fno-sanitize-link-runtime"] + objs +
                 ["-o", "prog", "-L", BUILD, "-lcovkit-blocks", "-Wl,-rpath," + BUILD], cwd=d)
        if r1.returncode or r2.returncode:
            check(False, f"sancov {case}: link: {r1.stderr} {r2.stderr}")
            continue
        run(runs, cwd=d, shell=True, env=dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, "blocks.%p")))
        run(runs.replace("./prog", "./y"), cwd=d, shell=True,
            env=dict(os.environ, UBSAN_OPTIONS=f"coverage=1:coverage_dir={d}"))
        sancovs = [f for f in os.listdir(d) if f.endswith(".sancov")]
        if not sancovs:
            check(False, f"sancov {case}: no .sancov written")
            continue

        def main_at(exe):
            for line in run(["nm", exe], cwd=d).stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[2] == "main":
                    return int(parts[0], 16)
            return 0
        theirs = set()
        for f in sancovs:
            theirs |= {int(x, 16) - main_at("y") for x in run(["sancov-14", "-print", f], cwd=d).stdout.split()}
        ours = set()
        for f in os.listdir(d):
            if not f.startswith("blocks."):
                continue
            module = None
            for line in open(os.path.join(d, f)):
                w = line.split()
                if w[0] == "module":
                    module = line.split(" ", 2)[2].strip()
                elif w[0] == "b" and module and module.endswith("/prog"):
                    ours.add(int(w[1], 16) - main_at("prog"))
        check(ours == theirs and ours, f"sancov {case}: covered points differ: only covkit {sorted(ours - theirs)[:5]}, "
                                       f"only sancov {sorted(theirs - ours)[:5]}")
        funcs = set()
        for f in sancovs:
            for line in run(["sancov-14", "-covered-functions", "y", f], cwd=d).stdout.splitlines():
                if line.strip():
                    funcs.add(line.split()[-1])
        r = run([COVKIT, "blocks", "report", "-q", "--lcov", "-"] +
                [f for f in os.listdir(d) if f.startswith("blocks.")], cwd=d)
        covered = set()
        for line in r.stdout.splitlines():
            if line.startswith("FNDA:"):
                count, name = line[5:].split(",", 1)
                if int(count) > 0:
                    covered.add(name)
        check(funcs == covered, f"sancov {case}: covered functions differ: {sorted(funcs ^ covered)}")
    print("sancov: compared", len(CASES), "cases")


def damaged(tmp):
    p = os.path.join(tmp, "bad.blocks")
    with open(p, "w") as f:
        f.write("covkit-blocks 1\npid 1\nmodule 0 /bin/true\nb zz 1\nend\n")
    r = run([COVKIT, "blocks", "report", p])
    check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "bad.blocks" in r.stderr and "line 4" in r.stderr,
          f"damaged block file: {r.returncode} {r.stderr!r}")
    with open(p, "w") as f:
        f.write("covkit-blocks 1\npid 1\nmodule 0 /bin/true\nb 10 1\n")
    r = run([COVKIT, "blocks", "report", p])
    check(r.returncode == 1 and "cut short" in r.stderr, f"cut block file: {r.returncode} {r.stderr!r}")


def main():
    global COVKIT, BUILD, CORPUS
    COVKIT, BUILD, CORPUS = (os.path.abspath(a) for a in sys.argv[1:4])
    if not os.path.exists(os.path.join(BUILD, "libcovkit-blocks.so")) or not shutil.which("gcc"):
        print("libcovkit-blocks.so or gcc missing: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="covkit-blocks-")
    try:
        measure(tmp, "-O0")
        if os.environ.get("BLOCKS_ALL"):
            measure(tmp, "-O2")
        sancov_oracle(tmp)
        damaged(tmp)
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
