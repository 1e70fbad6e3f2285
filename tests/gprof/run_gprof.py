#!/usr/bin/env python3
"""End-to-end tests of `covkit gprof`: real programs built with `gcc-12 -pg`
(progs/), run to write gmon.out, then `covkit gprof` compared byte for byte
with GNU gprof on the same files: the whole brief report (-b), the flat
profile alone (-b -p), the call graph alone (-b -q) and with unused
functions (-b -z). Also: two gmon files added up, `GMON PROG` order, the
drawn formats, and bad input (one line naming the file, exit 1).

  run_gprof.py --covkit build/covkit [--work DIR] [-v] SCENARIO...  (or "all")
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")


class Failure(Exception):
    pass


class Env:
    def __init__(self, args):
        self.covkit = os.path.abspath(args.covkit)
        self.work = os.path.abspath(args.work)
        self.verbose = args.verbose
        for tool in ("gcc-12", "g++-12", "gprof"):
            if not shutil.which(tool):
                raise Failure(f"{tool} not found")

    def run(self, cmd, cwd, check=True, stdin=None):
        if self.verbose:
            print("+", " ".join(cmd), file=sys.stderr)
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin)
        if check and p.returncode != 0:
            raise Failure(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
        return p

    def build(self, name, src, flags, cxx=False):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        compiler = "g++-12" if cxx else "gcc-12"
        self.run([compiler, "-pg", *flags, "-o", name, os.path.join(PROGS, src)], cwd=d)
        return d

    def profile(self, d, name, args=(), gmon="gmon.out"):
        self.run([f"./{name}", *args], cwd=d)
        if not os.path.exists(os.path.join(d, "gmon.out")):
            raise Failure(f"{name} wrote no gmon.out")
        if gmon != "gmon.out":
            os.replace(os.path.join(d, "gmon.out"), os.path.join(d, gmon))


def compare(env, d, options, prog, gmons, covkit_args=None):
    """gprof OPTIONS PROG GMONS against covkit gprof (same, or covkit_args)."""
    want = env.run(["gprof", *options, prog, *gmons], cwd=d)
    got = env.run([env.covkit, "gprof", *(covkit_args or [*options, prog, *gmons])], cwd=d, check=False)
    if got.returncode != 0:
        raise Failure(f"covkit gprof {' '.join(options)} exited {got.returncode}: {got.stderr.decode(errors='replace')}")
    if got.stdout != want.stdout:
        tag = "_".join(o.strip("-") for o in options) or "default"
        for what, data in (("gprof", want.stdout), ("covkit", got.stdout)):
            with open(os.path.join(d, f"{what}.{tag}.txt"), "wb") as f:
                f.write(data)
        diff = subprocess.run(["diff", f"gprof.{tag}.txt", f"covkit.{tag}.txt"], cwd=d,
                              stdout=subprocess.PIPE).stdout.decode(errors="replace")
        raise Failure(f"covkit gprof {' '.join(options)} differs from gprof in {d}:\n{diff[:3000]}")
    return want.stdout.decode()


def compare_all(env, d, prog, gmons=("gmon.out",)):
    report = compare(env, d, ["-b"], prog, list(gmons))
    compare(env, d, ["-b", "-p"], prog, list(gmons))
    compare(env, d, ["-b", "-q"], prog, list(gmons))
    compare(env, d, ["-b", "-z"], prog, list(gmons))
    return report


def expect(cond, what):
    if not cond:
        raise Failure(what)


# ------------------------------------------------------------ scenarios

def sc_recursion(env):
    d = env.build("recursion", "recursion.c", ["-O0"])
    env.profile(d, "recursion")
    out = compare_all(env, d, "recursion")
    # By construction: main calls fib 10 times and factorial 5 times, which
    # calls itself 9..13 times: 5 + 50 recursive calls.
    expect(" 10/10 " in out and " 5/5 " in out, "recursion: main's calls of fib and factorial not listed")
    expect("5+55" in out, "recursion: factorial's recursive calls not counted apart")


def sc_cycle(env):
    d = env.build("cycle", "cycle.c", ["-O0"])
    env.profile(d, "cycle")
    out = compare_all(env, d, "cycle")
    expect("<cycle 1 as a whole>" in out and "<cycle 2 as a whole>" in out, "cycle: two cycles expected")


def sc_fnptr(env):
    d = env.build("fnptr", "fnptr.c", ["-O0"])
    env.profile(d, "fnptr")
    out = compare_all(env, d, "fnptr")
    # By construction: main calls apply 4000 times, apply calls add through
    # the table 2000 times. qsort's calls of compare come from the C library,
    # outside the profiled text: glibc's mcount records no arc for them, so
    # compare (never sampled in so short a run) shows only with -z.
    expect(" 4000/4000 " in out and " 2000/2000 " in out, "fnptr: calls through pointers not counted")
    expect("compare" not in out, "fnptr: compare listed without calls")
    unused = compare(env, d, ["-b", "-z", "-p"], "fnptr", ["gmon.out"])
    expect("compare" in unused, "fnptr: -z should list compare")


def busy(env, name, flags):
    d = env.build(name, "busy.c", ["-O0", "-g", *flags])
    env.profile(d, name)
    out = compare_all(env, d, name)
    expect("no time accumulated" not in out, f"{name}: the histogram has no samples (machine too fast?)")
    expect("(busy.c)" in out, f"{name}: the static function's file is missing from the index")
    return d


def sc_busy_pie(env):
    d = busy(env, "busy_pie", ["-fPIE", "-pie"])
    out = env.run(["readelf", "-h", "busy_pie"], cwd=d).stdout.decode()
    expect("DYN" in out, "busy_pie is not a PIE")


def sc_busy_nopie(env):
    d = busy(env, "busy_nopie", ["-fno-pie", "-no-pie"])
    out = env.run(["readelf", "-h", "busy_nopie"], cwd=d).stdout.decode()
    expect("EXEC" in out, "busy_nopie is a PIE")


def sc_static(env):
    # Statically linked: the C library's thousands of symbols (IFUNCs, weak
    # aliases, local labels) and the profiler's own mcount, which gprof
    # always leaves out.
    d = env.build("static", "busy.c", ["-O2", "-static"])
    env.profile(d, "static", ["500000"])
    compare_all(env, d, "static")
    unused = compare(env, d, ["-b", "-z", "-p"], "static", ["gmon.out"])
    expect("__mcount_internal" not in unused and " mcount\n" not in unused, "static: mcount listed")


def sc_templates(env):
    d = env.build("templates", "templates.cc", ["-O0"], cxx=True)
    env.profile(d, "templates")
    out = compare_all(env, d, "templates")
    expect("shapes::accumulate_squares<int>" in out, "templates: demangled template name expected")


def sc_headers(env):
    # Static functions from headers: gprof's index labels them with the file
    # BFD's line lookup names. In a DWARF 5 line table the rows before a
    # sequence's first DW_LNS_set_file are named after the unit (entry 0):
    # headers_first.h's functions come first, so they are "(headers.c)";
    # headers_second.h's follow a set_file. -ffunction-sections makes each
    # function its own sequence (scramble is not the first); DWARF 4 names
    # file 1 as it is.
    for name, flags, first in (("headers5", [], "headers.c"),
                               ("headers5_sections", ["-ffunction-sections"], "headers.c"),
                               ("headers4", ["-gdwarf-4"], "headers_first.h")):
        d = env.build(name, "headers.c", ["-O0", "-g", *flags])
        env.profile(d, name)
        out = compare_all(env, d, name)
        for label in (f"mix ({first})", f"scramble ({first})", "fold (headers_second.h)", "churn (headers.c)"):
            expect(label in out, f"{name}: '{label}' missing from the index")


def sc_trailing_row(env):
    # The DWARF 5 rule of sc_headers where libdw's sorted rows hide a
    # sequence's start: a sequence whose last row sits at its end address
    # (zero-length; GCC writes one after a noreturn call, as in gawk's
    # regcomp.c .cold parts) sorts that row after its own end_sequence row,
    # and the next sequence by address, .text opening with file 1's static
    # functions, was no longer seen to start: gawk's re_node_set_compare was
    # "(regex_internal.c)" where gprof says "(regex.c)". The zero-length row
    # is made here by two .loc directives at main's end (GNU as emits the
    # first at once), and the shape is checked before the comparison.
    name = "trailing_row"
    d = os.path.join(env.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env.run(["gcc-12", "-pg", "-O2", "-g", "-S", "-o", "t.s", os.path.join(PROGS, "trailing_row.c")], cwd=d)
    asm = open(os.path.join(d, "t.s")).read().split("\n")
    numbers = [re.match(r'\s*\.file (\d+) ".*/trailing_row\.c"', line) for line in asm]
    main_file = next(m.group(1) for m in numbers if m)
    end = next(i for i in range(asm.index("main:"), len(asm)) if asm[i].strip() == ".cfi_endproc")
    asm[end:end] = [f"\t.loc {main_file} 24 1 is_stmt 0"] * 2
    with open(os.path.join(d, "t.s"), "w") as f:
        f.write("\n".join(asm))
    env.run(["gcc-12", "-pg", "-o", name, "t.s"], cwd=d)
    nm = env.run(["nm", name], cwd=d).stdout.decode()
    twice = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" twice")), 16)
    seqs = line_sequences(env, d, name)
    last_end, trailing = max((e, t or "") for _, e, t in seqs if e <= twice)
    following = min(s for s, _, _ in seqs if s >= last_end)
    expect(trailing and following == twice,
           f"trailing_row: the sequence before twice() at {twice:#x} has no zero-length last row: {seqs}")
    env.profile(d, name)
    out = compare_all(env, d, name)
    for label in ("twice (trailing_row.c)", "thrice (trailing_row.c)"):
        expect(label in out, f"trailing_row: '{label}' missing from the index")


def sc_symbols(env):
    # gprof's symbol specifications, byte for byte: the flat profile of or
    # without a function (-pSYM, -PSYM, attached as gprof's optional
    # arguments are), the call graph of or without one (-qSYM, -QSYM), the
    # old forms (-e, -E, -f, -F), time only (-n, -N), arcs (-kFROM/TO,
    # -qFROM/TO, -QFROM/TO), files (FILE, FILE:FUNCTION, a line number) and
    # names that match nothing.
    d = env.build("symbols", "busy.c", ["-O0", "-g"])
    env.profile(d, "symbols")
    for options in (["-pspin"], ["-Pspin"], ["-qheavy"], ["-Qheavy"], ["-espin"], ["-Espin"], ["-fphase_one"],
                    ["-Fphase_one"], ["-nphase_one"], ["-Nspin"], ["-kphase_one/heavy"], ["-qphase_one/heavy"],
                    ["-Qphase_two/light"], ["-pbusy.c"], ["-pbusy.c:spin"], ["-p15"], ["-pspin", "-plight"],
                    ["--flat-profile=light", "--graph=main"], ["--no-flat-profile=spin", "--no-graph=main"],
                    ["-z", "-fmain"], ["-Pnosuch"], ["-pnosuch.c"]):
        compare(env, d, ["-b", *options], "symbols", ["gmon.out"])
    # By construction: phase_one and phase_two call heavy 8 and 4 times;
    # without phase_one's calls only phase_two's 4 are left.
    def heavy_calls(report):
        m = re.search(r"^\[\d+\]\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\d+)\s+heavy \[", report, re.M)
        return m and int(m.group(1))
    full = compare(env, d, ["-b", "-q"], "symbols", ["gmon.out"])
    cut = compare(env, d, ["-b", "-q", "-kphase_one/heavy"], "symbols", ["gmon.out"])
    expect(heavy_calls(full) == 12 and heavy_calls(cut) == 4,
           f"symbols: heavy called {heavy_calls(full)} times, {heavy_calls(cut)} without phase_one's; want 12, 4")
    only = compare(env, d, ["-b", "-pspin"], "symbols", ["gmon.out"])
    lines = [l for l in only.splitlines() if l.endswith("spin") or l.endswith("heavy")]
    # Only spin is credited: the samples of the others leave the total
    # (gprof's arithmetic can put spin a little above 100%, with or without -p).
    expect(len(lines) == 1 and lines[0].startswith("100."), f"symbols: -pspin should list spin alone at 100%: {lines}")
    # Cycles and self-recursion.
    d = env.build("symbols_cycle", "cycle.c", ["-O0"])
    env.profile(d, "symbols_cycle")
    for options in (["-qis_even"], ["-eis_even"], ["-Eis_odd"], ["-fping"], ["-Fpong"], ["-kis_even/is_odd"],
                    ["-kping/pong", "-kpong/ping"], ["-Qis_even/is_odd"], ["-qmain/ping"], ["-pis_even", "-Qping"]):
        compare(env, d, ["-b", *options], "symbols_cycle", ["gmon.out"])
    d = env.build("symbols_recursion", "recursion.c", ["-O0"])
    env.profile(d, "symbols_recursion")
    for options in (["-pfactorial"], ["-kfactorial/factorial"], ["-efactorial"], ["-Efib", "-z"]):
        compare(env, d, ["-b", *options], "symbols_recursion", ["gmon.out"])
    # Files as gprof names them, headers included (the DWARF 5 rule of
    # sc_headers decides which functions "headers.c" holds).
    d = env.build("symbols_headers", "headers.c", ["-O0", "-g"])
    env.profile(d, "symbols_headers")
    for options in (["-pheaders_first.h"], ["-qheaders.c"], ["-Qheaders_second.h"], ["-pheaders.c:mix"],
                    ["-Eheaders.c"], ["-kheaders.c/headers_second.h"], ["-qheaders.c:scramble"]):
        compare(env, d, ["-b", *options], "symbols_headers", ["gmon.out"])
    # C++: symbols are named as the symbol table names them (mangled).
    d = env.build("symbols_templates", "templates.cc", ["-O0"], cxx=True)
    env.profile(d, "symbols_templates")
    mangled = "-p_ZN6shapes18accumulate_squaresIiEET_RKSt6vectorIS1_SaIS1_EE"
    out = compare(env, d, ["-b", mangled], "symbols_templates", ["gmon.out"])
    expect("shapes::accumulate_squares<int>" in out, "symbols: mangled -p name not matched")


def line_sequences(env, d, exe):
    """The line table's sequences in program order: [(start, end, last row's file at end or None)]."""
    out = env.run(["objdump", "--dwarf=decodedline", exe], cwd=d).stdout.decode(errors="replace")
    seqs, rows = [], []
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+(\d+|-)\s+(0x[0-9a-f]+)", line)
        if not m:
            continue
        rows.append((m.group(1), int(m.group(3), 16)))
        if m.group(2) == "-":
            end = rows[-1][1]
            trailing = [f for f, a in rows[:-1] if a == end]
            seqs.append((rows[0][1], end, trailing[-1] if trailing else None))
            rows = []
    return seqs


def sc_comdat(env):
    # A member defined in its class is a weak COMDAT function in a section of
    # its own, which the linker puts right after the object's .text; where
    # .text's last function ends in a tail call out of inlined std::string
    # code, its line sequence has a zero-length last row of basic_string.h
    # at the very address area() starts at, and GCC emitted area()'s
    # sequence first. libdw's address-sorted rows then give that row for
    # area(): it was filed under basic_string.h, left out of -pcomdat.cc
    # (issue 32 item 10: 100.25% where gprof says 50.06%). gprof looks in
    # the sequence that starts there. NOPs in .text's last function move its
    # end onto area()'s start; which count does depends on the compiler.
    # g++-12 of Debian 12 needs 13: tried first, so that one build does on a
    # loaded machine (each is an -O2 compile of <string>).
    for pad in [13] + [p for p in range(16) if p != 13]:
        d = env.build("comdat", "comdat.cc", ["-O2", "-g", f"-DPAD=\"{pad}\""], cxx=True)
        nm = env.run(["nm", "comdat"], cwd=d).stdout.decode()
        area = int(next(l.split()[0] for l in nm.splitlines() if l.endswith(" _ZNK3geo6Circle4areaEv")), 16)
        seqs = line_sequences(env, d, "comdat")
        starts = [i for i, (start, _, _) in enumerate(seqs) if start == area]
        ending = [i for i, (_, end, trailing) in enumerate(seqs) if end == area and trailing]
        if starts and ending and starts[0] < ending[0]:
            break
    else:
        raise Failure("comdat: no padding put .text's end (with a trailing row) on area()'s start: "
                      "the layout this test needs could not be made with this compiler")
    env.profile(d, "comdat")
    for options in (["-b", "-pcomdat.cc"], ["-b", "-z", "-pcomdat.cc"], ["-b", "-Pcomdat.cc"], ["-b", "-qcomdat.cc"]):
        out = compare(env, d, options, "comdat", ["gmon.out"])
    only = compare(env, d, ["-b", "-pcomdat.cc"], "comdat", ["gmon.out"])
    expect("geo::Circle::area() const" in only, "comdat: area() not filed under comdat.cc")


def sc_layout(env):
    # -T (BSD layout: the call graph first, wider columns, milliseconds,
    # names neither demangled nor labelled with files in the index) and -w
    # (the index's width), alone and with other options.
    d = env.build("layout", "busy.c", ["-O0", "-g"])
    env.profile(d, "layout")
    for options in (["-T"], ["-T", "-p"], ["-T", "-q"], ["-T", "-z"], ["-T", "-pspin", "-Pmain"], ["-T", "-w50"],
                    ["--traditional"], ["-w40"], ["-w200", "-z"], ["-w1"], ["-wx"], ["-w-5"], ["--width=60"]):
        compare(env, d, ["-b", *options], "layout", ["gmon.out"])
    bsd = compare(env, d, ["-b", "-T"], "layout", ["gmon.out"])
    expect(bsd.index("called/total") < bsd.index("cumulative"), "layout: -T should print the call graph first")
    narrow = compare(env, d, ["-b", "-w40"], "layout", ["gmon.out"])
    wide = compare(env, d, ["-b"], "layout", ["gmon.out"])
    expect(narrow != wide, "layout: -w40 changed nothing")
    d = env.build("layout_cycle", "cycle.c", ["-O0"])
    env.profile(d, "layout_cycle")
    compare(env, d, ["-b", "-T"], "layout_cycle", ["gmon.out"])
    compare(env, d, ["-b", "-T", "-z", "-w30"], "layout_cycle", ["gmon.out"])
    d = env.build("layout_templates", "templates.cc", ["-O0"], cxx=True)
    env.profile(d, "layout_templates")
    out = compare(env, d, ["-b", "-T"], "layout_templates", ["gmon.out"])
    expect("_ZN6shapes18accumulate_squares" in out, "layout: -T should not demangle")
    compare(env, d, ["-b", "-w100"], "layout_templates", ["gmon.out"])


def sc_sum(env):
    d = env.build("sum", "busy.c", ["-O0"])
    env.profile(d, "sum", ["1000000"], gmon="gmon.1")
    env.profile(d, "sum", ["1500000"], gmon="gmon.2")
    both = compare_all(env, d, "sum", ("gmon.1", "gmon.2"))
    one = compare(env, d, ["-b"], "sum", ["gmon.1"])
    # By construction: each run calls phase_one 8 times.
    expect(" 16/16 " in both and " 16/16 " not in one, "sum: calls of the two runs not added up")
    # GMON PROG order, recognised by the magic.
    compare(env, d, ["-b"], "sum", ["gmon.1"], covkit_args=["-b", "gmon.1", "sum"])


def sum_file(env, d, tool, prog, gmons):
    """Runs TOOL -s (gprof or covkit) in d and returns the gmon.sum it wrote."""
    path = os.path.join(d, "gmon.sum")
    if os.path.exists(path):
        os.remove(path)
    cmd = ["gprof"] if tool == "gprof" else [env.covkit, "gprof"]
    p = env.run([*cmd, "-s", prog, *gmons], cwd=d)
    expect(p.stdout == b"", f"{tool} -s printed something")
    data = open(path, "rb").read()
    os.replace(path, os.path.join(d, f"{tool}.sum"))
    return data


def sc_gmon_sum(env):
    # -s: gmon.sum byte for byte as gprof writes it after the 20-byte header
    # (gprof's 12 spare bytes are whatever its stack held; covkit's are 0).
    # Its arcs are tallied on gprof's line symbols: -O0 -g and -O2 -g (with
    # inlined code) builds, and one without debug information.
    cases = (("gsum_g", "busy.c", ["-O0", "-g"], [["1000000"], ["1500000"]]),
             ("gsum_o2", "cycle.c", ["-O2", "-g"], [[], []]),
             ("gsum_nodebug", "recursion.c", ["-O0"], [[]]))
    for name, src, flags, runs in cases:
        d = env.build(name, src, flags)
        gmons = []
        for i, args in enumerate(runs):
            env.profile(d, name, args, gmon=f"gmon.{i}")
            gmons.append(f"gmon.{i}")
        want = sum_file(env, d, "gprof", name, gmons)
        got = sum_file(env, d, "covkit", name, gmons)
        expect(got[:4] == b"gmon" and len(got) == len(want) and got[20:] == want[20:],
               f"{name}: covkit's gmon.sum differs from gprof's after the header "
               f"(lengths {len(got)}, {len(want)}; first difference at byte "
               f"{next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), -1)})")
        # gprof reads covkit's sum as it reads its own; and as the inputs,
        # but for the order of lines that tie (it reorders arcs).
        from_covkit = env.run(["gprof", "-b", name, "covkit.sum"], cwd=d).stdout
        from_gprof = env.run(["gprof", "-b", name, "gprof.sum"], cwd=d).stdout
        from_inputs = env.run(["gprof", "-b", name, *gmons], cwd=d).stdout
        expect(from_covkit == from_gprof, f"{name}: gprof reads covkit's gmon.sum differently from its own")
        expect(sorted(from_covkit.splitlines()) == sorted(from_inputs.splitlines()),
               f"{name}: the sum's report has other lines than the inputs'")
        compare(env, d, ["-b"], name, ["covkit.sum"])
    bad(env, d, ["-s", "-p", name, "gmon.0"], "-s")
    bad(env, d, ["-s", "-kmain/fib", name, "gmon.0"], "-s")


def sc_odd_histograms(env):
    # Histograms gprof reads and reports on though they make no sense: a
    # high pc below the low pc (its samples credit no function, the
    # granularity wraps), no buckets ("no time accumulated"), both byte for
    # byte, also with -T and into gmon.sum. A bucket count set to 0 in place
    # leaves the buckets' bytes to be read as records: gprof and covkit both
    # refuse the file. A profiling rate of 0: gprof prints inf seconds with a
    # unit read past its table of SI prefixes; covkit prints the same
    # numbers in seconds and warns, naming the file.
    d = env.build("odd_histograms", "busy.c", ["-O0", "-g"])
    env.profile(d, "odd_histograms")
    data = open(os.path.join(d, "gmon.out"), "rb").read()
    expect(data[20] == 0, "odd_histograms: the first record is not a histogram")
    buckets = int.from_bytes(data[37:41], "little")
    variants = {
        "swapped.out": data[:21] + data[29:37] + data[21:29] + data[37:],
        "nobuckets.out": data[:37] + bytes(4) + data[41:61] + data[61 + 2 * buckets:],
        "zeroed.out": data[:37] + bytes(4) + data[41:],
        "rate0.out": data[:41] + bytes(4) + data[45:],
    }
    for name, content in variants.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(content)
    for name in ("swapped.out", "nobuckets.out"):
        compare_all(env, d, "odd_histograms", (name,))
        compare(env, d, ["-b", "-T"], "odd_histograms", [name])
        want = sum_file(env, d, "gprof", "odd_histograms", [name])
        got = sum_file(env, d, "covkit", "odd_histograms", [name])
        expect(got[20:] == want[20:], f"odd_histograms: covkit's gmon.sum of {name} differs from gprof's")
    out = compare(env, d, ["-b", "-p"], "odd_histograms", ["nobuckets.out"])
    expect(" no time accumulated" in out, "odd_histograms: no buckets should accumulate no time")
    # The bucket bytes read as records: what gprof refuses (usually: zero
    # bytes start a histogram of no dimension) covkit refuses in one line.
    if env.run(["gprof", "-b", "odd_histograms", "zeroed.out"], cwd=d, check=False).returncode != 0:
        bad(env, d, ["-b", "odd_histograms", "zeroed.out"], "zeroed.out")
    else:
        compare(env, d, ["-b"], "odd_histograms", ["zeroed.out"])
    # Rate 0: the same report but for the unit's prefix, and a warning.
    for options in (["-b"], ["-b", "-p"], ["-b", "-T"]):
        want = env.run(["gprof", *options, "odd_histograms", "rate0.out"], cwd=d).stdout.decode()
        got = env.run([env.covkit, "gprof", *options, "odd_histograms", "rate0.out"], cwd=d)
        err = got.stderr.decode()
        expect(got.returncode == 0, f"odd_histograms: covkit gprof {options} rate0.out exited {got.returncode}")
        expect(err.count("\n") == 1 and "rate0.out" in err and "warning" in err and "rate is 0" in err,
               f"odd_histograms: rate 0 should give one warning naming the file: {err!r}")
        text = got.stdout.decode()
        expect("inf" in text, "odd_histograms: rate 0 times should be inf")
        if "-T" not in options:
            expect(re.search(r"^ time .* calls   s/call   s/call  name", text, re.M) is not None,
                   f"odd_histograms: rate 0 per-call unit should be seconds:\n{text[:600]}")
            want = re.sub(r"^( time .*calls  ).(s/call  ).(s/call)", r"\1 \2 \3", want, flags=re.M)
        expect(text == want, f"odd_histograms: covkit gprof {options} rate0.out differs from gprof "
               f"beyond the unit:\n{text[:1500]}\n---\n{want[:1500]}")


def sc_formats(env):
    d = env.build("formats", "cycle.c", ["-O0"])
    env.profile(d, "formats")
    env.run([env.covkit, "gprof", "formats", "--format", "dot", "-o", "g.dot", "--threshold", "0"], cwd=d)
    dot = open(os.path.join(d, "g.dot")).read()
    expect(dot.startswith("digraph") and "is_even" in dot and "ping" in dot, "dot: graph or names missing")
    env.run([env.covkit, "gprof", "formats", "--format", "svg", "-o", "g.svg", "--threshold", "0"], cwd=d)
    root = ET.parse(os.path.join(d, "g.svg")).getroot()
    expect(root.tag.endswith("svg"), "svg: not SVG")
    env.run([env.covkit, "gprof", "formats", "--format", "callgrind", "-o", "callgrind.out.formats"], cwd=d)
    cg = open(os.path.join(d, "callgrind.out.formats")).read()
    expect("fn=" in cg and "calls=" in cg and "is_odd" in cg, "callgrind: functions or calls missing")


def overlapping_pads(d, src, dst, n, pad_bytes=0):
    """Copies program `src` to `dst` with a .zdebug_pad section ("ZLIB", a
    stated size of 0, then `pad_bytes` zeros) stretched to end where the
    section headers begin, and `n` more headers of that same section."""
    pad = os.path.join(d, dst + ".pad")
    with open(pad, "wb") as f:
        f.write(b"ZLIB" + bytes(8) + bytes(pad_bytes))
    subprocess.run(["objcopy", "--add-section", f".zdebug_pad={pad}", src, dst], cwd=d, check=True)
    elf = bytearray(open(os.path.join(d, dst), "rb").read())
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    names_at = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)[0]
    headers = [bytearray(elf[shoff + i * shentsize:shoff + (i + 1) * shentsize]) for i in range(shnum)]
    pad_header = next(h for h in headers if elf[names_at + struct.unpack_from("<I", h)[0]:].startswith(b".zdebug_pad\0"))
    offset, = struct.unpack_from("<Q", pad_header, 0x18)
    struct.pack_into("<Q", pad_header, 0x20, shoff - offset)
    at = len(elf) + (-len(elf) % 8)
    elf += bytes(at - len(elf))
    for h in headers + [pad_header] * n:
        elf += h
    struct.pack_into("<Q", elf, 0x28, at)
    struct.pack_into("<H", elf, 0x3c, shnum + n)
    open(os.path.join(d, dst), "wb").write(elf)


def bad(env, d, args, name_in_message):
    p = env.run([env.covkit, "gprof", *args], cwd=d, check=False)
    err = p.stderr.decode(errors="replace")
    expect(p.returncode == 1, f"covkit gprof {' '.join(args)}: exit {p.returncode}, want 1")
    expect(err.count("\n") == 1 and name_in_message in err, f"covkit gprof {' '.join(args)}: stderr {err!r}")
    expect(p.stdout == b"", f"covkit gprof {' '.join(args)}: wrote to stdout")


def sc_badinput(env):
    d = env.build("badinput", "recursion.c", ["-O0"])
    env.profile(d, "badinput")
    data = open(os.path.join(d, "gmon.out"), "rb").read()
    for cut in (3, 12, 30, 60, len(data) - 7):
        with open(os.path.join(d, f"cut{cut}.out"), "wb") as f:
            f.write(data[:cut])
        bad(env, d, ["-b", "badinput", f"cut{cut}.out"], f"cut{cut}.out")
    with open(os.path.join(d, "magic.out"), "wb") as f:
        f.write(b"nomg" + data[4:])
    bad(env, d, ["-b", "badinput", "magic.out"], "magic.out")
    with open(os.path.join(d, "tag.out"), "wb") as f:
        f.write(data + b"\x07")
    bad(env, d, ["-b", "badinput", "tag.out"], "tag.out")
    bad(env, d, ["-b", "badinput", "missing.out"], "missing.out")
    bad(env, d, ["-b", "nosuchprog", "gmon.out"], "nosuchprog")
    bad(env, d, ["-b", "gmon.out", "gmon.out"], "gmon.out")  # a gmon file is no program
    bad(env, d, ["-b", "-w20000", "badinput"], "-w")  # gigabytes of padding
    # gprof's options covkit does not implement are named, not ignored.
    for option in ("-l", "-A", "-Afile.c", "-C", "-r", "-y"):
        bad(env, d, ["-b", option, "badinput"], f"'{option[:2]}'")
    # A mistyped long option gets the one meant.
    bad(env, d, ["-b", "--widht=3", "badinput"], "unknown option '--widht=3'; did you mean '--width'?")
    # A decompression bomb: a .zdebug_str (GNU's compressed section, "ZLIB"
    # and its size) stating 1 GiB. libdw expanded every compressed debug
    # section whole, to the size stated: a program of 1 MB whose 1 GB of
    # zeros it held took 1 GB of covkit's memory. Refused before it is
    # expanded (a stream this short fails after the allocation; the stated
    # size is what is checked). Compressed debug information of an honest
    # size (objcopy's, gABI and GNU) still reads as the plain program's.
    d = env.build("debugbomb", "recursion.c", ["-O0", "-g"])
    env.profile(d, "debugbomb")
    stream = zlib.compress(bytes(1 << 20), 9)
    with open(os.path.join(d, "bomb.zdebug_str"), "wb") as f:
        f.write(b"ZLIB" + (1 << 30).to_bytes(8, "big") + stream)
    env.run(["objcopy", "--remove-section", ".debug_str", "--add-section", ".zdebug_str=bomb.zdebug_str",
             "debugbomb", "bomb"], cwd=d)
    bad(env, d, ["-b", "bomb", "gmon.out"], "bomb: its compressed debug sections would expand to 1073741824 bytes")
    # The same stated in a gABI section header (SHF_COMPRESSED, Elf64_Chdr):
    # objcopy's compressed .debug_info told it expands to 1 GiB.
    env.run(["objcopy", "--compress-debug-sections=zlib", "debugbomb", "bomb-gabi"], cwd=d)
    elf = bytearray(open(os.path.join(d, "bomb-gabi"), "rb").read())
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    names_at = struct.unpack_from("<Q", elf, shoff + shstrndx * shentsize + 0x18)[0]
    patched = 0
    for i in range(shnum):
        name, _, flags, _, offset = struct.unpack_from("<IIQQQ", elf, shoff + i * shentsize)
        if elf[names_at + name:].startswith(b".debug_info\0") and flags & 0x800:  # SHF_COMPRESSED
            struct.pack_into("<Q", elf, offset + 8, 1 << 30)  # ch_size
            patched += 1
    expect(patched == 1, "objcopy left .debug_info uncompressed")
    open(os.path.join(d, "bomb-gabi"), "wb").write(elf)
    bad(env, d, ["-b", "bomb-gabi", "gmon.out"], "bomb-gabi: its compressed debug sections would expand to 10737")
    plain = env.run([env.covkit, "gprof", "-b", "debugbomb", "gmon.out"], cwd=d).stdout
    # Section headers may all point at the same bytes: the bound is of the
    # file's bytes, each once. 40 more headers of a .zdebug_pad spanning the
    # file up to its section headers added 32 x 40 MB to the bound, and the
    # 1 GiB bomb beside them was read (1 GB of memory, review15).
    overlapping_pads(d, "bomb", "bomb-pads", 40, pad_bytes=1 << 20)
    bad(env, d, ["-b", "bomb-pads", "gmon.out"], "bomb-pads: its compressed debug sections would expand to")
    # The check reads each compressed section's header only: a file others
    # can change is read with pread (format/elf_open), and reading 1,000
    # headers' sections whole made 1,000 copies of the ~1 MB they share (1 GB).
    # Its peak memory stays far below that (the sanitizers' included), and
    # the report is the plain program's.
    overlapping_pads(d, "debugbomb", "many-pads", 1000, pad_bytes=1 << 20)
    if os.geteuid() == 0:
        os.chown(os.path.join(d, "many-pads"), 65534, 65534)
    timed = subprocess.run(["/usr/bin/time", "-f", "RSS %M", env.covkit, "gprof", "-b", "many-pads", "gmon.out"],
                           cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rss_kb = int(timed.stderr.splitlines()[-1].split()[1]) if "RSS " in timed.stderr else -1
    expect(timed.returncode == 0 and timed.stdout.encode() == plain and 0 < rss_kb < 300_000,
           f"covkit gprof of a program with 1,000 headers on one section: exit {timed.returncode}, "
           f"peak RSS {rss_kb} KB: {timed.stderr[-300:]}")
    for kind in ("zlib", "zlib-gnu"):
        env.run(["objcopy", f"--compress-debug-sections={kind}", "debugbomb", f"debugbomb-{kind}"], cwd=d)
        got = env.run([env.covkit, "gprof", "-b", f"debugbomb-{kind}", "gmon.out"], cwd=d).stdout
        expect(got == plain, f"covkit gprof of the program with {kind} debug sections differs from the plain one's")

SCENARIOS = {
    "recursion": sc_recursion, "cycle": sc_cycle, "fnptr": sc_fnptr, "busy_pie": sc_busy_pie,
    "busy_nopie": sc_busy_nopie, "static": sc_static, "templates": sc_templates, "headers": sc_headers,
    "trailing_row": sc_trailing_row, "comdat": sc_comdat, "symbols": sc_symbols, "layout": sc_layout, "sum": sc_sum, "gmon_sum": sc_gmon_sum, "odd_histograms": sc_odd_histograms,
    "formats": sc_formats,
    "badinput": sc_badinput,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--work", default="gprof-work")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("scenarios", nargs="+")
    args = ap.parse_args()
    names = list(SCENARIOS) if args.scenarios == ["all"] else args.scenarios
    env = Env(args)
    failed = 0
    for n in names:
        try:
            SCENARIOS[n](env)
            print(f"ok   {n}")
        except Failure as e:
            failed += 1
            print(f"FAIL {n}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
