#!/usr/bin/env python3
"""Tests of libcovkit-trace: small programs whose call counts, edges and
maximum depth are known by construction, compiled with -finstrument-functions
(gcc-12 PIE and -no-pie, clang/clang++ where the compilers differ), run with
LD_PRELOAD=libcovkit-trace.so (or linked with libcovkit-trace.a) and decoded
by decode_trace.py, the reference decoder of docs/trace-format.md.

With --hook mcount or --hook fentry the same scenarios build the programs
with gcc-12 -pg (or -pg -mfentry) instead, at -O0 and at -O2 with the calls
of the source kept (no inlining, sibling calls or pure-call removal: -pg
hooks only real calls, so only then are the known answers the binary's);
the pg_* scenarios check what is particular to -pg (return values through
the trampoline, gprof's gmon.out, uftrace's counts on fully optimized
binaries).

  run_trace_tests.py --lib build/libcovkit-trace.so --static-lib build/libcovkit-trace.a \\
      --work DIR [--hook cyg|mcount|fentry] SCENARIO...   (SCENARIO: see SCENARIOS below, or "all")

Exit 0 when every scenario passes, 1 on a failure, 77 when gcc-12 is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")
sys.path.insert(0, HERE)
import decode_trace  # noqa: E402

# Functions from system headers that clang instruments when it inlines them
# (glibc's atoi wrapper): not part of the programs' answers.
SYSTEM_INLINES = {"atoi", "atol", "strtol"}
CLONE_SUFFIX = re.compile(r"\.(constprop|isra|part|cold|lto_priv)\.\d+$")

# The instrumentation flags of each hook.
HOOK_FLAGS = {"cyg": ["-finstrument-functions"], "mcount": ["-pg"], "fentry": ["-pg", "-mfentry"]}
# -pg hooks the calls the compiled program makes; these keep those of the
# source when optimizing (with -finstrument-functions the hooks themselves
# keep them: inlined copies are instrumented, and hooked calls are never
# pure nor sibling calls).
PG_KEEP_CALLS = ["-fno-inline", "-fno-partial-inlining", "-fno-optimize-sibling-calls", "-fno-ipa-pure-const",
                 "-fno-ipa-icf"]


class Failure(Exception):
    pass


class Env:
    def __init__(self, args):
        self.lib = os.path.abspath(args.lib)
        self.static_lib = os.path.abspath(args.static_lib) if args.static_lib else None
        self.work = os.path.abspath(args.work)
        self.cc = {"gcc": shutil.which("gcc-12"), "g++": shutil.which("g++-12"),
                   "clang": shutil.which("clang"), "clang++": shutil.which("clang++")}
        self.verbose = args.verbose
        self.hook = args.hook

    @property
    def pg(self):
        return self.hook != "cyg"

    def dir(self, name):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def compile(self, out, compiler, sources, flags=(), link=(), hook=None, keep_calls=True):
        cc = self.cc[compiler]
        hook = hook or self.hook
        extra = list(HOOK_FLAGS[hook])
        if hook != "cyg" and keep_calls and any(f.startswith("-O") and f != "-O0" for f in flags):
            extra += PG_KEEP_CALLS
        cmd = [cc] + extra + ["-g0"] + list(flags) + \
            [os.path.join(PROGS, s) for s in sources] + ["-o", out] + list(link)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise Failure(f"compile failed: {' '.join(cmd)}\n{r.stderr}")
        return out

    def run(self, exe, args=(), trace_dir=None, preload=True, extra_env=None, cwd=None, expect_rc=0):
        env = {k: v for k, v in os.environ.items() if not k.startswith("COVKIT_TRACE")}
        env.pop("LD_PRELOAD", None)
        if preload:
            env["LD_PRELOAD"] = self.lib
        if trace_dir:
            env["COVKIT_TRACE_DIR"] = trace_dir
        env.update(extra_env or {})
        r = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True, env=env,
                           cwd=cwd, timeout=60)
        if expect_rc is not None and r.returncode != expect_rc:
            raise Failure(f"{exe} {args}: exit {r.returncode}, expected {expect_rc}\n{r.stderr}")
        return r


def decode(d, allow_errors=False):
    res = decode_trace.decode_dir(d)
    if res["errors"] and not allow_errors:
        raise Failure("decoder errors:\n  " + "\n  ".join(res["errors"]))
    return res


def norm(name):
    return CLONE_SUFFIX.sub("", name)


def summary(thread):
    """calls and edges without system inlines, GCC clone suffixes merged."""
    calls, edges = {}, {}
    for n, c in thread["calls"].items():
        n = norm(n)
        if n not in SYSTEM_INLINES:
            calls[n] = calls.get(n, 0) + c
    for e, c in thread["edges"].items():
        a, b = (norm(x) for x in e.split(" -> "))
        if b not in SYSTEM_INLINES:
            edges[f"{a} -> {b}"] = edges.get(f"{a} -> {b}", 0) + c
    return calls, edges


def expect_eq(what, got, want):
    if got != want:
        if isinstance(got, dict) and isinstance(want, dict):
            diff = {k: (got.get(k), want.get(k)) for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)}
            raise Failure(f"{what}: got != want on {diff}")
        raise Failure(f"{what}: got {got!r}, want {want!r}")


def one_process(res):
    if len(res["processes"]) != 1:
        raise Failure(f"expected one process, got {[p['pid'] for p in res['processes']]}")
    return res["processes"][0]


def one_thread(proc):
    if len(proc["threads"]) != 1:
        raise Failure(f"expected one thread, got {[t['tid'] for t in proc['threads']]}")
    return proc["threads"][0]


def check_thread(label, t, calls, edges, max_depth, ended=True, lost=0):
    got_calls, got_edges = summary(t)
    expect_eq(f"{label}: calls", got_calls, calls)
    expect_eq(f"{label}: edges", got_edges, edges)
    expect_eq(f"{label}: max depth", t["max_depth"], max_depth)
    if lost is not None:
        expect_eq(f"{label}: lost", t["lost"], lost)
    expect_eq(f"{label}: ended", t["ended"] and t["end_event"], ended)
    if ended:
        expect_eq(f"{label}: frames open at the end", t["open_at_end"], [])
        expect_eq(f"{label}: truncated", t["truncated"], False)


def without_preempted(t, name, most):
    """`t` with the calls of `name` (and its edges) taken out when there are
    at most `most` of them, for a check whose timing a busy machine can
    stretch; more than that stays, and fails the check."""
    calls, _ = summary(t)
    if calls.get(name, 0) > most:
        return t
    out = dict(t)
    out["calls"] = {n: c for n, c in t["calls"].items() if norm(n) != name}
    out["edges"] = {e: c for e, c in t["edges"].items() if norm(e.split(" -> ")[1]) != name}
    return out


def variants(env, cxx=False, pie_variants=True):
    """(label, compiler, flags) for gcc-12 (PIE, -no-pie) and clang (not
    with -pg: gcc's -pg is the one tested)."""
    gcc, clang = ("g++", "clang++") if cxx else ("gcc", "clang")
    out = [(f"{gcc}-O0", gcc, ["-O0"]), (f"{gcc}-O2", gcc, ["-O2"])]
    if pie_variants:
        out.append((f"{gcc}-O2-nopie", gcc, ["-O2", "-fno-pie", "-no-pie"]))
    if env.pg:
        return out
    if env.cc[clang]:
        out += [(f"{clang}-O0", clang, ["-O0"]), (f"{clang}-O2", clang, ["-O2"])]
    return out


def few_variants(env):
    """gcc -O2 and clang -O2; with -pg gcc -O0 and -O2."""
    return variants(env, pie_variants=False) if env.pg else variants(env, pie_variants=False)[1::3]


def fib_calls(k):
    a, b = 0, 1  # calls(k) = 2*fib(k+1) - 1
    for _ in range(k + 1):
        a, b = b, a + b
    return 2 * a - 1


# ---------------------------------------------------------------- scenarios

def t_recursion(env):
    n, k = 50, 15
    want_calls = {"main": 1, "rec": n, "fib": fib_calls(k)}
    want_edges = {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": n - 1, "main -> fib": 1,
                  "fib -> fib": fib_calls(k) - 1}
    d = env.dir("recursion")
    for label, cc, flags in variants(env):
        exe = env.compile(os.path.join(d, f"rec-{label}"), cc, ["recursion.c"], flags)
        tr = os.path.join(d, f"trace-{label}")
        r = env.run(exe, [n, k], tr)
        expect_eq(f"{label}: output", r.stdout, "610\n")
        proc = one_process(decode(tr))
        t = one_thread(proc)
        check_thread(label, t, want_calls, want_edges, n + 1)
        expect_eq(f"{label}: process end", proc["end"], True)
        expect_eq(f"{label}: hook lines", proc["hooks"], [env.hook] if env.pg else [])
        expect_eq(f"{label}: thread name", t["name"], os.path.basename(exe)[:15])
        if proc["exe"] != exe:
            raise Failure(f"{label}: exe {proc['exe']}")
        if proc["clock"] != "tsc" and open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip() == "tsc":
            print(f"  note: clock {proc['clock']} on a tsc clocksource")
    # Small chunks (many rollovers, events across chunk boundaries) and the
    # CLOCK_MONOTONIC fallback.
    exe = env.compile(os.path.join(d, "rec-chunks"), "gcc", ["recursion.c"], ["-O2"])
    for label, extra in (("chunk16k", {"COVKIT_TRACE_CHUNK_KB": "16"}), ("mono", {"COVKIT_TRACE_CLOCK": "mono"})):
        tr = os.path.join(d, f"trace-{label}")
        kk = 20
        env.run(exe, [n, kk], tr, extra_env=extra)
        proc = one_process(decode(tr))
        t = one_thread(proc)
        check_thread(label, t, {"main": 1, "rec": n, "fib": fib_calls(kk)},
                     {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": n - 1, "main -> fib": 1,
                      "fib -> fib": fib_calls(kk) - 1}, max(n, kk) + 1)
        if label == "mono":
            expect_eq("mono: clock", proc["clock"], "mono")
        elif t["data_bytes"] < 4 * 16384:
            raise Failure(f"chunk16k: only {t['data_bytes']} bytes, no rollover tested")


def t_realigned(env):
    """A function that realigns its stack, called from one site with the
    incoming stack pointer moved by 16 bytes each time and stale copies of
    its return address left in its frame's memory, with a copy of another
    function inlined in it: the copy's hooks must get the host's slot, or
    its enter closes the host's frame and the host's exit is lost (14 or 15
    of 16 lost before the fix, whatever the initial alignment)."""
    n = 16
    want_calls = {"main": 1, "caller": n, "plant": n - 1, "realigned": n, "part": n}
    want_edges = {"<root> -> main": 1, "main -> caller": n, "caller -> plant": n - 1,
                  "caller -> realigned": n, "realigned -> part": n}
    # part() doubles the byte realigned() fills its buffer with: (16 i) mod 64.
    want_out = f"{sum(2 * (16 * i & 63) for i in range(n))}\n"
    d = env.dir("realigned")
    for label, cc, flags in variants(env):
        exe = env.compile(os.path.join(d, f"realigned-{label}"), cc, ["realigned.c"], flags)
        tr = os.path.join(d, f"trace-{label}")
        r = env.run(exe, [n], tr)
        expect_eq(f"{label}: output", r.stdout, want_out)
        check_thread(label, one_thread(one_process(decode(tr))), want_calls, want_edges, 4)


def t_exceptions(env):
    rounds, depth = 3, 5
    want_calls = {"main": 1, "catcher": rounds, "thrower": rounds * (depth + 1) + 2 * 3,
                  "after": (rounds + 1) // 2, "tail": 1, "run_callbacks": 1, "cb_throw": 2, "cb_ok": 2}
    want_edges = {"<root> -> main": 1, "main -> catcher": rounds, "catcher -> thrower": rounds,
                  "thrower -> thrower": rounds * depth + 2 * 2, "catcher -> after": (rounds + 1) // 2,
                  "main -> tail": 1, "main -> run_callbacks": 1, "run_callbacks -> cb_throw": 2,
                  "run_callbacks -> cb_ok": 2, "cb_throw -> thrower": 2}
    d = env.dir("exceptions")
    for label, cc, flags in variants(env, cxx=True):
        exe = env.compile(os.path.join(d, f"exc-{label}"), cc, ["exceptions.cc"], flags)
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [rounds, depth], tr)
        t = one_thread(one_process(decode(tr)))
        check_thread(label, t, want_calls, want_edges, 2 + depth + 1)


def t_longjmp(env):
    rounds, depth = 3, 10
    want_calls = {"main": 1, "a": rounds + 5, "b": rounds + 5, "c": rounds + 5, "d": rounds + 3, "jumper": 2,
                  "rl": depth, "via_pointer": 1, "e": 2}
    want_edges = {"<root> -> main": 1, "main -> a": rounds + 1, "a -> b": rounds + 5, "b -> c": rounds + 5,
                  "main -> d": rounds + 1, "main -> jumper": 2, "jumper -> a": 2, "jumper -> d": 2,
                  "main -> rl": 1, "rl -> rl": depth - 1, "main -> via_pointer": 1, "via_pointer -> a": 2,
                  "via_pointer -> e": 2}
    d = env.dir("longjmp")
    for label, cc, flags in variants(env):
        exe = env.compile(os.path.join(d, f"lj-{label}"), cc, ["longjmp.c"], flags)
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [rounds, depth], tr)
        t = one_thread(one_process(decode(tr)))
        check_thread(label, t, want_calls, want_edges, depth + 1)


