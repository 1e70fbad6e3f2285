#!/usr/bin/env python3
"""Scenarios of `covkit sample record` (src/runtime/sample, src/sample):
small C programs compiled here with gcc-12 -O2 -g, recorded, and checked
through `covkit sample dump` (the reader of src/format). Every check
compares with what the program did by construction (threads, forks, execs,
its exit status), never with a recorded answer.

  run_sample_tests.py --covkit build/covkit --work DIR SCENARIO

Exit 77 (skip) when gcc-12 is missing."""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from proc_stat import process_state  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Tests sample often, so that each thread of a 0.3 s program has samples.
PERIOD = "5ms"


class Failure(Exception):
    pass


class Skip(Exception):
    """A scenario this machine cannot run (a privilege, not a tool, is missing)."""


def check(cond, what):
    if not cond:
        raise Failure(what)


def compile_prog(work, name, extra=()):
    out = os.path.join(work, name)
    src = os.path.join(HERE, "progs", name + ".c")
    subprocess.run(["gcc-12", "-O2", "-g", "-o", out, src, *extra], check=True)
    return out


def record(args, work, name, *cmd, mode=None, period=PERIOD, expect_status=None, source=None):
    out = os.path.join(work, name + ".rec")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out + ".old", ignore_errors=True)
    argv = [args.covkit, "sample", "record", "-o", out, "--period", period]
    if mode:
        argv += ["--mode", mode]
    if source:
        argv += ["--source", source]
    p = subprocess.run(argv + ["--", *cmd], capture_output=True, text=True, timeout=120)
    if expect_status is not None:
        check(p.returncode == expect_status,
              f"exit status {p.returncode}, expected {expect_status}; stderr: {p.stderr}")
    return out, p


class Recording:
    """`covkit sample dump` parsed: images with mappings, samples."""

    def __init__(self, covkit, path):
        p = subprocess.run([covkit, "sample", "dump", path], capture_output=True, text=True)
        check(p.returncode == 0, f"dump failed: {p.stderr}")
        self.images, self.samples, self.warnings, self.lost = [], [], [], 0
        for line in p.stdout.splitlines():
            words = line.split()
            if words[0] == "recording":
                self.header = dict(w.split("=", 1) for w in words[1:])
            elif words[0] == "image":
                fields = dict(w.split("=", 1) for w in words[2:])
                self.images.append({"pid": int(fields["pid"]), "ppid": int(fields["ppid"]),
                                    "exe": fields["exe"], "file": fields["file"],
                                    "ended": fields["ended"] == "1", "maps": [], "offsets": []})
            elif words[0] == "mapping":
                lo, hi = (int(x, 16) for x in words[1].split("-"))
                path = line.split(" path=", 1)[1]
                self.images[-1]["maps"].append((lo, hi, path))
                offset = re.search(r" offset=(0x[0-9a-f]+)", line)
                self.images[-1]["offsets"].append((lo, hi, int(offset.group(1), 16) if offset else 0))
            elif words[0] == "sample":
                fields = dict(w.split("=", 1) for w in words[1:])
                self.samples.append({"image": int(fields["image"]), "tid": int(fields["tid"]),
                                     "ip": int(fields["ip"], 16), "stop": fields["stop"],
                                     "steps": [], "stack": [], "branches": []})
            elif words[0] in ("steps", "stack"):
                self.samples[-1][words[0]] = [int(x, 16) for x in words[2:]]
            elif words[0] == "branches":
                self.samples[-1]["branches"] = [tuple(int(x, 16) for x in w.split("->")) for w in words[2:]]
            elif words[0] == "warning":
                self.warnings.append(line)
            elif words[0] == "lost":
                self.lost = int(words[1])

    def image_of(self, exe):
        return [i for i, im in enumerate(self.images) if im["exe"] == exe]

    def samples_of(self, image):
        return [s for s in self.samples if s["image"] == image]


def in_maps(maps, addr):
    return any(lo <= addr < hi for lo, hi, _ in maps)


def check_branch_samples(rec, image, prog):
    """Steps start at the sample's ip, stay inside executable mappings, and
    form a plausible path; some of them run the program's own loop."""
    samples = rec.samples_of(image)
    check(samples, f"no samples for image {image}")
    maps = rec.images[image]["maps"]
    prog_maps = [m for m in maps if m[2] == prog]
    check(prog_maps, f"{prog} is not among the mappings {maps}")
    in_prog = 0
    for s in samples:
        steps = s["steps"]
        if s["stop"] == "blocked":
            continue
        check(steps and steps[0] == s["ip"], f"steps do not start at ip: {s}")
        for a in steps:
            check(in_maps(maps, a), f"step {a:#x} outside every executable mapping")
        seq = sum(1 for x, y in zip(steps, steps[1:]) if 1 <= y - x <= 15)
        check(len(steps) < 4 or seq * 2 >= len(steps) - 1,
              f"only {seq} of {len(steps) - 1} steps follow their predecessor: not a path")
        if s["stop"] == "vector":
            # taken branches by instruction length (the dump's branches; a
            # rep instruction's next iteration is none), as the runtime counts
            taken = len(s["branches"])
            check(taken + 1 >= 16, f"stopped for a full vector after {taken} taken branches")
        # The branches dump derives from the instruction lengths: each is a pair
        # of consecutive steps, and every far or backward move is one.
        pairs = set(zip(steps, steps[1:]))
        for b in s["branches"]:
            check(b in pairs, f"branch {b[0]:#x}->{b[1]:#x} is not two consecutive steps")
        far = sum(1 for x, y in zip(steps, steps[1:]) if x != y and not 1 <= y - x <= 15)
        check(len(s["branches"]) >= far, f"{len(s['branches'])} branches for {far} far moves")
        if all(in_maps(prog_maps, a) for a in steps):
            in_prog += 1
    check(in_prog * 2 >= len(samples), f"only {in_prog} of {len(samples)} samples step through {prog} alone")


def scenario_branch(args, work):
    prog = compile_prog(work, "loop")
    out, p = record(args, work, "branch", prog, "0.5", "3", expect_status=3)
    check("sample record:" in p.stderr and " samples" in p.stderr, f"no summary line: {p.stderr}")
    rec = Recording(args.covkit, out)
    check(rec.header["mode"] == "branch", rec.header)
    check(len(rec.images) == 1 and rec.images[0]["ended"], rec.images)
    # CPU-time timers expire at scheduler ticks, and a busy VM stretches the
    # steps' CPU time: the count varies a lot, but 0.5 s gives more than 5.
    check(len(rec.samples) >= 5, f"{len(rec.samples)} samples in 0.5 s at {PERIOD}")
    check_branch_samples(rec, 0, prog)


