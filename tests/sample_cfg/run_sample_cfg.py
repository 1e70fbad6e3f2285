#!/usr/bin/env python3
"""covkit sample's decoder and CFGs on code it never saw, checked against
oracles: objdump for instruction boundaries, gcov (--coverage builds of the
same source) for what ran.

  run_sample_cfg.py --covkit build/covkit --diff build/.../covkit_decoder_diff --work DIR SCENARIO

Scenarios:
  decoder   every instruction of libc, libstdc++, ld.so, covkit, its runtime
            and the programs below decoded as objdump decodes it
  shapes    one program per jump-table shape, recorded in breakpoint mode:
            the lines gcov saw run, no other and at most one less (also where gcc hoisted a line's
            instruction to the entry, and at a join after an `else` not
            taken, whose statement markers must cover nothing, with
            --inference none too), every plant an instruction start and
            none on padding
  simd      SSE, AVX2 and AVX-512 paths (the EVEX encodings capstone could
            not read) recorded without a signal, each path exact
  static    a statically linked glibc program (its string functions' EVEX
            variants planted too) recorded without a signal

Exit 77 (skip) when gcc-12 is missing."""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plants  # noqa: E402


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)


def gcc(work, source, out, *flags):
    src = os.path.join(work, os.path.basename(source))
    if not os.path.exists(src):
        shutil.copy(os.path.join(HERE, "progs", source), src)
    p = run(["gcc-12", *flags, "-o", out, src], cwd=os.path.dirname(out))
    check(p.returncode == 0, f"gcc-12 {' '.join(flags)} {source}: {p.stderr}")
    return out


def build_pair(work, source, *flags):
    """The program plain (-O2 -g) and with --coverage (the truth), in work/<name>/."""
    name = os.path.splitext(source)[0]
    d = os.path.join(work, name)
    truth = os.path.join(d, "truth")
    os.makedirs(truth, exist_ok=True)
    plain = gcc(work, source, os.path.join(d, name), "-O2", "-g", *flags)
    gcc(work, source, os.path.join(truth, name), "-O2", "-g", "--coverage", *flags)
    return plain, truth


def truth_run(truth, name, argv):
    for f in os.listdir(truth):
        if f.endswith(".gcda"):
            os.unlink(os.path.join(truth, f))
    p = run([os.path.join(truth, name), *argv])
    check(p.returncode == 0, f"{name} {argv} (--coverage) exited {p.returncode}: {p.stderr}")
    return p.stdout


def record(args, rec, argv, *extra):
    shutil.rmtree(rec, ignore_errors=True)
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "-o", rec, *extra, "--", *argv])
    check(p.returncode == 0, f"record {argv} exited {p.returncode}: {p.stderr}")
    check("signal" not in p.stderr, f"record {argv}: a signal: {p.stderr}")
    return p.stdout, p.stderr


def compare(args, rec, truth, *extra):
    p = run([args.covkit, "sample", "compare", rec, "--against", truth, "--csv-summary", *extra])
    check(p.returncode == 0, f"compare exited {p.returncode}: {p.stderr}")
    recall, precision, _, hits, misses, false_pos = p.stdout.strip().split(",")
    return int(hits), int(misses), int(false_pos)


def check_plants(args, rec, at_least):
    n, problems = plants.check_plants(args.covkit, rec)
    check(not problems, f"{rec}: {len(problems)} of {n} plants wrong: {problems[:10]}")
    check(n >= at_least, f"{rec}: only {n} plants")
    return n


def exact(args, work, source, runs, *flags):
    """Each run of the program recorded: the lines gcov saw run, no more, no
    less; every plant checked."""
    name = os.path.splitext(source)[0]
    plain, truth = build_pair(work, source, *flags)
    for i, argv in enumerate(runs):
        expected = truth_run(truth, name, argv)
        rec = os.path.join(work, f"{name}-{i}.rec")
        out, _ = record(args, rec, [plain, *argv])
        check(out == expected, f"{name} {argv}: output {out!r} under breakpoints, {expected!r} plain")
        hits, misses, false_pos = compare(args, rec, truth)
        # One line may be missed: gcc copies `return acc;` into every case
        # and names the copies after the closing brace, leaving the line's
        # own row on a path not taken (cold_cases.c).
        check(misses <= 1 and false_pos == 0 and hits > 5,
              f"{name} {argv} {flags}: {hits} lines hit, {misses} missed, {false_pos} false positives")
        # What a line's rows say holds without inference too: fewer lines,
        # never one that did not run.
        _, _, false_pos = compare(args, rec, truth, "--inference", "none")
        check(false_pos == 0, f"{name} {argv} {flags}: {false_pos} false positives with --inference none")
        check_plants(args, rec, 5)