def t_threads(env):
    n = 3
    d = env.dir("threads")
    for label, cc, flags in few_variants(env):
        exe = env.compile(os.path.join(d, f"thr-{label}"), cc, ["threads.c"], flags + ["-pthread"])
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [n], tr)
        proc = one_process(decode(tr))
        threads = proc["threads"]
        expect_eq(f"{label}: streams", len(threads), n + 2)
        expect_eq(f"{label}: distinct tids", len({t["tid"] for t in threads}), n + 2)
        by_name = {t["name"]: t for t in threads}
        main = [t for t in threads if t["tid"] == proc["pid"]]
        if not main:
            raise Failure(f"{label}: no stream for the main thread")
        check_thread(f"{label} main", main[0], {"main": 1}, {"<root> -> main": 1}, 1)
        for i in range(n):
            t = by_name.get(f"worker-{i}")
            if t is None:
                raise Failure(f"{label}: no thread named worker-{i} in {sorted(by_name)}")
            check_thread(f"{label} worker-{i}", t, {"worker": 1, "work": i + 1},
                         {"<root> -> worker": 1, "worker -> work": i + 1}, 2)
        t = by_name.get("quitter")
        if t is None:
            raise Failure(f"{label}: no thread named quitter")
        # pthread_exit from level2: the runtime closes the three frames.
        check_thread(f"{label} quitter", t, {"quitter": 1, "level1": 1, "level2": 1},
                     {"<root> -> quitter": 1, "quitter -> level1": 1, "level1 -> level2": 1}, 3)