def scenario_stack(args, work):
    """With frame pointers (-O0: gcc-12 leaves them out of -O2 leaf functions
    even when asked), the stacks walk back into the program (spin_work
    returns into main) and every return address is in executable code."""
    compile_prog(work, "loop", ["-O0", "-fno-omit-frame-pointer", "-o", os.path.join(work, "loop_fp")])
    prog = os.path.join(work, "loop_fp")
    out, _ = record(args, work, "stack", prog, "0.3", mode="pc", source="runtime", expect_status=0)
    rec = Recording(args.covkit, out)
    maps = rec.images[0]["maps"]
    prog_maps = [m for m in maps if m[2] == prog]
    walked = 0
    for s in rec.samples:
        # Only a sample in the program stands in code with frame pointers:
        # in libc or the vdso (clock_gettime) rbp may be any value, and the
        # chain it starts is meaningless (never a fault).
        if not in_maps(prog_maps, s["ip"]):
            continue
        for a in s["stack"]:
            check(in_maps(maps, a), f"return address {a:#x} outside the executable mappings")
        if any(in_maps(prog_maps, a) for a in s["stack"]):
            walked += 1
    check(walked * 2 >= len(rec.samples), f"only {walked} of {len(rec.samples)} stacks reach the program's caller")


def scenario_dlopen(args, work):
    """A library dlopened after the start is among the mappings (written when
    the next thread starts), although the program then crashes."""
    prog = compile_prog(work, "dlopen", ["-pthread", "-ldl"])
    out, _ = record(args, work, "dlopen", prog, expect_status=128 + 11)
    rec = Recording(args.covkit, out)
    maps = rec.images[0]["maps"]
    check(any(m[2].endswith("/libm.so.6") for m in maps), f"libm missing from {[m[2] for m in maps]}")
    check(not rec.images[0]["ended"], "a crashed image ran its exit handlers?")
    libm = [m for m in maps if m[2].endswith("/libm.so.6")]
    for s in rec.samples:
        for a in s["steps"]:
            check(in_maps(maps, a), f"step {a:#x} outside every executable mapping")
    in_libm = sum(1 for s in rec.samples if in_maps(libm, s["ip"]))
    check(in_libm * 4 >= len(rec.samples), f"only {in_libm} of {len(rec.samples)} samples in cos()")


def scenario_pc(args, work):
    prog = compile_prog(work, "loop")
    out, _ = record(args, work, "pc", prog, "0.6", mode="pc", source="runtime", expect_status=0)
    rec = Recording(args.covkit, out)
    check(rec.header["mode"] == "pc", rec.header)
    check(len(rec.samples) >= 5, f"{len(rec.samples)} samples")
    maps = rec.images[0]["maps"]
    for s in rec.samples:
        check(not s["steps"], "a pc sample has steps")
        check(in_maps(maps, s["ip"]), f"ip {s['ip']:#x} outside the mappings")
    # A period below the kernel's tick: 0.6 s of CPU at 1 ms would be ~600
    # samples; a CPU-time timer fires on the tick (~150 at 250 Hz), which
    # covkit says it got. No claim between the two.
    out, p = record(args, work, "pc1ms", prog, "0.6", mode="pc", source="runtime", period="1ms", expect_status=0)
    n = len(Recording(args.covkit, out).samples)
    warned = "the kernel fires CPU-time timers only on its scheduler tick" in p.stderr
    if n < 240:
        check(warned, f"{n} samples in 0.6 s at --period 1ms, and no warning: {p.stderr}")
    elif n > 360:
        check(not warned, f"{n} samples in 0.6 s at --period 1ms, yet a warning: {p.stderr}")
    print(f"--period 1ms through the runtime: {n} samples in 0.6 s of CPU; warned: {warned}")


def scenario_threads(args, work):
    prog = compile_prog(work, "threads", ["-pthread"])
    out, _ = record(args, work, "threads", prog, expect_status=0)
    rec = Recording(args.covkit, out)
    tids = {s["tid"] for s in rec.samples}
    check(len(tids) == 4, f"samples from {len(tids)} threads, expected 4")
    check(rec.images[0]["pid"] in tids, "no samples of the main thread")
    check_branch_samples(rec, 0, prog)


def check_fork(args, work, name, check_samples, **options):
    """fork.c: parent and child are images of their own, the child names its
    parent, both have mappings and samples; the child's status is covkit's."""
    prog = compile_prog(work, "fork")
    out, _ = record(args, work, name, prog, expect_status=5, **options)
    rec = Recording(args.covkit, out)
    check(len(rec.images) == 2, f"{len(rec.images)} images, expected parent and child")
    pids = {im["pid"] for im in rec.images}
    children = [i for i, im in enumerate(rec.images) if im["ppid"] in pids]
    check(len(children) == 1, f"{len(children)} images are children of the others")
    child = children[0]
    parent = 1 - child
    check(rec.images[child]["ppid"] == rec.images[parent]["pid"], "the child does not name its parent")
    check(rec.images[child]["file"] != rec.images[parent]["file"], "one file for two processes")
    for i in (parent, child):
        check(rec.images[i]["maps"], f"image {i} has no mappings")
        check_samples(rec, i, prog)
    return rec


def scenario_fork(args, work):
    check_fork(args, work, "fork", check_branch_samples)


def check_exec(args, work, name, check_samples, **options):
    """exec.c runs loop.c: a new image in the same pid, with a file and the
    new program's mappings of its own; only the second image ends (ran its
    exit handlers)."""
    prog = compile_prog(work, "exec")
    loop = compile_prog(work, "loop")
    out, _ = record(args, work, name, prog, loop, "0.3", "4", expect_status=4, **options)
    rec = Recording(args.covkit, out)
    check(len(rec.images) == 2, f"{len(rec.images)} images, expected 2")
    first, second = rec.image_of(prog), rec.image_of(loop)
    check(first and second, f"images {[im['exe'] for im in rec.images]}")
    a, b = rec.images[first[0]], rec.images[second[0]]
    check(a["pid"] == b["pid"], "exec changed the pid")
    check(a["file"] != b["file"], "the exec'ed image has no file of its own")
    check(not a["ended"] and b["ended"], "only the second image ran its exit handlers")
    check(any(m[2] == loop for m in b["maps"]) and not any(m[2] == loop for m in a["maps"]), "mappings mixed up")
    check_samples(rec, first[0], prog)
    check_samples(rec, second[0], loop)


def scenario_exec(args, work):
    check_exec(args, work, "exec", check_branch_samples)


