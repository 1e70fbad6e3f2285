#!/usr/bin/env python3
"""`covkit gprof` against GNU gprof on the same files: CPU time and peak
memory, small, large and summed inputs.

Generates C programs built with `gcc-12 -pg` (bench/gprof/make_program.py),
runs them to write gmon.out files, checks that covkit's report is gprof's
byte for byte, then runs both tools on each input RUNS times, alternating,
and prints per input the median and minimum CPU time (user + system, from
wait4) and the largest peak RSS of each, with the ratios gprof/covkit for
time (>= 1: covkit as fast) and covkit/gprof for memory (target <= 1.5).

Inputs (names as printed):
  small      60 functions, one gmon.out
  large      8,000 functions in 16 files, one gmon.out
  large-c++  4,000 C++ functions (templates, long mangled names), -C off
  static     a -static program: libc's functions in its symbol table too
  summed     `large` with four gmon files of four runs, added up

  bench/gprof_vs_gnu.py [--covkit build/covkit] [--runs 7] [--only large,summed] [--keep DIR]

Exit 0 (verdicts printed, PASS/MISS), 1 when the outputs differ, 2 on a
setup error.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gprof"))
import make_program  # noqa: E402


def measure(argv, cwd, out_path):
    """CPU seconds, peak RSS in KiB and wall seconds of one run; stdout to out_path."""
    t0 = time.perf_counter()
    with open(out_path, "wb") as out, open(os.devnull, "wb") as null:
        pid = os.posix_spawnp(argv[0], argv, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                            (os.POSIX_SPAWN_DUP2, null.fileno(), 2)])
        _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        raise SystemExit(f"{' '.join(argv)} (in {cwd}): exit status {rc}")
    return ru.ru_utime + ru.ru_stime, peak_rss(argv, cwd), wall


def peak_rss(argv, cwd):
    """Peak RSS in KiB of one more run, measured by /usr/bin/time. Not the
    ru_maxrss of the spawned child: posix_spawn's child shares this Python's
    memory until exec, and the kernel keeps that high-water mark across exec,
    so every small run looked as big as this script."""
    with tempfile.NamedTemporaryFile(mode="r") as f, open(os.devnull, "wb") as null:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + argv, cwd=cwd, stdout=null, stderr=null,
                       check=True)
        return int(f.read().split()[-1])


def build_inputs(work, only):
    """(name, directory, program, [gmon files]) per input."""
    specs = {
        "small": dict(functions=60, files=1, cxx=False, static=False, runs=1),
        "large": dict(functions=8000, files=16, cxx=False, static=False, runs=1),
        "large-c++": dict(functions=4000, files=8, cxx=True, static=False, runs=1),
        "static": dict(functions=400, files=2, cxx=False, static=True, runs=1),
        "summed": dict(functions=8000, files=16, cxx=False, static=False, runs=4),
    }
    inputs = []
    for name, spec in specs.items():
        if only and name not in only:
            continue
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        prog = make_program.build(d, spec["functions"], spec["files"], cxx=spec["cxx"], static=spec["static"])
        gmons = []
        for r in range(spec["runs"]):
            subprocess.run([prog, str(r + 1)], cwd=d, check=True, stdout=subprocess.DEVNULL)
            g = os.path.join(d, f"gmon.{r}")
            os.replace(os.path.join(d, "gmon.out"), g)
            gmons.append(g)
        inputs.append((name, d, prog, gmons))
    return inputs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default=os.path.join(HERE, "..", "build", "covkit"))
    ap.add_argument("--gprof", default="gprof")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--only", default="", help="comma-separated input names")
    ap.add_argument("--keep", help="build the inputs in DIR and keep them (reused when present)")
    args = ap.parse_args()
    covkit = os.path.abspath(args.covkit)
    gprof = shutil.which(args.gprof)
    if not os.access(covkit, os.X_OK) or not gprof or not shutil.which("gcc-12"):
        print(f"need {covkit}, {args.gprof} and gcc-12", file=sys.stderr)
        return 2
    only = set(filter(None, args.only.split(",")))
    work = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="covkit-gprof-bench-")
    try:
        inputs = build_inputs(work, only)
        tools = {"gprof": [gprof, "-b"], "covkit": [covkit, "gprof", "-b"]}
        rows = []
        differ = False
        for name, d, prog, gmons in inputs:
            outs = {}
            for tool, cmd in tools.items():
                outs[tool] = os.path.join(d, f"out.{tool}")
                measure(cmd + [prog] + gmons, d, outs[tool])
            with open(outs["gprof"], "rb") as a, open(outs["covkit"], "rb") as b:
                if a.read() != b.read():
                    print(f"{name}: covkit's report differs from gprof's ({outs['gprof']}, {outs['covkit']})",
                          file=sys.stderr)
                    differ = True
                    continue
            cpu = {t: [] for t in tools}
            rss = {t: [] for t in tools}
            for _ in range(args.runs):
                for tool, cmd in tools.items():
                    c, m, _ = measure(cmd + [prog] + gmons, d, outs[tool])
                    cpu[tool].append(c)
                    rss[tool].append(m)
            gmon_kb = sum(os.path.getsize(g) for g in gmons) / 1024
            rows.append((name, gmon_kb, len(gmons), cpu, rss))

        print(f"covkit gprof against {gprof} -b: {args.runs} runs each, alternating; "
              f"load average {os.getloadavg()[0]:.2f}")
        print(f"{'input':10} {'gmon KiB':>9} {'tool':7} {'cpu s median':>12} {'min':>7} {'peak MiB':>9}")
        for name, kb, n, cpu, rss in rows:
            for tool in tools:
                print(f"{name:10} {kb:9.0f} {tool:7} {statistics.median(cpu[tool]):12.3f} {min(cpu[tool]):7.3f} "
                      f"{max(rss[tool]) / 1024:9.1f}")
        print()
        for name, kb, n, cpu, rss in rows:
            speed = statistics.median(cpu["gprof"]) / statistics.median(cpu["covkit"])
            speed_min = min(cpu["gprof"]) / min(cpu["covkit"])
            memory = max(rss["covkit"]) / max(rss["gprof"])
            ok = speed >= 1.0 and memory <= 1.5
            print(f"{name:10} gprof/covkit time {speed:.2f}x (medians), {speed_min:.2f}x (minima); "
                  f"covkit/gprof peak memory {memory:.2f}x  {'PASS' if ok else 'MISS'} (targets >= 1.00, <= 1.50)")
        return 1 if differ else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