def t_fork(env):
    d = env.dir("fork")
    for label, cc, flags in few_variants(env):
        exe = env.compile(os.path.join(d, f"fork-{label}"), cc, ["forking.c"], flags)
        tr = os.path.join(d, f"trace-{label}")
        r = env.run(exe, [], tr)
        child_pid = int(r.stdout.split()[1])
        res = decode(tr)
        procs = {p["pid"]: p for p in res["processes"]}
        if len(procs) != 2 or child_pid not in procs:
            raise Failure(f"{label}: processes {sorted(procs)}, child {child_pid}")
        child = procs[child_pid]
        parent = [p for p in procs.values() if p["pid"] != child_pid][0]
        expect_eq(f"{label}: child ppid", child["ppid"], parent["pid"])
        expect_eq(f"{label}: parent fork lines", [c for _, c in parent["forks"]], [child_pid])
        expect_eq(f"{label}: child end", child["end"], True)
        expect_eq(f"{label}: parent end", parent["end"], True)
        if parent["forks"][0][0] <= 0:
            raise Failure(f"{label}: fork time {parent['forks']}")
        pt = one_thread(parent)
        check_thread(f"{label} parent", pt, {"main": 1, "f1": 1, "f2": 1, "h": 1},
                     {"<root> -> main": 1, "main -> f1": 1, "f1 -> f2": 1, "main -> h": 1}, 3)
        ct = one_thread(child)
        expect_eq(f"{label}: child initial stack", [norm(x) for x in ct["initial_stack"]], ["main", "f1", "f2"])
        # The child returns through the inherited frames: exits without enters.
        check_thread(f"{label} child", ct, {"g": 1}, {"f2 -> g": 1}, 4)
        expect_eq(f"{label}: child events", ct["events"], 2 + 3)


def t_vfork(env):
    # A vfork child runs on its parent's memory (its thread's state too)
    # until it execs or exits: its calls must not land in the parent's
    # stream, and its exit() must not end the parent's trace. The child is
    # not traced (an exec'd instrumented program would be, as a process of
    # its own; /bin/true is not instrumented).
    d = env.dir("vfork")
    for label, cc, flags in few_variants(env):
        exe = env.compile(os.path.join(d, f"vfork-{label}"), cc, ["vforking.c"], flags)
        for how in ("_exit", "exit", "exec"):
            tr = os.path.join(d, f"trace-{label}-{how}")
            r = env.run(exe, [how], tr)
            expect_eq(f"{label} {how}: output", r.stdout, f"{how} 0\n")
            proc = one_process(decode(tr))
            # exit() in a vfork child (which POSIX forbids) runs the
            # parent's atexit handlers and destructors, the runtime's among
            # them, which then do not run in the parent: its trace ends as
            # a killed program's, main still open, every call kept.
            ended = how != "exit"
            expect_eq(f"{label} {how}: process end", proc["end"], ended)
            check_thread(f"{label} {how}", one_thread(proc), {"main": 1, "spawn": 2, "h": 1},
                         {"<root> -> main": 1, "main -> spawn": 2, "main -> h": 1}, 2, ended=ended)


def t_exit_deep(env):
    d = env.dir("exit_deep")
    for label, cc, flags in few_variants(env):
        exe = env.compile(os.path.join(d, f"exit-{label}"), cc, ["exit_deep.c"], flags)
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [], tr, expect_rc=3)
        proc = one_process(decode(tr))
        expect_eq(f"{label}: process end", proc["end"], True)
        t = one_thread(proc)
        # exit() runs the atexit handler inside c; the runtime then closes
        # c, b, a, main at the process end.
        check_thread(label, t, {"main": 1, "a": 1, "b": 1, "c": 1, "handler": 1, "cleanup": 1},
                     {"<root> -> main": 1, "main -> a": 1, "a -> b": 1, "b -> c": 1, "c -> handler": 1,
                      "handler -> cleanup": 1}, 6)


def t_dlopen(env):
    d = env.dir("dlopen")
    for label, cc, flags in few_variants(env):
        plug = os.path.join(d, f"plugin-{label}.so")
        env.compile(plug, cc, ["plugin.c"], flags + ["-fPIC", "-shared"])
        exe = env.compile(os.path.join(d, f"dl-{label}"), cc, ["dlopen_main.c"], flags, ["-ldl"])
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [plug], tr)
        proc = one_process(decode(tr))
        if plug not in proc["modules"]:
            raise Failure(f"{label}: {plug} not among the modules {proc['modules']}")
        t = one_thread(proc)
        calls, edges = summary(t)
        # call() is static and may be inlined (then its copy is still traced).
        check_thread(label, t, {"main": 1, "call": 2, "plug_entry": 2, "plug_inner": 7, "local": 1},
                     {"<root> -> main": 1, "main -> call": 2, "call -> plug_entry": 2,
                      "plug_entry -> plug_inner": 7, "main -> local": 1}, 4)