def scenario_exec_static(args, work):
    """A static program cannot load the runtime: exec.c (which loads it)
    becomes a static loop.c, by execv and by execvp's search. The static
    program is not recorded, and the recording says so, naming it, in the
    exec'ing image's file and on stderr; a dynamic one draws no such word."""
    prog = compile_prog(work, "exec")
    static = os.path.join(work, "loop_static")
    compile_prog(work, "loop", ["-static", "-o", static])
    dynamic = compile_prog(work, "loop")
    for how, target, env in (("path", static, None),
                             ("search", "loop_static", dict(os.environ, PATH=work + ":/usr/bin:/bin"))):
        out = os.path.join(work, f"exec_static_{how}.rec")
        shutil.rmtree(out, ignore_errors=True)
        argv = [args.covkit, "sample", "record", "-o", out, "--period", PERIOD, "--allow-empty", "--",
                prog, target, "0.2", "3"]
        if how == "search":
            env["COVKIT_TEST_EXEC_SEARCH"] = "1"
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
        check(p.returncode == 3, f"{how}: exit status {p.returncode}; stderr: {p.stderr}")
        rec = Recording(args.covkit, out)
        said = [w for w in rec.warnings if "loop_static" in w and "statically linked" in w]
        check(len(said) == 1, f"{how}: warnings {rec.warnings}")
        check(static in said[0], f"{how}: the warning does not name {static}: {said[0]}")
        check("statically linked" in p.stderr and static in p.stderr, f"{how}: not shown: {p.stderr}")
        check([im["exe"] for im in rec.images] == [prog], f"{how}: images {[im['exe'] for im in rec.images]}")
    out, p = record(args, work, "exec_dynamic", prog, dynamic, "0.2", "3", expect_status=3)
    rec = Recording(args.covkit, out)
    check(not any("statically linked" in w for w in rec.warnings), f"a dynamic exec warned: {rec.warnings}")
    check(len(rec.images) == 2, f"{len(rec.images)} images after a dynamic exec, expected 2")


def scenario_crash(args, work):
    prog = compile_prog(work, "crash")
    out, p = record(args, work, "crash", prog, expect_status=128 + 11)
    check("signal 11" in p.stderr, p.stderr)
    rec = Recording(args.covkit, out)
    check(len(rec.images) == 1 and not rec.images[0]["ended"], rec.images)
    check_branch_samples(rec, 0, prog)


STEP_STATS = re.compile(r"stepping cost \((\w+)\): (\d+) vectors, .* (\d+) lines copied, .* (\d+) faulted")


def step_stats(rec):
    """(vectors, lines copied with process_vm_readv, reads in place that faulted) of the one process."""
    said = [m for m in (STEP_STATS.search(w) for w in rec.warnings) if m]
    check(len(said) == 1, f"step stats: {rec.warnings}")
    return int(said[0].group(2)), int(said[0].group(3)), int(said[0].group(4))


def scenario_in_place(args, work):
    """The interpreter reads the heap in place where a fault of its read
    can be caught without the program noticing, and copies it elsewhere:
    told apart by the lines it copied with process_vm_readv (the step
    stats), the program's own handler checked by the program itself."""
    prog = compile_prog(work, "faults")
    env = dict(os.environ, COVKIT_SAMPLE_STEP_STATS="1")

    def run(mode, stepping=None):
        out = os.path.join(work, mode + ".rec")
        shutil.rmtree(out, ignore_errors=True)
        run_env = dict(env, COVKIT_SAMPLE_STEPPING=stepping) if stepping else env
        p = subprocess.run([args.covkit, "sample", "record", "--mode", "branch", "--source", "runtime",
                            "-o", out, "--period", PERIOD, "--", prog, mode, "0.4"],
                           capture_output=True, text=True, timeout=120, env=run_env)
        check(p.returncode == 0, f"{mode}: exit status {p.returncode}: {p.stderr}")
        rec = Recording(args.covkit, out)
        vectors, copied, faulted = step_stats(rec)
        check(vectors >= 10, f"{mode}: {vectors} vectors")
        check(sum(len(s["steps"]) > 1 for s in rec.samples) >= 10, f"{mode}: no stepped samples")
        return rec, copied, faulted

    # the default dispositions, one thread: every heap read in place
    _, copied, faulted = run("plain")
    check(copied == 0 and faulted == 0, f"plain: {copied} lines copied, {faulted} reads faulted")
    # its own SIGSEGV handler and faults every 4th step: the program saw
    # exactly its own faults (exit 0), the interpreter's went nowhere
    _, copied, _ = run("handler")
    check(copied == 0, f"handler: {copied} lines copied")
    # single-stepped into those faults: the handler's siglongjmp leaves the
    # trap flag behind, and the watchdog tick drops that vector; the thread
    # goes on being sampled (it had 1-4 vectors in all before: never
    # sampled again after the first lost step; run() checks for 10)
    run("handler", stepping="instruction")
    # where a stand-in handler is not safe, copies
    for mode in ("blocked", "threads", "device"):
        rec, copied, faulted = run(mode)
        check(copied > 0 and faulted == 0, f"{mode}: {copied} lines copied, {faulted} reads faulted")
    check(any("mapped a device" in w for w in rec.warnings), f"device: not said: {rec.warnings}")


def scenario_in_place_threads(args, work):
    """With more threads the interpreter copies. A program of two threads that both recover from their own SIGSEGVs
    (a JVM's null checks, a garbage collector's barriers): its handler
    must see every fault of its threads, never the default disposition,
    not even for the instant the runtime looks at what is installed. The
    program checks that each thread's handler saw exactly the faults it
    made (exit 2 otherwise); a fault given the default kills it."""
    prog = compile_prog(work, "faults")
    env = dict(os.environ, COVKIT_SAMPLE_STEP_STATS="1")
    # threads_asking: over the default dispositions, another thread asking
    # sigaction() must never see the runtime's handler either
    for run, mode in enumerate(("threads_faulting", "threads_asking") * 2):
        out = os.path.join(work, f"{mode}{run}.rec")
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([args.covkit, "sample", "record", "--mode", "branch", "--source", "runtime",
                            "-o", out, "--period", PERIOD, "--", prog, mode, "0.4"],
                           capture_output=True, text=True, timeout=120, env=env)
        check(p.returncode == 0, f"{mode} (run {run}): exit status {p.returncode}: {p.stderr}")
        vectors, copied, faulted = step_stats(Recording(args.covkit, out))
        # with more threads no stand-in: copies, no read in place
        check(vectors >= 10 and copied > 0 and faulted == 0,
              f"{mode} (run {run}): {vectors} vectors, {copied} lines copied, {faulted} reads faulted")


def scenario_sigprof(args, work):
    prog = compile_prog(work, "sigprof")
    out, p = record(args, work, "sigprof", prog, expect_status=0)
    rec = Recording(args.covkit, out)
    check(any("SIGPROF" in w for w in rec.warnings), f"no warning about SIGPROF: {rec.warnings}")
    check("SIGPROF" in p.stderr, f"the warning is not shown: {p.stderr}")
    check(rec.samples, "no samples before the program took SIGPROF")


PROF_STOPPED = "the program set its own SIGPROF disposition: sampling stopped there"