def scenario_shapes(args, work):
    for flags in ((), ("-no-pie", "-fno-pie")):
        exact(args, work, "computed_goto.c", [[], ["all"]], *flags)
        exact(args, work, "hoisted_base.c", [["3"], ["8"]], *flags)
        exact(args, work, "bounds.c", [["2"], ["7"]], *flags)
        exact(args, work, "cold_cases.c", [[], ["odd"]], *flags)
        exact(args, work, "join_marker.c", [[], ["unary"]], *flags)
        shutil.rmtree(work)
        os.makedirs(work)


def scenario_simd(args, work):
    p = run(["grep", "-c", "avx512f", "/proc/cpuinfo"])
    check(p.stdout.strip() not in ("", "0"), "this CPU has no AVX-512: the EVEX path cannot run")
    exact(args, work, "simd.c", [[], ["avx2"], ["sse"]])
    out = run(["objdump", "-d", os.path.join(work, "simd", "simd")]).stdout
    check("%zmm" in out and "%k" in out, "the program holds no EVEX instruction (zmm, mask registers)")


def scenario_static(args, work):
    exe = gcc(work, "static_hello.c", os.path.join(work, "static_hello"), "-O2", "-g", "-static")
    plain = run([exe, "a", "bb"])
    rec = os.path.join(work, "static.rec")
    out, err = record(args, rec, [exe, "a", "bb"])
    check(out == plain.stdout, f"output {out!r} under breakpoints, {plain.stdout!r} plain")
    n = check_plants(args, rec, 1000)
    # glibc's EVEX string functions are planted (the CPU picks them).
    sites = {v for _, v in plants.planted(args.covkit, rec)}
    nm = run(["nm", exe]).stdout.split("\n")
    evex = {}
    for line in nm:
        f = line.split()
        if len(f) == 3 and f[2].endswith("_evex"):
            evex[f[2]] = int(f[0], 16)
    check(evex, "no *_evex function in the static program")
    sizes = {}
    for line in run(["nm", "-S", exe]).stdout.split("\n"):
        f = line.split()
        if len(f) == 4 and f[3] in evex:
            sizes[f[3]] = int(f[1], 16)
    planted_evex = [name for name, a in evex.items() if any(a <= s < a + sizes.get(name, 1) for s in sites)]
    check(len(planted_evex) >= len(evex) // 2, f"only {planted_evex} of {sorted(evex)} planted ({n} plants)")
    p = run([args.covkit, "sample", "report", rec])
    check(p.returncode == 0, f"sample report: {p.stderr}")


def scenario_decoder(args, work):
    files = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
             "/lib64/ld-linux-x86-64.so.2", os.path.join(os.path.dirname(args.covkit), "libcovkit-sample.so")]
    # covkit itself, unless built with UBSan (the sanitized pass): clang's
    # -fsanitize=function puts a type signature (data) behind a short jmp at
    # every function's entry, which objdump's linear sweep reads as
    # instructions; the plain pass compares covkit itself.
    syms = run(["nm", args.covkit]).stdout
    if "__ubsan_handle_" in syms:
        print(f"{args.covkit}: built with UBSan (data at function entries), not compared with objdump's sweep")
    else:
        files.append(args.covkit)
    for source in ("computed_goto.c", "hoisted_base.c", "bounds.c", "cold_cases.c", "simd.c"):
        name = os.path.splitext(source)[0]
        files.append(gcc(work, source, os.path.join(work, name), "-O2", "-g"))
        files.append(gcc(work, source, os.path.join(work, name + "-O0"), "-O0", "-g", "-no-pie", "-fno-pie"))
    files.append(gcc(work, "static_hello.c", os.path.join(work, "static_hello"), "-O2", "-g", "-static"))
    p = run([args.diff, *files])
    sys.stdout.write(p.stdout)
    check(p.returncode == 0, f"the decoder differs from objdump:\n{p.stdout}{p.stderr}")


SCENARIOS = {"decoder": scenario_decoder, "shapes": scenario_shapes, "simd": scenario_simd, "static": scenario_static}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--diff", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    args = ap.parse_args()
    if not shutil.which("gcc-12"):
        print("gcc-12 not found", file=sys.stderr)
        return 77
    work = os.path.join(os.path.abspath(args.work), args.scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        SCENARIOS[args.scenario](args, work)
    except Failure as e:
        print(f"FAIL {args.scenario}: {e}", file=sys.stderr)
        return 1
    print(f"ok {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