def t_static(env):
    if not env.static_lib:
        raise Failure("no --static-lib")
    d = env.dir("static")
    n, k = 30, 12
    for label, flags in (("pie", ["-O2"]), ("nopie", ["-O2", "-fno-pie", "-no-pie"])):
        exe = env.compile(os.path.join(d, f"rec-static-{label}"), "gcc", ["recursion.c"], flags,
                          [env.static_lib, "-pthread"])
        # Without COVKIT_TRACE_DIR: runs, writes nothing.
        cwd = os.path.join(d, f"cwd-{label}")
        os.makedirs(cwd)
        r = env.run(exe, [n, k], None, preload=False, cwd=cwd)
        expect_eq(f"static {label}: output", r.stdout, "144\n")
        # A -pg program's start file writes gprof's gmon.out whatever the runtime does.
        expect_eq(f"static {label}: files written without COVKIT_TRACE_DIR", os.listdir(cwd),
                  ["gmon.out"] if env.pg else [])
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [n, k], tr, preload=False)
        t = one_thread(one_process(decode(tr)))
        check_thread(f"static {label}", t, {"main": 1, "rec": n, "fib": fib_calls(k)},
                     {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": n - 1, "main -> fib": 1,
                      "fib -> fib": fib_calls(k) - 1}, n + 1)


def t_ctor_dtor(env):
    d = env.dir("ctor_dtor")
    want_calls = {"ctor": 1, "in_ctor": 1, "main": 1, "at_exit_fn": 1, "dtor": 1, "in_dtor": 1}
    want_edges = {"<root> -> ctor": 1, "ctor -> in_ctor": 1, "<root> -> main": 1, "<root> -> at_exit_fn": 1,
                  "<root> -> dtor": 1, "dtor -> in_dtor": 1}
    builds = [(label, cc, flags, [], True) for label, cc, flags in few_variants(env)]
    if env.static_lib:
        builds.append(("gcc-static", "gcc", ["-O2"], [env.static_lib, "-pthread"], False))
    for label, cc, flags, link, preload in builds:
        exe = env.compile(os.path.join(d, f"cd-{label}"), cc, ["ctor_dtor.c"], flags, link)
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [], tr, preload=preload)
        proc = one_process(decode(tr))
        expect_eq(f"{label}: process end", proc["end"], True)
        check_thread(label, one_thread(proc), want_calls, want_edges, 2)


def t_inert(env):
    d = env.dir("inert")
    exe = env.compile(os.path.join(d, "rec"), "gcc", ["recursion.c"], ["-O2"])
    cwd = os.path.join(d, "cwd")
    os.makedirs(cwd)
    r = env.run(exe, [10, 10], None, cwd=cwd)
    expect_eq("inert: output", r.stdout, "55\n")
    expect_eq("inert: files", os.listdir(cwd), [])
    # An unwritable directory: a warning, the program runs normally.
    r = env.run(exe, [10, 10], "/proc/covkit-no-such-dir", cwd=cwd)
    expect_eq("inert (bad dir): output", r.stdout, "55\n")
    if "covkit-trace" not in r.stderr:
        raise Failure(f"inert (bad dir): no warning on stderr: {r.stderr!r}")
    # The library exports the hooks, the unwinding entry points it wraps for
    # -pg frames (unwind_hooks.c), dlclose (unload_hooks.c), vfork
    # (vfork_entry.S) and the patch table covkit trace attach reads
    # (patch_sites.c) only, and never calls a hook itself.
    out = subprocess.run(["nm", "-D", "--defined-only", env.lib], capture_output=True, text=True).stdout
    exported = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
    expect_eq("exported symbols", exported,
              ["_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow", "__cxa_begin_catch", "__cyg_profile_func_enter",
               "__cyg_profile_func_exit", "__fentry__", "_mcount", "ckt_patch_table", "dlclose", "mcount",
               "pthread_exit", "vfork"])
    out = subprocess.run(["objdump", "-d", env.lib], capture_output=True, text=True).stdout
    calls = [line for line in out.splitlines() if re.search(r"call.*(__cyg_profile|mcount|__fentry__)", line)]
    expect_eq("hook calls inside the runtime", calls, [])


def t_limits(env):
    d = env.dir("limits")
    exe = env.compile(os.path.join(d, "limits"), "gcc", ["limits.c"], ["-O2"])
    tr = os.path.join(d, "trace-depth")
    env.run(exe, [20], tr, extra_env={"COVKIT_TRACE_MAX_DEPTH": "5"})
    t = one_thread(one_process(decode(tr)))
    check_thread("max depth 5", t, {"main": 1, "rec": 4, "quick": 1001, "slow": 1, "busy": 1},
                 {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": 3, "main -> quick": 1000,
                  "main -> slow": 1, "main -> busy": 1, "busy -> quick": 1}, 5)
    tr = os.path.join(d, "trace-time")
    env.run(exe, [20], tr, extra_env={"COVKIT_TRACE_MIN_TIME_NS": "1000000"})
    t = one_thread(one_process(decode(tr)))
    # A quick() call preempted for a millisecond on a busy machine (CI runs
    # tests side by side) lasted 1 ms and is rightly written: a few may be,
    # each as long as the check below demands.
    check_thread("min time 1 ms", without_preempted(t, "quick", 10), {"main": 1, "slow": 1, "busy": 1},
                 {"<root> -> main": 1, "main -> slow": 1, "main -> busy": 1}, 2)
    if t["min_leaf_ns"] is None or t["min_leaf_ns"] < 1e6:
        raise Failure(f"min time: a leaf call of {t['min_leaf_ns']} ns was written")
    tr = os.path.join(d, "trace-both")
    env.run(exe, [20], tr, extra_env={"COVKIT_TRACE_MIN_TIME_NS": "1", "COVKIT_TRACE_MAX_DEPTH": "3"})
    t = one_thread(one_process(decode(tr)))
    check_thread("min time 1 ns, depth 3", t, {"main": 1, "rec": 2, "quick": 1001, "slow": 1, "busy": 1},
                 {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": 1, "main -> quick": 1000,
                  "main -> slow": 1, "main -> busy": 1, "busy -> quick": 1}, 3)