def scenario_sigprof_late(args, work):
    """A program taking SIGPROF mid-run, in three threads, receives none of
    the sampler's ticks; coreutils' sort, whose SIGPROF handler removes its
    temporary files and re-raises (as for SIGTERM), runs as without it."""
    prog = compile_prog(work, "sigprof_late", ["-pthread"])
    for mode, call in (("pc", "sigaction"), ("branch", "signal")):
        out, p = record(args, work, f"late_{mode}", prog, call, mode=mode, source="runtime", period="1ms")
        check(p.returncode == 0, f"{mode}: status {p.returncode} ({p.stdout.strip()}): the sampler's ticks reached "
              f"the program's handler; stderr: {p.stderr}")
        check(p.stdout == "received 0\n", f"{mode}: {p.stdout!r}")
        rec = Recording(args.covkit, out)
        check(any(PROF_STOPPED in w for w in rec.warnings), f"{mode}: no warning: {rec.warnings}")
        check(PROF_STOPPED in p.stderr, f"{mode}: the warning is not shown: {p.stderr}")
        # the query and the restore at its start did not stop sampling
        check(rec.samples, f"{mode}: no samples before the program took SIGPROF")
    sort = "/usr/bin/sort"
    if not os.access(sort, os.X_OK):
        raise Skip(f"{sort} missing")
    text = os.path.join(work, "lines.txt")
    rng = random.Random(33)
    with open(text, "w") as f:
        for _ in range(120000):
            f.write("".join(rng.choice("abcdefghij klmnop") for _ in range(24)) + "\n")
    native = subprocess.run([sort, text], capture_output=True, check=True).stdout
    for mode in ("pc", "branch"):
        out = os.path.join(work, f"sort_{mode}.rec")
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(out + ".old", ignore_errors=True)
        # --allow-empty: sort takes SIGPROF at its start, before a sample
        p = subprocess.run([args.covkit, "sample", "record", "--allow-empty", "-o", out, "--mode", mode,
                            "--source", "runtime", "--period", "1ms", "--", sort, text],
                           capture_output=True, timeout=120)
        stderr = p.stderr.decode(errors="replace")
        check(p.returncode == 0, f"sort ({mode}): status {p.returncode}; stderr: {stderr}")
        check(p.stdout == native, f"sort ({mode}): {len(p.stdout)} bytes, not its {len(native)} bytes without covkit")
        check(PROF_STOPPED in stderr, f"sort ({mode}): the warning is not shown: {stderr}")
    # Without --allow-empty the empty recording is refused (exit 1), saying
    # the program took SIGPROF, not that the run was short.
    out = os.path.join(work, "sort_refused.rec")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([args.covkit, "sample", "record", "-o", out, "--mode", "pc", "--source", "runtime",
                        "--period", "1ms", "--", sort, text], capture_output=True, timeout=120)
    stderr = p.stderr.decode(errors="replace")
    check(p.returncode == 1, f"sort without --allow-empty: status {p.returncode}; stderr: {stderr}")
    check(p.stdout == native, "sort without --allow-empty: its output")
    check("set its own SIGPROF handler before the first sample" in stderr and "short run" not in stderr,
          f"sort without --allow-empty: the reason: {stderr}")


HELD = "a thread kept SIGPROF blocked, so the runtime's ticks never reached it"


def scenario_held_ticks(args, work):
    """A worker started with every signal blocked (a thread pool's, as xz -T
    has) never takes the runtime's ticks: said at its end, or at the
    process's end while it still runs; a thread that blocks SIGPROF only
    for a moment is sampled and not named."""
    prog = compile_prog(work, "held_ticks", ["-pthread"])
    for mode in ("pc", "branch"):
        out = os.path.join(work, f"held_pool_{mode}.rec")
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([args.covkit, "sample", "record", "-o", out, "--mode", mode, "--source", "runtime",
                            "--period", "1ms", "--", prog, "pool"], capture_output=True, text=True, timeout=120)
        check(p.returncode == 1, f"pool ({mode}): status {p.returncode}; stderr: {p.stderr}")
        check(HELD in p.stderr, f"pool ({mode}): the warning is not shown: {p.stderr}")
        check("kept SIGPROF blocked, so no tick of the runtime reached them" in p.stderr
              and "short run" not in p.stderr, f"pool ({mode}): the reason: {p.stderr}")
        out, p = record(args, work, f"held_running_{mode}", prog, "running", mode=mode, source="runtime",
                        period="1ms", expect_status=0)
        rec = Recording(args.covkit, out)
        check(any(HELD in w for w in rec.warnings), f"running ({mode}): no warning: {rec.warnings}")
        check(rec.samples and len({s["tid"] for s in rec.samples}) == 1,
              f"running ({mode}): samples of {len({s['tid'] for s in rec.samples})} threads, expected main's only")
        # a user in many groups: the status lines read come after a Groups
        # line of ~7 KB (root may set its own groups)
        if mode == "pc" and os.geteuid() == 0 and shutil.which("setpriv"):
            out = os.path.join(work, "held_groups.rec")
            shutil.rmtree(out, ignore_errors=True)
            groups = ",".join(str(g) for g in range(1, 1501))
            p = subprocess.run(["setpriv", "--groups", groups, "--", args.covkit, "sample", "record", "-o", out,
                                "--mode", "pc", "--source", "runtime", "--period", "1ms", "--", prog, "running"],
                               capture_output=True, text=True, timeout=120)
            check(p.returncode == 0 and HELD in p.stderr, f"running in 1,500 groups: status {p.returncode}, "
                  f"stderr: {p.stderr}")
        out, p = record(args, work, f"held_brief_{mode}", prog, "brief", mode=mode, source="runtime",
                        period="1ms", expect_status=0)
        rec = Recording(args.covkit, out)
        check(not any(HELD in w for w in rec.warnings), f"brief ({mode}): warned: {rec.warnings}")
        check(len({s["tid"] for s in rec.samples}) == 1 and rec.samples,
              f"brief ({mode}): {len(rec.samples)} samples")


def scenario_refuse(args, work):
    prog = compile_prog(work, "loop")
    d = os.path.join(work, "foreign")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    open(os.path.join(d, "notes.txt"), "w").write("mine\n")
    p = subprocess.run([args.covkit, "sample", "record", "-o", d, "--", prog, "0.01"],
                       capture_output=True, text=True)
    check(p.returncode == 1, f"status {p.returncode}")
    check(len(p.stderr.strip().splitlines()) == 1 and "notes.txt" in p.stderr, p.stderr)
    check(os.listdir(d) == ["notes.txt"], os.listdir(d))
    # Its own earlier recording is moved aside. (A 10 ms run may end before
    # its first sample: --allow-empty, since what is checked here is the
    # directory, not the samples; without it such a run exits 1.)
    out = os.path.join(work, "again.rec")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out + ".old", ignore_errors=True)
    for i in range(2):
        p = subprocess.run([args.covkit, "sample", "record", "--allow-empty", "-o", out, "--", prog, "0.01"],
                           capture_output=True, text=True)
        check(p.returncode == 0, f"record {i}: {p.stderr}")
    check(os.path.isdir(out + ".old"), f"the earlier recording was not moved aside: {os.listdir(work)}")


# perf_event_attr as perf_event_open(2) lays it out, up to branch_sample_type
# (PERF_ATTR_SIZE_VER1 and on); the flag bits used here.
PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE = 0, 1
PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_SW_CPU_CLOCK = 0, 0
PERF_SAMPLE_IP, PERF_SAMPLE_BRANCH_STACK = 1 << 0, 1 << 11
PERF_SAMPLE_BRANCH_USER, PERF_SAMPLE_BRANCH_ANY = 1 << 0, 1 << 3
ATTR_DISABLED, ATTR_EXCLUDE_KERNEL, ATTR_EXCLUDE_HV = 1 << 0, 1 << 5, 1 << 6
SYS_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}