def t_signals(env):
    d = env.dir("signals")
    exe = env.compile(os.path.join(d, "sig"), "gcc", ["signals.c"], ["-O2"])
    tr = os.path.join(d, "trace")
    r = env.run(exe, [], tr)
    handled = int(r.stdout.split()[1])
    t = one_thread(one_process(decode(tr)))
    calls, edges = summary(t)
    recorded = calls.get("on_signal", 0)
    expect_eq("signals: fib calls", calls.get("fib"), 20 * fib_calls(18))
    # A handler that arrives inside a hook loses its enter and its exit.
    expect_eq("signals: handler calls recorded + lost/2", recorded + t["lost"] / 2, handled)
    expect_eq("signals: open frames", t["open_at_end"], [])
    print(f"  signals: {handled} handler calls, {recorded} recorded, {t['lost']} events lost")


def t_crash(env):
    d = env.dir("crash")
    exe = env.compile(os.path.join(d, "crash"), "gcc", ["crash.c"], ["-O2"])
    depth = 40
    for mode, label, rc in ((0, "_exit", 0), (1, "SIGSEGV", -11), (2, "SIGKILL", -9)):
        tr = os.path.join(d, f"trace-{label}")
        env.run(exe, [depth, mode], tr, expect_rc=rc)
        proc = one_process(decode(tr))
        expect_eq(f"{label}: process end", proc["end"], False)
        t = one_thread(proc)
        check_thread(label, t, {"main": 1, "rec": depth}, {"<root> -> main": 1, "main -> rec": 1,
                                                            "rec -> rec": depth - 1}, depth + 1, ended=False)
        expect_eq(f"{label}: open frames", len(t["open_at_end"]), depth + 1)


def t_overflow(env):
    cap = 1 << 18  # CKT_STACK_CAP in src/runtime/trace/thread_state.h
    depth = cap + 8000
    d = env.dir("overflow")
    exe = env.compile(os.path.join(d, "deep"), "gcc", ["deep_stack.c"], ["-O0", "-pthread"])
    tr = os.path.join(d, "trace")
    r = env.run(exe, [depth], tr)
    expect_eq("overflow: output", r.stdout, f"{depth}\n")
    proc = one_process(decode(tr))
    worker = [t for t in proc["threads"] if t["tid"] != proc["pid"]]
    if len(worker) != 1:
        raise Failure(f"overflow: threads {[t['tid'] for t in proc['threads']]}")
    tracked = cap - 1  # run() takes the first frame
    check_thread("overflow", worker[0], {"run": 1, "rec": tracked, "after": 1},
                 {"<root> -> run": 1, "run -> rec": 1, "rec -> rec": tracked - 1, "run -> after": 1}, cap,
                 lost=2 * (depth - tracked))


def t_planted(env):
    """A symlink planted under the runtime's file names (a trace directory
    another user can write to) must not make the program open, truncate or
    chmod its target, and the process's umask must hold."""
    d = env.dir("planted")
    exe = env.compile(os.path.join(d, "rec"), "gcc", ["recursion.c"], ["-O2"])
    victim = os.path.join(d, "victim")
    with open(victim, "w") as f:
        f.write("secret\n")
    os.chmod(victim, 0o600)
    tr = os.path.join(d, "trace")
    os.makedirs(tr)
    # $$ is the pid the program keeps through exec.
    script = 'ln -s "$1" "$2/$$.meta"; ln -s "$1" "$2/$$-$$.ckt"; shift 2; exec "$@"'
    r = env.run("sh", ["-c", script, "sh", victim, tr, exe, 20, 10], tr)
    expect_eq("planted: output", r.stdout, "55\n")
    with open(victim, "rb") as f:
        expect_eq("planted: victim content", f.read()[:32], b"secret\n")
    expect_eq("planted: victim mode", oct(os.stat(victim).st_mode & 0o777), oct(0o600))
    res = decode(tr, allow_errors=True)
    proc = one_process(res)
    expect_eq("planted: image name (the planted names are skipped)", proc["image"], f"{proc['pid']}.1")
    check_thread("planted", one_thread(proc), {"main": 1, "rec": 20, "fib": fib_calls(10)},
                 {"<root> -> main": 1, "main -> rec": 1, "rec -> rec": 19, "main -> fib": 1,
                  "fib -> fib": fib_calls(10) - 1}, 21)
    # The umask of the process decides the files' modes (no chmod).
    tr = os.path.join(d, "trace-umask")
    env.run("sh", ["-c", 'umask 077; exec "$@"', "sh", exe, 5, 5], tr)
    modes = {n: oct(os.stat(os.path.join(tr, n)).st_mode & 0o777) for n in os.listdir(tr)}
    expect_eq("umask 077: modes", set(modes.values()), {oct(0o600)})


def t_exec(env):
    """exec keeps the pid; each image keeps its own files."""
    d = env.dir("exec")
    exe = env.compile(os.path.join(d, "exec_self"), "gcc", ["exec_self.c"], ["-O1"])
    tr = os.path.join(d, "trace")
    r = env.run(exe, [], tr)
    expect_eq("exec: output", r.stdout, "before\nafter\n")
    res = decode(tr)
    images = {p["image"]: p for p in res["processes"]}
    pid = res["processes"][0]["pid"]
    expect_eq("exec: images", sorted(images), [str(pid), f"{pid}.1"])
    first, second = one_thread(images[str(pid)]), one_thread(images[f"{pid}.1"])
    calls, _ = summary(first)
    expect_eq("exec: first image calls", calls, {"main": 1, "before": 2, "go": 1})
    expect_eq("exec: first image open at exec", [norm(x) for x in first["open_at_end"]], ["main", "go"])
    check_thread("exec: second image", second, {"main": 1, "after": 3}, {"<root> -> main": 1, "main -> after": 3}, 2)


def run_fib_limited(env, d, wrap, label, tr, out_dir=None, private_mounts=False):
    """fib(25) (242785 calls, ~700 KiB of trace) under a wrapper that limits
    the space; the program's output and status must not change and the trace
    must say that events were lost."""
    exe = os.path.join(d, "rec")
    if not os.path.exists(exe):
        env.compile(exe, "gcc", ["recursion.c"], ["-O2"])
    cmd = ["sh", "-c", wrap, "sh", exe, 30, 25]
    if private_mounts:
        cmd = ["unshare", "-m", "--propagation", "private"] + cmd
    r = env.run(cmd[0], cmd[1:], tr, extra_env={"COVKIT_TRACE_CHUNK_KB": "16"}, expect_rc=None)
    expect_eq(f"{label}: exit status", r.returncode, 0)
    expect_eq(f"{label}: output", r.stdout, "75025\n")
    expect_eq(f"{label}: stderr", r.stderr, "")
    t = one_thread(one_process(decode(out_dir or tr)))
    if t["lost"] == 0:
        raise Failure(f"{label}: no lost events in a trace that could not fit")
    expect_eq(f"{label}: ended", t["ended"] and t["end_event"], True)
    expect_eq(f"{label}: header counts", t["header_counts"] is not None, True)
    calls, _ = summary(t)
    if not 0 < calls.get("fib", 0) < fib_calls(25):
        raise Failure(f"{label}: {calls.get('fib')} fib calls written")
    return t