def kernel_answer(branch):
    """The kernel's own answer to a minimal counter on this process, asked
    without covkit: 0 when it opens, else its errno. The smallest request
    there is for each kind: cpu-clock in user space, or cycles with the
    user-space branch stack."""
    import ctypes
    import errno as errno_names
    import platform
    import struct
    number = SYS_PERF_EVENT_OPEN.get(platform.machine())
    if number is None:
        return errno_names.ENOSYS
    if branch:
        head = (PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000003, PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK)
    else:
        head = (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000000, PERF_SAMPLE_IP)
    size = 112  # PERF_ATTR_SIZE_VER5
    attr = struct.pack("=IIQQQQQIIQQQ", head[0], size, head[1], head[2], head[3], 0,
                       ATTR_DISABLED | ATTR_EXCLUDE_KERNEL | ATTR_EXCLUDE_HV, 0, 0, 0, 0,
                       PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY if branch else 0)
    buf = ctypes.create_string_buffer(attr.ljust(size, b"\0"), size)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(number), buf, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1),
                      ctypes.c_ulong(0))
    if fd < 0:
        return ctypes.get_errno()
    os.close(fd)
    return 0


def sysfs_branch_depth():
    """The deepest branch stack a core PMU lists (caps/branches), 0 for none."""
    devices = "/sys/bus/event_source/devices"
    depth = 0
    for name in os.listdir(devices) if os.path.isdir(devices) else []:
        try:
            depth = max(depth, int(open(os.path.join(devices, name, "caps", "branches")).read()))
        except (OSError, ValueError):
            pass
    return depth


def need_perf(args, work):
    """perf_event_open's cpu-clock on a process of our own, as the kernel
    answers it without covkit: only "not permitted" (kernel.perf_event_paranoid
    > 2 without CAP_PERFMON) or "no perf events" (ENOSYS, a seccomp filter)
    skips. Where the kernel opens the minimal counter, every failure of
    covkit's recording is a failure of the scenario."""
    import errno as errno_names
    err = kernel_answer(branch=False)
    if err in (errno_names.EACCES, errno_names.EPERM, errno_names.ENOSYS):
        raise Skip(f"perf_event_open is refused here without covkit too: {os.strerror(err)}")
    check(err == 0, f"the minimal cpu-clock counter fails with {os.strerror(err)}: neither absent nor refused")


def lcov_hits(args, work, rec, source_name):
    """Lines of `source_name` that `covkit sample report` finds executed."""
    info = os.path.join(work, "sampled.info")
    p = subprocess.run([args.covkit, "sample", "report", rec, "-q", "--lcov", info], capture_output=True, text=True)
    check(p.returncode == 0, f"sample report failed: {p.stderr}")
    hits, current = set(), None
    for line in open(info):
        if line.startswith("SF:"):
            current = line[3:].strip()
        elif line.startswith("DA:") and current and current.endswith("/" + source_name):
            number, count = line[3:].split(",")[:2]
            if int(count) > 0:
                hits.add(int(number))
    return hits


def check_perf_samples(rec, image, prog):
    """Samples the kernel took: no steps, the IP in the image's executable
    mappings (a PIE program where it loaded), most of them in the program."""
    samples = rec.samples_of(image)
    check(samples, f"no samples for image {image}")
    maps = rec.images[image]["maps"]
    prog_maps = [m for m in maps if m[2] == prog]
    check(prog_maps, f"{prog} is not among the mappings {maps}")
    for s in samples:
        check(not s["steps"], f"a perf sample has steps: {s}")
        check(in_maps(maps, s["ip"]), f"ip {s['ip']:#x} outside every executable mapping")
    in_prog = sum(1 for s in samples if in_maps(prog_maps, s["ip"]))
    check(in_prog * 2 >= len(samples), f"only {in_prog} of {len(samples)} samples in {prog}")


def scenario_perf_pc(args, work):
    """--source perf --mode pc: the kernel's cpu-clock, nothing preloaded: four
    threads sampled, the PIE program and libc among the mappings, and the
    analysis finds the spin loop's lines."""
    need_perf(args, work)
    prog = compile_prog(work, "threads", ["-pthread"])
    out, p = record(args, work, "perf_pc", prog, mode="pc", source="perf", expect_status=0)
    check("4 threads" in p.stderr, f"summary: {p.stderr}")
    rec = Recording(args.covkit, out)
    check(rec.header["mode"] == "pc", rec.header)
    check(len(rec.images) == 1 and rec.images[0]["ended"], rec.images)
    check(rec.images[0]["exe"] == prog, rec.images[0]["exe"])
    check(any(m[2].endswith("/libc.so.6") for m in rec.images[0]["maps"]), rec.images[0]["maps"])
    tids = {s["tid"] for s in rec.samples}
    check(len(tids) == 4, f"samples from {len(tids)} threads, expected 4")
    check_perf_samples(rec, 0, prog)
    hits = lcov_hits(args, work, out, "spin.h")
    check(hits, "no line of spin.h found executed")


def scenario_perf_pc_auto(args, work):
    """--mode pc without --source, where perf_event_open may sample: nothing
    is preloaded (the program sees no LD_PRELOAD), the samples are the
    kernel's, and a program exec'ed by a shell is followed."""
    need_perf(args, work)
    loop = compile_prog(work, "loop")
    out, p = record(args, work, "pc_auto", "/bin/sh", "-c", f'echo "[$LD_PRELOAD]"; exec {loop} 0.3',
                    mode="pc", expect_status=0)
    check(p.stdout.strip() == "[]", f"the program saw LD_PRELOAD={p.stdout.strip()}")
    rec = Recording(args.covkit, out)
    images = rec.image_of(loop)
    check(images, f"no image of {loop}: {[im['exe'] for im in rec.images]}")
    check_perf_samples(rec, images[0], loop)


def scenario_perf_fork(args, work):
    """The same fork through perf_event_open: FORK starts the child's image
    with its parent's mappings; both processes end."""
    need_perf(args, work)
    rec = check_fork(args, work, "perf_fork", check_perf_samples, mode="pc", source="perf")
    check(all(im["ended"] for im in rec.images), rec.images)


def scenario_perf_exec(args, work):
    """The same exec through perf_event_open: COMM's exec flag starts the new image."""
    need_perf(args, work)
    check_exec(args, work, "perf_exec", check_perf_samples, mode="pc", source="perf")


def scenario_perf_static(args, work):
    """A statically linked program cannot preload the runtime: --source auto
    samples it through perf instead (and says nothing of 'nothing sampled'),
    and a crash keeps what was sampled."""
    need_perf(args, work)
    prog = compile_prog(work, "crash", ["-static", "-o", os.path.join(work, "crash_static")])
    prog = os.path.join(work, "crash_static")
    out, p = record(args, work, "perf_static", prog, mode="pc", expect_status=128 + 11)
    check("nothing will be sampled" not in p.stderr, p.stderr)
    check("signal 11" in p.stderr, p.stderr)
    rec = Recording(args.covkit, out)
    check(len(rec.images) == 1 and not rec.images[0]["ended"], rec.images)
    files = [m for m in rec.images[0]["maps"] if m[2] != "[vdso]"]
    check(len(files) == 1 and files[0][2] == prog, f"a static program maps one file: {rec.images[0]['maps']}")
    check_perf_samples(rec, 0, prog)