def t_full_disk(env):
    d = env.dir("full_disk")
    # RLIMIT_FSIZE (ulimit -f, in KiB): growing a file past it is SIGXFSZ.
    tr = os.path.join(d, "trace-ulimit")
    t = run_fib_limited(env, d, 'ulimit -f 256; exec "$@"', "ulimit -f 256", tr)
    size = max(os.path.getsize(os.path.join(tr, n)) for n in os.listdir(tr))
    if size > 256 * 1024:
        raise Failure(f"ulimit: a file of {size} bytes")
    print(f"  ulimit -f 256: {t['enters']} calls written, {t['lost']} events lost")
    # A really full file system: a 512 KiB tmpfs in a private mount namespace
    # (root only); the trace is copied out before the namespace goes.
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        print("  note: unshare -m not permitted: the full tmpfs case is skipped")
        return
    tr = os.path.join(d, "trace-tmpfs")
    out = os.path.join(d, "trace-tmpfs-copy")
    os.makedirs(tr)
    os.makedirs(out)
    wrap = ('mount -t tmpfs -o size=512k covkit-full "$COVKIT_TRACE_DIR" || exit 99; '
            '"$@"; rc=$?; cp -a "$COVKIT_TRACE_DIR"/. ' + out + '; exit $rc')
    t = run_fib_limited(env, d, wrap, "full tmpfs", tr, out_dir=out, private_mounts=True)
    print(f"  full tmpfs: {t['enters']} calls written, {t['lost']} events lost")


def t_still_running(env):
    """Threads still running at the process end: their open calls stay in the
    trace, also under min time, and their names as they are at the end."""
    d = env.dir("still_running")
    exe = env.compile(os.path.join(d, "still"), "gcc", ["still_running.c"], ["-O1", "-pthread"])
    for label, extra in (("plain", {}), ("min time 1 ms", {"COVKIT_TRACE_MIN_TIME_NS": "1000000"})):
        tr = os.path.join(d, "trace-" + label.replace(" ", "-"))
        r = env.run(exe, [], tr, extra_env=extra)
        expect_eq(f"{label}: output", r.stdout, "done\n")
        proc = one_process(decode(tr))
        waiter = [t for t in proc["threads"] if t["name"] == "late-name"]
        if len(waiter) != 1:
            raise Failure(f"{label}: thread names {[t['name'] for t in proc['threads']]}, no 'late-name'")
        w = waiter[0]
        expect_eq(f"{label}: waiter open at the end", [norm(x) for x in w["open_at_end"]], ["waiter", "blocker"])
        calls, _ = summary(without_preempted(w, "quick", 1) if extra else w)  # see t_limits
        want = {"waiter": 1, "blocker": 1} if extra else {"waiter": 1, "blocker": 1, "quick": 1}
        expect_eq(f"{label}: waiter calls", calls, want)


def t_layers(env):
    """The runtime's files include one another in the one-way order of
    src/runtime/README.md ("Include order"): a file includes only files of
    earlier lines (and its own header)."""
    root = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "runtime")
    readme = open(os.path.join(root, "README.md")).read()
    section = readme.split("## Include order", 1)[1].split("\n\n")
    block = next(b for b in section if b.startswith("    "))  # the indented list
    layer = {}
    for i, line in enumerate(block.splitlines()):
        for name in line.replace(",", " ").split():
            layer[name] = i
    src = os.path.join(root, "trace")
    files = sorted(f for f in os.listdir(src) if f.endswith((".c", ".h")))
    problems = []
    for f in files:
        stem = f[:-2]
        if stem not in layer:
            problems.append(f"{f}: not in the README's include order")
            continue
        for inc in re.findall(r'#include "([^"]+)\.h"', open(os.path.join(src, f)).read()):
            if inc != stem and layer.get(inc, 99) >= layer[stem]:
                problems.append(f"{f} includes {inc}.h (line {layer.get(inc)} of the order, not before {layer[stem]})")
    if problems:
        raise Failure("\n  ".join(problems))


# ------------------------------------------------------- -pg particulars

PG_HOOKS = (("mcount", "mcount"), ("fentry", "fentry"))


def t_pg_returns(env):
    """Arguments into the entry hook and return values out of the exit
    trampoline (rax/rdx, xmm0/xmm1, x87 st0, memory) are the program's."""
    d = env.dir("pg_returns")
    plain = env.compile(os.path.join(d, "plain"), "gcc", ["returns.c"], ["-O2"], hook="cyg")
    want = env.run(plain, [4], None, preload=False).stdout
    names = ["ld", "pl", "pd", "mx", "bg", "wide", "cx", "fl", "many", "var"]
    for hook, _ in PG_HOOKS:
        for opt in ("-O0", "-O2"):
            label = f"{hook}{opt}"
            exe = env.compile(os.path.join(d, f"ret-{label}"), "gcc", ["returns.c"], [opt], hook=hook)
            tr = os.path.join(d, f"trace-{label}")
            r = env.run(exe, [4], tr)
            expect_eq(f"{label}: output", r.stdout, want)
            t = one_thread(one_process(decode(tr)))
            calls = {"main": 1, **{n: 4 for n in names}}
            check_thread(label, t, calls, {"<root> -> main": 1, **{f"main -> {n}": 4 for n in names}}, 2)


def t_pg_catch(env):
    """After a catch the frames the exception left are closed and the
    catching function's ancestors return through the trampoline again: the
    catcher's exit is written when it returns (not 30 ms later, at the next
    instrumented call), also after a rethrow."""
    d = env.dir("pg_catch")
    for hook, _ in PG_HOOKS:
        for opt in ("-O0", "-O2"):
            label = f"{hook}{opt}"
            exe = env.compile(os.path.join(d, f"catch-{label}"), "g++", ["catch_timing.cc"], [opt], hook=hook)
            tr = os.path.join(d, f"trace-{label}")
            env.run(exe, [], tr)
            proc = one_process(decode(tr))
            expect_eq(f"{label}: hook line", proc["hooks"], [hook])
            t = one_thread(proc)
            check_thread(label, t, {"main": 1, "catcher": 1, "thrower": 4 + 3, "rethrower": 1, "later": 1},
                         {"<root> -> main": 1, "main -> catcher": 1, "catcher -> thrower": 1,
                          "thrower -> thrower": 3 + 2, "catcher -> rethrower": 1, "rethrower -> thrower": 1,
                          "main -> later": 1}, 6)
            # The program pauses 30 ms (by CLOCK_MONOTONIC) between catcher's
            # return and later's call: an exit written at its return comes at
            # least that long before later's enter, one written at the next
            # call comes with it. (How long catcher itself took says nothing:
            # a busy machine can preempt it for longer than the pause.)
            gap = t["first_enter_ns"]["later"] - t["last_exit_ns"]["catcher"]
            if gap < 15e6:
                raise Failure(f"{label}: catcher's exit {gap / 1e6:.3f} ms before later's enter, not after the "
                              "30 ms pause: written at the next call, not at its return")


def t_pg_stacks(env):
    """Hooked frames on other stacks: a coroutine's frames stay open while
    main's return (found under them), and a sigaltstack handler is left by
    siglongjmp; the program runs as without the runtime and every call is
    counted (the nesting across stacks is by slot only: not checked)."""
    d = env.dir("pg_stacks")
    for hook, _ in PG_HOOKS:
        for opt in ("-O0", "-O2"):
            label = f"{hook}{opt}"
            exe = env.compile(os.path.join(d, f"co-{label}"), "gcc", ["coroutines.c"], [opt], hook=hook)
            tr = os.path.join(d, f"trace-{label}")
            r = env.run(exe, [], tr)
            expect_eq(f"{label}: output", r.stdout, "done\n")
            t = one_thread(one_process(decode(tr)))
            expect_eq(f"{label}: calls", summary(t)[0], {"main": 1, "resume": 4, "co_body": 1, "yield_back": 3,
                                                          "handler": 3, "in_handler": 3})
            expect_eq(f"{label}: lost", t["lost"], 0)
            expect_eq(f"{label}: open at the end", t["open_at_end"], [])


def gprof_calls(exe, gmon):
    """Call counts per function from gprof's call graph (the arcs glibc's
    mcount recorded): the primary lines "[i] %time self children N[+R] name [i]"."""
    r = subprocess.run(["gprof", "-b", "-q", exe, gmon], capture_output=True, text=True)
    calls = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\[\d+\]\s+\S+\s+\S+\s+\S+\s+(\d+)(?:\+(\d+))?\s+(\S+) \[\d+\]$", line)
        if m:
            calls[m.group(3)] = int(m.group(1)) + int(m.group(2) or 0)
    return calls


def t_pg_gmon(env):
    """gprof keeps working: a -pg program run with the runtime preloaded but
    not tracing (no COVKIT_TRACE_DIR) writes the gmon.out of a run without
    it (the runtime forwards to glibc's hook); while tracing, gmon.out is
    still written (its histogram; the call counts are the trace's)."""
    d = env.dir("pg_gmon")
    for hook, _ in PG_HOOKS:
        exe = env.compile(os.path.join(d, f"rec-{hook}"), "gcc", ["recursion.c"], ["-O2"], hook=hook)
        counts = {}
        for label, preload, tr in (("alone", False, None), ("inert", True, None),
                                   ("tracing", True, os.path.join(d, f"trace-{hook}"))):
            cwd = os.path.join(d, f"cwd-{hook}-{label}")
            os.makedirs(cwd)
            env.run(exe, [30, 15], tr, preload=preload, cwd=cwd)
            gmon = os.path.join(cwd, "gmon.out")
            if not os.path.exists(gmon):
                raise Failure(f"{hook} {label}: no gmon.out")
            counts[label] = gprof_calls(exe, gmon)
        # main's caller is not profiled: gprof has no arc into it.
        expect_eq(f"{hook}: gprof's counts (alone)", counts["alone"], {"rec": 30, "fib": fib_calls(15)})
        expect_eq(f"{hook}: gprof's counts with the inert runtime", counts["inert"], counts["alone"])
        t = one_thread(one_process(decode(os.path.join(d, f"trace-{hook}"))))
        expect_eq(f"{hook}: traced calls", summary(t)[0], {"main": 1, **counts["alone"]})