def scenario_perf_branch(args, work):
    """Hardware branch stacks. Whether this machine has one is decided here,
    without covkit: a core PMU's caps/branches in sysfs, or the kernel
    opening a minimal branch-stack counter. Where it has one, --source perf
    must record (every refusal fails): each sample's branches are pairs
    inside the executable mappings, as deep as the PMU records (8 or more),
    and the analysis finds the spin loop. Where it has none (this VM):
    --source perf refuses in one line that says there is no branch stack,
    before making a directory, and the default (auto) says it emulates."""
    import errno as errno_names
    prog = compile_prog(work, "loop")
    out = os.path.join(work, "perf_branch.rec")
    shutil.rmtree(out, ignore_errors=True)
    depth, answer = sysfs_branch_depth(), kernel_answer(branch=True)
    print(f"caps/branches: {depth}; the kernel's answer to a minimal branch-stack counter: "
          f"{os.strerror(answer) if answer else 'opened'}")
    p = subprocess.run([args.covkit, "sample", "record", "--source", "perf", "-o", out, "--", prog, "0.3", "2"],
                       capture_output=True, text=True, timeout=120)
    if depth == 0 and answer != 0:
        permission = answer in (errno_names.EACCES, errno_names.EPERM)
        check(answer in (errno_names.ENOENT, errno_names.EOPNOTSUPP, errno_names.ENODEV, errno_names.ENOSYS)
              or permission, f"the minimal counter fails with {os.strerror(answer)}: neither absent nor refused")
        print(f"no hardware branch stack here, so the refusal and the emulation are checked: {p.stderr.strip()}")
        check(p.returncode == 1 and "--source perf:" in p.stderr, f"status {p.returncode}: {p.stderr}")
        check(len(p.stderr.strip().splitlines()) == 1, p.stderr)
        check(("not permitted" if permission else "no branch stack here") in p.stderr, p.stderr)
        check("--source runtime" in p.stderr, p.stderr)
        check(not os.path.exists(out), "a refused recording left its directory")
        out, p = record(args, work, "auto_branch", prog, "0.3", "2", expect_status=2)
        check("were emulated by stepping" in p.stderr, f"auto does not say it emulates: {p.stderr}")
        rec = Recording(args.covkit, out)
        check_branch_samples(rec, 0, prog)
        return
    check(p.returncode == 2, f"a branch stack is here (caps/branches {depth}, minimal counter "
                             f"{os.strerror(answer) if answer else 'opened'}) yet: status {p.returncode}: {p.stderr}")
    check(" branches)" in p.stderr, f"summary: {p.stderr}")
    rec = Recording(args.covkit, out)
    check(rec.header["mode"] == "branch" and int(rec.header["vector_length"]) >= 8, rec.header)
    check_perf_samples(rec, 0, prog)
    maps = rec.images[0]["maps"]
    with_branches = [s for s in rec.samples if s["branches"]]
    check(with_branches, "no sample has a branch stack")
    for s in with_branches:
        for a, b in s["branches"]:
            check(in_maps(maps, a) and in_maps(maps, b), f"branch {a:#x}->{b:#x} outside the mappings")
    check(lcov_hits(args, work, out, "spin.h"), "no line of spin.h found executed")