def uftrace_calls(exe, args, d):
    """Call counts per function of the program's own code, by uftrace."""
    data = os.path.join(d, "uftrace.data")
    shutil.rmtree(data, ignore_errors=True)
    r = subprocess.run(["uftrace", "record", "--no-libcall", "-d", data, exe] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Failure(f"uftrace record {exe}: exit {r.returncode}\n{r.stderr}")
    r = subprocess.run(["uftrace", "report", "--no-pager", "-d", data, "-f", "call"], capture_output=True,
                       text=True, timeout=120)
    calls = {}
    for line in r.stdout.splitlines():
        f = line.split(None, 1)
        if len(f) == 2 and f[0].isdigit() and ":" not in f[1]:  # linux:schedule and such are kernel events
            calls[norm(f[1].strip())] = calls.get(norm(f[1].strip()), 0) + int(f[0])
    return calls


def t_pg_uftrace(env):
    """uftrace agrees on the calls of fully optimized -pg binaries (inlining,
    sibling calls, calls dropped by the compiler: whatever the binary does),
    all threads together."""
    if not shutil.which("uftrace"):
        raise Failure("uftrace not found")
    d = env.dir("pg_uftrace")
    progs = (("rec", "gcc", ["recursion.c"], [], [40, 16]), ("exc", "g++", ["exceptions.cc"], [], [3, 5]),
             ("thr", "gcc", ["threads.c"], ["-pthread"], [3]), ("sig", "gcc", ["signals.c"], [], []))
    for hook, _ in PG_HOOKS:
        for name, cc, srcs, flags, args in progs:
            for opt in ("-O0", "-O2"):
                label = f"{name}-{hook}{opt}"
                exe = env.compile(os.path.join(d, label), cc, srcs, [opt] + flags, hook=hook, keep_calls=False)
                tr = os.path.join(d, f"trace-{label}")
                r = env.run(exe, args, tr)
                res = decode(tr)
                ours = {}
                for t in one_process(res)["threads"]:
                    if t["lost"] and name != "sig":
                        raise Failure(f"{label}: {t['lost']} events lost")
                    for n, c in summary(t)[0].items():
                        ours[n] = ours.get(n, 0) + c
                theirs = uftrace_calls(exe, args, d)
                if name == "sig":  # handler calls differ per run: the rest must not
                    handled = int(r.stdout.split()[1])
                    if ours.pop("on_signal", 0) > handled:
                        raise Failure(f"{label}: more handler calls recorded than made")
                    theirs.pop("on_signal", None)
                expect_eq(f"{label}: calls (covkit vs uftrace)", ours, theirs)


def expected_clock_reason():
    """What the runtime should choose here, from what the machine says."""
    if os.uname().machine not in ("x86_64", "i686", "i386"):
        return "mono", "no-tsc"
    source = ""
    try:
        source = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    except OSError:
        pass
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    if not {"constant_tsc", "nonstop_tsc"} <= flags:
        return "mono", "not-invariant"
    if source == "tsc":
        return "tsc", "kernel"
    if flags & {"tsc_reliable", "tsc_known_freq"}:
        return "tsc", "cpu-flags"
    return "mono", "unverified"


def t_clock(env):
    """The clock's choice (docs/trace-format.md, "Clock") and its times
    against CLOCK_MONOTONIC over several seconds."""
    d = env.dir("clock")
    # 1. The choice, from what a machine says (the runtime's own function).
    runtime = os.path.join(HERE, "..", "..", "src", "runtime", "trace")
    chooser = os.path.join(d, "clock_choice")
    cmd = [env.cc["gcc"], "-O1", "-I", runtime, os.path.join(PROGS, "clock_choice.c"),
           os.path.join(runtime, "clock.c"), "-o", chooser]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure(f"compile failed: {' '.join(cmd)}\n{r.stderr}")
    kvm_flags = "fpu tsc constant_tsc rep_good nopl nonstop_tsc cpuid tsc_known_freq pni"
    cases = [
        # (choice, has_tsc, invariant, clocksource, flags) -> answer
        (("auto", 1, 1, "tsc", ""), "tsc kernel"),
        (("auto", 1, 1, "kvm-clock", kvm_flags), "tsc cpu-flags"),
        (("auto", 1, 1, "hyperv_clocksource_tsc_page", "constant_tsc nonstop_tsc tsc_reliable"), "tsc cpu-flags"),
        (("auto", 1, 1, "kvm-clock", "constant_tsc nonstop_tsc"), "mono unverified"),
        (("auto", 1, 1, "kvm-clock", "constant_tsc tsc_known_freq"), "mono unverified"),
        (("auto", 1, 1, "kvm-clock", "constant_tsc nonstop_tsc_s3 tsc_known_freq_x"), "mono unverified"),
        (("auto", 1, 1, "kvm-clock", ""), "mono unverified"),
        (("auto", 1, 0, "tsc", "constant_tsc nonstop_tsc tsc_reliable"), "mono not-invariant"),
        (("auto", 0, 0, "arch_sys_counter", ""), "mono no-tsc"),
        (("tsc", 1, 0, "hpet", ""), "tsc forced"),
        (("mono", 1, 1, "tsc", kvm_flags), "mono forced"),
        (("tsc", 0, 0, "arch_sys_counter", ""), "mono no-tsc"),
    ]
    for args, want in cases:
        r = subprocess.run([chooser] + [str(a) for a in args], capture_output=True, text=True)
        expect_eq(f"choice {args}", r.stdout.strip(), want)

    # 2. Times against CLOCK_MONOTONIC: the program reads CLOCK_MONOTONIC just
    # before and after each call of mark(); the trace's time of that call must
    # lie between, up to 0.1% of the time since the first mark (the drift of
    # a converted TSC; the calibration pair itself is exact to its bracket,
    # well under the 50 us allowed besides).
    exe = env.compile(os.path.join(d, "marks"), "gcc", ["clock_marks.c"], ["-O2"])
    want_clock, want_reason = expected_clock_reason()
    runs = [("auto", {}, 5, want_clock, want_reason)]
    if want_reason != "no-tsc":
        runs.append(("tsc", {"COVKIT_TRACE_CLOCK": "tsc"}, 20, "tsc", "forced"))
    runs.append(("mono", {"COVKIT_TRACE_CLOCK": "mono"}, 5, "mono", "forced"))
    for label, extra, marks, clock, reason in runs:
        tr = os.path.join(d, f"trace-{label}")
        r = env.run(exe, [marks, 200], tr, extra_env=extra)
        windows = [tuple(int(x) for x in line.split()) for line in r.stdout.split("\n") if line]
        res = decode_trace.decode_dir(tr, timed=("mark",))
        if res["errors"]:
            raise Failure(f"{label}: decoder errors: {res['errors']}")
        proc = one_process(res)
        expect_eq(f"{label}: clock", proc["clock"], clock)
        expect_eq(f"{label}: clock_reason", proc["clock_reason"], reason)
        times = one_thread(proc)["enters_ns"]["mark"]
        expect_eq(f"{label}: marks", len(times), len(windows))
        worst = 0.0
        for i, ((lo, hi), t) in enumerate(zip(windows, times)):
            off = lo - t if t < lo else t - hi if t > hi else 0
            allowed = 0.001 * (lo - windows[0][0]) + 50000
            if off > allowed:
                raise Failure(f"{label}: mark {i} at {t:.0f} ns, CLOCK_MONOTONIC [{lo}, {hi}]: "
                              f"{off:.0f} ns off, {allowed:.0f} allowed")
            if i:
                worst = max(worst, off / (lo - windows[0][0]))
        seconds = (windows[-1][0] - windows[0][0]) / 1e9
        if env.verbose or label == "tsc":
            print(f"  {label}: clock {proc['clock']} ({reason}, kernel {proc['clocksource']}), "
                  f"{len(proc['calib_pairs'])} calib lines, {seconds:.1f} s: worst offset {worst * 1e6:.1f} ppm")


SCENARIOS = {
    "recursion": t_recursion, "realigned": t_realigned, "exceptions": t_exceptions, "longjmp": t_longjmp, "threads": t_threads,
    "fork": t_fork, "vfork": t_vfork, "exit_deep": t_exit_deep, "ctor_dtor": t_ctor_dtor, "dlopen": t_dlopen, "static": t_static, "inert": t_inert,
    "limits": t_limits, "signals": t_signals, "crash": t_crash, "overflow": t_overflow,
    "planted": t_planted, "exec": t_exec, "full_disk": t_full_disk, "still_running": t_still_running,
    "layers": t_layers, "pg_returns": t_pg_returns, "pg_catch": t_pg_catch, "pg_stacks": t_pg_stacks, "pg_gmon": t_pg_gmon, "pg_uftrace": t_pg_uftrace,
    "clock": t_clock,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--static-lib")
    ap.add_argument("--work", required=True)
    ap.add_argument("--hook", choices=sorted(HOOK_FLAGS), default="cyg",
                    help="how the programs are instrumented (default: -finstrument-functions)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("scenarios", nargs="+")
    args = ap.parse_args()
    env = Env(args)
    if not env.cc["gcc"] or not env.cc["g++"]:
        print("gcc-12/g++-12 not found: skipped")
        return 77
    names = list(SCENARIOS) if args.scenarios == ["all"] else args.scenarios
    failed = 0
    for name in names:
        try:
            SCENARIOS[name](env)
            print(f"PASS {name}")
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