def scenario_perf_ring_wraps(args, work):
    """A ring of one page (--mmap-pages 1) filled by cpu-clock samples every
    100us of CPU time of four threads: the kernel writes many times the
    ring's size, so records and headers run across its end again and again.
    Every sample read back is whole (IP in the mappings, no ring warning),
    and samples lost to a full ring are counted, not silently missing."""
    need_perf(args, work)
    prog = compile_prog(work, "spinners", ["-pthread"])
    out = os.path.join(work, "perf_wraps.rec")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([args.covkit, "sample", "record", "--source", "perf", "--mode", "pc", "--period", "100us",
                        "--mmap-pages", "1", "-o", out, "--", prog, "0.4", "3"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"status {p.returncode}: {p.stderr}")
    rec = Recording(args.covkit, out)
    check(not rec.warnings, f"ring warnings: {rec.warnings}")
    check_perf_samples(rec, 0, prog)
    # A sample record is at least 48 bytes (header, IP, TID, TIME, a call
    # chain of one entry); one page holds at most 4096 / 48 of them.
    page = os.sysconf("SC_PAGE_SIZE")
    written = 48 * len(rec.samples)
    print(f"{len(rec.samples)} samples, at least {written} bytes through a ring of {page}; lost {rec.lost}")
    check(written > 8 * page, f"only {len(rec.samples)} samples: the ring did not wrap")
    # Not a power of two, or without perf: refused in one line.
    p = subprocess.run([args.covkit, "sample", "record", "--source", "perf", "--mode", "pc", "--mmap-pages", "3",
                        "-o", out + "3", "--", prog, "0.01", "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "power of two" in p.stderr, f"--mmap-pages 3: {p.returncode} {p.stderr}")
    p = subprocess.run([args.covkit, "sample", "record", "--mode", "breakpoint", "--mmap-pages", "4",
                        "-o", out + "4", "--", prog, "0.01", "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "--mmap-pages" in p.stderr, f"--mmap-pages with breakpoints: {p.returncode} {p.stderr}")


def cpu_seconds(pid):
    """user + system CPU time the process has used so far (/proc/PID/stat), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_spinners(work, seconds, threads):
    """spinners running `threads` threads besides main; returned once main
    says it spins and they all exist (a bound that only a hang reaches: a
    loaded machine starts threads late). Popen returns inside the exec, before
    the new program's command line and mappings are in place (covkit, started
    then, said the process had ended, 1 run in 20)."""
    prog = compile_prog(work, "spinners", ["-pthread"])
    child = subprocess.Popen([prog, str(seconds), str(threads)], stdout=subprocess.PIPE, text=True)
    if child.stdout.readline().strip() != "spinning":
        child.kill()
        child.wait()
        raise Failure("spinners did not start")
    task = f"/proc/{child.pid}/task"
    deadline = time.monotonic() + 120
    while not (os.path.isdir(task) and len(os.listdir(task)) == threads + 1):
        if time.monotonic() > deadline or child.poll() is not None:
            child.kill()
            child.wait()
            raise Failure(f"spinners did not start its {threads} threads")
        time.sleep(0.01)
    return prog, child


def scenario_perf_attach(args, work):
    """--pid in pc mode samples a running process through perf_event_open
    without stopping it: every thread, its mappings read from /proc, for
    --for T; the process goes on. One that ends meanwhile is said to; the
    runtime cannot attach, and branch mode needs a PMU."""
    need_perf(args, work)
    # CPU seconds (spin.h) enough to outlive any wait for covkit: it is killed below.
    prog, child = start_spinners(work, 600, 2)
    try:
        out = os.path.join(work, "attached.rec")
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([args.covkit, "sample", "record", "--mode", "pc", "--period", "2ms", "--pid",
                            str(child.pid), "--for", "2s", "-o", out], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"status {p.returncode}: {p.stderr}")
        check(f"attached to process {child.pid} (3 threads" in p.stderr, p.stderr)
        check("which goes on" in p.stderr, p.stderr)
        check(child.poll() is None, "the process did not go on")
        rec = Recording(args.covkit, out)
        check(len(rec.images) == 1, rec.images)
        image = rec.images[0]
        check(image["pid"] == child.pid and image["exe"] == prog and not image["ended"], image)
        check(image["ppid"] == os.getpid(), f"ppid {image['ppid']}, expected {os.getpid()}")
        check(any(m[2].endswith("/libc.so.6") for m in image["maps"]), image["maps"])
        # (2 s of wall time: each of the three threads gets its share of a
        # loaded machine's CPUs in it, and a sample per 2 ms of that.)
        tids = {s["tid"] for s in rec.samples}
        check(len(tids) == 3, f"samples from {len(tids)} threads, expected 3")
        check_perf_samples(rec, 0, prog)
    finally:
        child.kill()
        child.wait()
    # A process that ends while it is sampled: ended only once covkit says it
    # is attached (a timed end raced covkit's start on a loaded CI machine).
    prog, child = start_spinners(work, 600, 0)
    out = os.path.join(work, "ended.rec")
    shutil.rmtree(out, ignore_errors=True)
    rec_proc = subprocess.Popen([args.covkit, "sample", "record", "--mode", "pc", "--period", "2ms", "--pid",
                                 str(child.pid), "-o", out], stderr=subprocess.PIPE, text=True)
    try:
        first = rec_proc.stderr.readline()
        check(f"attached to process {child.pid}" in first, f"covkit did not attach: {first!r}")
        # CPU time for a few 2 ms samples, which check_perf_samples wants:
        # waited for as CPU time, which a loaded machine hands out slowly.
        since = cpu_seconds(child.pid)
        deadline = time.monotonic() + 120
        while (cpu_seconds(child.pid) or 0) - since < 0.1:
            check(time.monotonic() < deadline and child.poll() is None,
                  "the sampled process got no 0.1 s of CPU in 120 s, or ended")
            time.sleep(0.02)
        child.kill()
        child.wait()
        rest = rec_proc.stderr.read()
        status = rec_proc.wait(timeout=60)
    finally:
        if rec_proc.poll() is None:
            rec_proc.kill()
            rec_proc.wait()
        if child.poll() is None:
            child.kill()
            child.wait()
    check(status == 0 and f"process {child.pid} ended meanwhile" in rest, f"{status}: {first}{rest}")
    rec = Recording(args.covkit, out)
    check(len(rec.images) == 1 and rec.images[0]["ended"], rec.images)
    check_perf_samples(rec, 0, prog)
    # A process attached to as soon as Popen returns (inside its exec, its
    # command line not yet in place: 1 attach in 20 was refused as ended).
    for i in range(10):
        quick = subprocess.Popen([prog, "600", "0"], stdout=subprocess.DEVNULL)
        try:
            out = os.path.join(work, f"quick{i}.rec")
            shutil.rmtree(out, ignore_errors=True)
            p = subprocess.run([args.covkit, "sample", "record", "--mode", "pc", "--pid", str(quick.pid), "--for",
                                "0.05s", "-o", out], capture_output=True, text=True, timeout=120)
            check("already ended" not in p.stderr and "does not exist" not in p.stderr,
                  f"a process attached to during its exec: {p.returncode} {p.stderr}")
        finally:
            quick.kill()
            quick.wait()
    # A zombie (ended, not yet reaped) is said to have ended, nothing written.
    zombie = subprocess.Popen(["true"])
    deadline = time.monotonic() + 120
    while process_state(zombie.pid) != "Z":
        check(time.monotonic() < deadline, f"`true` did not end: state {process_state(zombie.pid)}")
        time.sleep(0.01)
    out = os.path.join(work, "zombie.rec")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([args.covkit, "sample", "record", "--mode", "pc", "--pid", str(zombie.pid), "--for", "0.1s",
                        "-o", out], capture_output=True, text=True, timeout=60)
    zombie.wait()
    check(p.returncode == 1 and f"process {zombie.pid} has already ended" in p.stderr, f"{p.returncode}: {p.stderr}")
    check(not os.path.exists(out), "a refused recording left its directory")
    # Refusals: one line each, nothing written.
    for extra, words in ((["--mode", "pc", "--source", "runtime"], "--source perf samples a running process"),
                         (["--mode", "branch"], "branch stack")):
        out = os.path.join(work, "refused.rec")
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([args.covkit, "sample", "record", *extra, "--pid", str(os.getpid()), "--for", "0.1s",
                            "-o", out], capture_output=True, text=True, timeout=60)
        if extra[1] == "branch" and p.returncode == 0:
            continue  # a PMU with a branch stack: attaching in branch mode works
        check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and words in p.stderr, p.stderr)
        check(not os.path.exists(out), "a refused recording left its directory")


def perf_record_data(args, work, name, *cmd, events="cpu-clock:u", call_graph="fp", expect_status=0):
    """`perf record` itself (linux-perf) around CMD, user-space cpu-clock
    samples every 250 us with call chains (frame pointers; None: none), to
    WORK/NAME.data."""
    if not shutil.which("perf"):
        if os.environ.get("CI"):
            raise Failure("perf (linux-perf) missing: scripts/install-deps.sh installs it")
        raise Skip("perf (linux-perf) is not installed")
    need_perf(args, work)  # perf_event_open itself may be refused here (paranoid level, seccomp)
    data = os.path.join(work, name + ".data")
    chains = ["--call-graph", call_graph] if call_graph else []
    p = subprocess.run(["perf", "record", "-q", "-e", events, "-c", "250000", *chains,
                        "-o", data, "--", *cmd], capture_output=True, text=True, timeout=120)
    if p.returncode != expect_status and any(why in p.stderr for why in (
            "perf_event_paranoid", "Permission", "Operation not permitted", "Function not implemented")):
        raise Skip(f"perf record is not allowed here: {p.stderr.strip()}")
    check(p.returncode == expect_status, f"perf record: status {p.returncode}; {p.stderr}")
    return data


def perf_script_samples(data):
    """perf's own reading of perf.data: (pid, tid, ip, call chain after the
    ip) per sample. perf script prints the IP as it ran with
    --hide-call-graph, and a chain's addresses relative to their files
    (address - mapping start + file offset); the two runs list the samples
    in the same order."""
    def script(*extra):
        p = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,ip", *extra], capture_output=True, text=True)
        check(p.returncode == 0, f"perf script: {p.stderr}")
        samples = []
        for line in p.stdout.splitlines():
            head = re.match(r"\s*(\d+)/(\d+)\s*([0-9a-f]+)?\s*$", line)
            if head:
                samples.append([int(head.group(1)), int(head.group(2)),
                                [] if head.group(3) is None else [int(head.group(3), 16)]])
            elif line.strip() and samples:
                samples[-1][2].append(int(line.split()[0], 16))
        return samples
    flat, chained = script("--hide-call-graph"), script()
    check(len(flat) == len(chained), f"perf script lists {len(flat)} samples, then {len(chained)}")
    return [(pid, tid, ips[0], chain[2][1:]) for (pid, tid, ips), chain in zip(flat, chained)]


def file_relative(maps_with_offsets, addr):
    for lo, hi, offset in maps_with_offsets:
        if lo <= addr < hi:
            return addr - lo + offset
    return None


def import_perf_data(args, work, name, data):
    out = os.path.join(work, name + ".rec")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([args.covkit, "sample", "import-perf", data, "-o", out], capture_output=True, text=True)
    check(p.returncode == 0, f"import-perf: status {p.returncode}; {p.stderr}")
    return out, Recording(args.covkit, out), p


def check_against_perf_script(rec, data):
    """Every sample perf script reads from perf.data, with the same pid, tid
    and IP, and a call chain that is perf's, cut where it leaves the image's
    mappings (frames without frame pointers)."""
    theirs = perf_script_samples(data)
    ours = [(rec.images[s["image"]]["pid"], s["tid"], s["ip"], s["image"], s["stack"]) for s in rec.samples]
    check(theirs, "perf script found no samples")
    check(sorted((p, t, ip) for p, t, ip, _, _ in ours) == sorted((p, t, ip) for p, t, ip, _ in theirs),
          f"{len(ours)} samples imported, perf script reads {len(theirs)}; (pid, tid, ip) differ")
    chains = {}
    for p, t, ip, chain in theirs:
        chains.setdefault((p, t, ip), []).append(chain)
    stacked = 0
    for p, t, ip, image, stack in ours:
        relative = [file_relative(rec.images[image]["offsets"], a) for a in stack]
        check(any(chain[:len(relative)] == relative for chain in chains[(p, t, ip)]),
              f"stack {[hex(a) for a in stack]} of sample {p}/{t} {ip:#x} is not a prefix of perf's chains")
        stacked += bool(stack)
    return stacked


def scenario_perf_data_threads(args, work):
    """perf.data of `perf record -e cpu-clock:u --call-graph fp` imported:
    the samples perf script reads, four threads, the PIE program and libc
    among the mappings (no --binary), and the analysis finds the spin loop."""
    prog = compile_prog(work, "threads", ["-pthread", "-fno-omit-frame-pointer"])
    data = perf_record_data(args, work, "threads", prog)
    out, rec, p = import_perf_data(args, work, "threads", data)
    check("4 threads" in p.stderr, f"summary: {p.stderr}")
    check(rec.header["mode"] == "pc" and rec.header["period_ns"] == "250000", rec.header)
    check(len(rec.images) == 1 and rec.images[0]["exe"] == prog, rec.images)
    check(any(m[2].endswith("/libc.so.6") for m in rec.images[0]["maps"]), rec.images[0]["maps"])
    stacked = check_against_perf_script(rec, data)
    check(stacked > 0, "no sample has a call stack")
    check_perf_samples(rec, 0, prog)
    hits = lcov_hits(args, work, out, "spin.h")
    check(hits, "no line of spin.h found executed")
    # sample report reads perf.data as it is, as the import saved it.
    check(lcov_hits(args, work, data, "spin.h") == hits, "sample report of perf.data differs from the import's")


def scenario_perf_data_fork_exec(args, work):
    """perf.data of a fork and of an exec: a child's image names its parent;
    an exec starts a new image in the same pid; a file of two events (each
    record then carries its counter's id) read as perf reads it."""
    fork = compile_prog(work, "fork")
    data = perf_record_data(args, work, "fork", fork, expect_status=5)
    _, rec, _ = import_perf_data(args, work, "fork", data)
    check_against_perf_script(rec, data)
    check(len(rec.images) == 2, f"{len(rec.images)} images, expected parent and child")
    pids = {im["pid"] for im in rec.images}
    check(sum(1 for im in rec.images if im["ppid"] in pids) == 1, f"no child names its parent: {rec.images}")
    for i in (0, 1):
        check_perf_samples(rec, i, fork)

    exe, loop = compile_prog(work, "exec"), compile_prog(work, "loop")
    data = perf_record_data(args, work, "exec", exe, loop, "0.3", "4", events="cpu-clock:u,task-clock:u",
                            expect_status=4)
    _, rec, _ = import_perf_data(args, work, "exec", data)
    check_against_perf_script(rec, data)
    first, second = rec.image_of(exe), rec.image_of(loop)
    check(first and second, f"images {[im['exe'] for im in rec.images]}")
    check(rec.images[first[0]]["pid"] == rec.images[second[0]]["pid"], "exec changed the pid")
    check_perf_samples(rec, second[0], loop)


def scenario_perf_data_layouts(args, work):
    """Other sample layouts perf writes, imported as perf reads them:
    --call-graph dwarf (ADDR, REGS_USER, STACK_USER and DATA_SRC around the
    fields covkit reads) and a group sampled by its leader with the
    members' values in each sample (PERF_SAMPLE_READ, PERF_FORMAT_GROUP;
    perf script prints one line per member, covkit keeps the one sample)."""
    loop = compile_prog(work, "loop")
    data = perf_record_data(args, work, "dwarf", loop, "0.1", call_graph="dwarf")
    _, rec, _ = import_perf_data(args, work, "dwarf", data)
    check_against_perf_script(rec, data)
    check_perf_samples(rec, 0, loop)

    # With call chains, which come after the values: a wrong skip misreads them.
    data = perf_record_data(args, work, "group", loop, "0.1", events="{cpu-clock:u,task-clock:u}:S")
    _, rec, _ = import_perf_data(args, work, "group", data)
    p = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,ip,event", "--hide-call-graph"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"perf script: {p.stderr}")
    leader = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\d+)/(\d+)\s+(\S+):\s+([0-9a-f]+)\s*$", line)
        if m and m.group(3) == "cpu-clock:u":
            leader.append((int(m.group(1)), int(m.group(2)), int(m.group(4), 16)))
    ours = [(rec.images[s["image"]]["pid"], s["tid"], s["ip"]) for s in rec.samples]
    check(leader and sorted(ours) == sorted(leader),
          f"{len(ours)} samples imported, perf script lists {len(leader)} of the group's leader")
    check_perf_samples(rec, 0, loop)


SCENARIOS = {name[len("scenario_"):]: fn for name, fn in globals().items() if name.startswith("scenario_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    args = ap.parse_args()
    if not shutil.which("gcc-12"):
        print("gcc-12 missing: skipped")
        return 77
    work = os.path.join(args.work, args.scenario)
    os.makedirs(work, exist_ok=True)
    try:
        SCENARIOS[args.scenario](args, work)
    except Failure as e:
        print(f"FAIL {args.scenario}: {e}")
        return 1
    except Skip as e:
        print(f"skipped {args.scenario}: {e}")
        return 77
    print(f"ok {args.scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
