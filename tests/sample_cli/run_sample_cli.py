#!/usr/bin/env python3
"""Scenarios of `covkit sample report` and `covkit sample compare`: one
program compiled twice by gcc-12 (-O2 -g, and -O2 -g --coverage for the
truth), run on the same input plain, under `covkit sample record` and
instrumented; the sampled coverage is checked against the truth gcov
measured, and against what the program does by construction.

  run_sample_cli.py --covkit build/covkit --work DIR SCENARIO

Exit 77 (skip) when gcc-12 is missing."""
import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)


def build(work):
    """The program plain and with --coverage, and the truth of one run."""
    src = os.path.join(work, "accuracy.c")
    shutil.copy(os.path.join(HERE, "progs", "accuracy.c"), src)
    plain = os.path.join(work, "plain")
    cov_dir = os.path.join(work, "truth")
    os.makedirs(cov_dir, exist_ok=True)
    subprocess.run(["gcc-12", "-O2", "-g", "-o", plain, src], check=True, cwd=work)
    subprocess.run(["gcc-12", "-O2", "-g", "--coverage", "-o", os.path.join(cov_dir, "prog"), src],
                   check=True, cwd=cov_dir)
    return plain, cov_dir


def truth_run(cov_dir, rounds):
    for f in os.listdir(cov_dir):
        if f.endswith(".gcda"):
            os.unlink(os.path.join(cov_dir, f))
    p = run([os.path.join(cov_dir, "prog"), str(rounds)])
    check(p.returncode == 0, f"truth run failed: {p.stderr}")
    return p.stdout


def record(args, work, name, plain, rounds, mode, period=None, env=None, extra=()):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    argv = [args.covkit, "sample", "record", "--mode", mode, "-o", out, *extra]
    if period:
        argv += ["--period", period]
    p = run(argv + ["--", plain, str(rounds)], env=env)
    check(p.returncode == 0, f"record --mode {mode} exited {p.returncode}: {p.stderr}")
    return out, p.stdout


def compare(args, dirs, cov_dir, *extra):
    p = run([args.covkit, "sample", "compare", *dirs, "--against", cov_dir, "--csv-summary", *extra])
    check(p.returncode == 0, f"compare exited {p.returncode}: {p.stderr}")
    recall, precision, divergence, hits, misses, false_pos = p.stdout.strip().split(",")
    return float(recall), float(precision), int(hits), int(misses), int(false_pos)


def lcov_lines(text, source_suffix):
    """{line: count} of the tracefile's record for the source."""
    lines, current = {}, None
    for row in text.splitlines():
        if row.startswith("SF:"):
            current = row[3:].endswith(source_suffix)
        elif current and row.startswith("DA:"):
            n, c = row[3:].split(",")[:2]
            lines[int(n)] = int(c)
    return lines


def source_line(text, needle):
    for i, row in enumerate(text.splitlines(), 1):
        if needle in row:
            return i
    raise Failure(f"no line with {needle!r}")


def scenario_breakpoint(args, work):
    """One run in breakpoint mode is the truth, line for line."""
    plain, cov_dir = build(work)
    expected_out = truth_run(cov_dir, 300)
    rec, out = record(args, work, "bp.rec", plain, 300, "breakpoint")
    check(out == expected_out, f"the program's output changed under breakpoints: {out!r} vs {expected_out!r}")
    recall, precision, hits, misses, false_pos = compare(args, [rec], cov_dir)
    check(misses == 0 and false_pos == 0 and hits > 10,
          f"breakpoint mode: {hits} hits, {misses} misses, {false_pos} false positives (recall {recall}, "
          f"precision {precision})")
    # never()'s body is listed, with 0: the report shows what was missed.
    lcov = os.path.join(work, "bp.info")
    p = run([args.covkit, "sample", "report", rec, "--lcov", lcov, "-r", work])
    check(p.returncode == 0, f"sample report: {p.stderr}")
    text = open(os.path.join(work, "accuracy.c")).read()
    lines = lcov_lines(open(lcov).read(), "accuracy.c")
    body = source_line(text, "long y = x * 7 + 1;")
    check(lines.get(body) == 0, f"never()'s line {body} should be listed with 0, got {lines.get(body)}")
    work_line = source_line(text, "printf(\"%ld\\n\", t);")
    check(lines.get(work_line, 0) > 0, f"main()'s printf line {work_line} should be covered: {lines.get(work_line)}")
    # The same lines under ptrace (--breakpoint-handler ptrace) as inside the program.
    pt = os.path.join(work, "bp-ptrace.rec")
    shutil.rmtree(pt, ignore_errors=True)
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "--breakpoint-handler", "ptrace", "-o", pt,
             "--", plain, "300"])
    check(p.returncode == 0, f"record --breakpoint-handler ptrace exited {p.returncode}: {p.stderr}")
    check(compare(args, [pt], cov_dir) == compare(args, [rec], cov_dir),
          "ptrace and the runtime disagree on the lines that ran")
    # A recording of breakpoint mode (which holds the shared hit flags) is
    # moved aside by the next one, as any recording is.
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "-o", rec, "--", plain, "300"])
    check(p.returncode == 0 and "is now" in p.stderr, f"second recording into {rec}: {p.returncode} {p.stderr!r}")


def scenario_branch(args, work):
    """Sampled branch vectors never claim a line that did not run."""
    plain, cov_dir = build(work)
    truth_run(cov_dir, 600000)
    dirs = []
    # work()'s loop holds nearly all the run's time: a vector of ~125 steps
    # sees its return, and so the lines of pick() and main(), in ~2.5% of the
    # samples, and stepping bounds a run to ~90 of them whatever the period:
    # one recording in ~12 saw only work()'s four lines, two together ~1 run
    # in 150 (a fresh clone's ASan run failed so); three, ~1 in 1,700.
    for i in range(3):
        rec, _ = record(args, work, f"br{i}.rec", plain, 600000, "branch", "2ms")
        dirs.append(rec)
    recall, precision, hits, misses, false_pos = compare(args, dirs, cov_dir)
    check(false_pos == 0, f"branch mode claimed {false_pos} lines that did not run")
    check(hits >= 5, f"branch mode found only {hits} covered lines (recall {recall})")
    # --show-inferred marks inferred lines, and only covered ones.
    js = os.path.join(work, "br.json")
    p = run([args.covkit, "sample", "report", *dirs, "--json", js, "--show-inferred", "-r", work])
    check(p.returncode == 0, f"sample report: {p.stderr}")
    doc = json.load(open(js))
    for f in doc["files"]:
        for line in f["lines"]:
            if line.get("inferred"):
                check(line["count"] > 0, f"an uncovered line marked inferred: {line}")
    # Without inference there is no more coverage than with it.
    r0 = compare(args, dirs, cov_dir, "--inference", "none")
    check(r0[2] <= hits, f"--inference none covers more ({r0[2]}) than dominators ({hits})")


def scenario_pc(args, work):
    plain, cov_dir = build(work)
    truth_run(cov_dir, 600000)
    rec, _ = record(args, work, "pc.rec", plain, 600000, "pc", "1ms")
    recall, precision, hits, misses, false_pos = compare(args, [rec], cov_dir)
    check(false_pos == 0, f"pc mode claimed {false_pos} lines that did not run")
    check(hits >= 1, f"pc mode found nothing (recall {recall})")


def scenario_errors(args, work):
    """Bad input: one line naming what is wrong, exit 1; never a crash."""
    plain, cov_dir = build(work)
    bad = os.path.join(work, "bad.rec")
    shutil.rmtree(bad, ignore_errors=True)
    os.makedirs(bad)
    with open(os.path.join(bad, "recording.json"), "w") as f:
        f.write("{not json")
    p = run([args.covkit, "sample", "report", bad])
    check(p.returncode == 1, f"corrupt recording: exit {p.returncode}")
    check(len(p.stderr.strip().splitlines()) == 1 and "bad.rec" in p.stderr,
          f"corrupt recording: want one line naming it, got {p.stderr!r}")
    # A file that is neither a recording directory nor a perf.data.
    for command in ("report", "dump"):
        p = run([args.covkit, "sample", command, os.path.join(work, "accuracy.c")])
        check(p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "accuracy.c" in p.stderr
              and "neither a recording directory" in p.stderr, f"sample {command} of a C file: {p.stderr!r}")
    # A path that is not there: one line naming it, as every command says it
    # (report and compare said CLI11's "DIR: Path does not exist: nonexist").
    for argv in (["report", "nonexist"], ["compare", "nonexist", "--against", work], ["dump", "nonexist"],
                 ["import-perf", "nonexist"]):
        p = run([args.covkit, "sample"] + argv, cwd=work)
        want = f"covkit sample {argv[0]}: nonexist: No such file or directory\n"
        check((p.returncode, p.stderr) == (1, want), f"sample {' '.join(argv)}: {p.returncode} {p.stderr!r}")
    rec, _ = record(args, work, "ok.rec", plain, 10, "breakpoint")
    p = run([args.covkit, "sample", "compare", rec, "--against", work + "/nothing-here"])
    check((p.returncode, p.stderr) == (1, f"covkit sample compare: {work}/nothing-here: No such file or directory\n"),
          f"missing truth: {p.returncode} {p.stderr!r}")
    empty = os.path.join(work, "empty-truth")
    os.makedirs(empty, exist_ok=True)
    p = run([args.covkit, "sample", "compare", rec, "--against", empty])
    check(p.returncode == 1 and "--coverage" in p.stderr, f"empty truth: {p.returncode} {p.stderr!r}")
    p = run([args.covkit, "sample"])
    check(p.returncode == 1 and "report" in p.stderr and "compare" in p.stderr, f"bare sample: {p.stderr!r}")
    p = run([args.covkit, "sample", "reprot"])
    check(p.returncode == 1 and "did you mean 'report'" in p.stderr, f"near miss: {p.stderr!r}")


def scenario_attach(args, work):
    """--pid: a running process's blocks are recorded only while attached
    (its threads and forked children too), and it goes on unharmed after
    covkit detaches: at Ctrl-C, or after --for while it sleeps."""
    src = os.path.join(work, "attached.c")
    shutil.copy(os.path.join(HERE, "progs", "attached.c"), src)
    exe = os.path.join(work, "attached")
    subprocess.run(["gcc-12", "-O2", "-g", "-pthread", "-o", exe, src], check=True, cwd=work)
    prog = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(cmd):
        prog.stdin.write(cmd + "\n")
        prog.stdin.flush()
        answer = prog.stdout.readline().strip()
        check(answer == f"done {cmd} 0", f"attach: the program answered {answer!r} to {cmd!r}")

    try:
        ask("a")
        rec = os.path.join(work, "attach.rec")
        cov = subprocess.Popen([args.covkit, "sample", "record", "--mode", "breakpoint", "--pid", str(prog.pid),
                                "-o", rec], stderr=subprocess.PIPE, text=True)
        first = cov.stderr.readline()
        check("attached to process" in first, f"attach: covkit said {first!r}")
        ask("b")
        cov.send_signal(signal.SIGINT)
        _, err = cov.communicate(timeout=60)
        check(cov.returncode == 0, f"attach: covkit exited {cov.returncode}: {first}{err}")
        check("which goes on" in err, f"attach: no word of detaching: {err!r}")
        ask("c")
        ask("b")  # the int3s are gone: the parts that ran while attached run again
        # --for while the program sleeps in read(): covkit's own clock ends it.
        # Nothing runs in that window: an empty recording, kept as asked.
        rec2 = os.path.join(work, "attach_for.rec")
        p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "--pid", str(prog.pid), "--for", "300ms",
                 "--allow-empty", "-o", rec2])
        check(p.returncode == 0 and "which goes on" in p.stderr and "warning: the recording is empty" in p.stderr,
              f"attach --for: {p.returncode} {p.stderr!r}")
        ask("a")
        prog.stdin.write("q\n")
        prog.stdin.flush()
        check(prog.wait(timeout=30) == 0, f"attach: the program exited {prog.returncode}")
    finally:
        if prog.poll() is None:
            prog.kill()
            prog.wait()
    lcov = os.path.join(work, "attach.info")
    p = run([args.covkit, "sample", "report", rec, "--lcov", lcov, "-r", work])
    check(p.returncode == 0, f"sample report: {p.stderr}")
    text = open(src).read()
    lines = lcov_lines(open(lcov).read(), "attached.c")
    for needle, ran in (("sink += i * 3;", False), ("sink += i * 5;", True), ("sink += i * 7;", True),
                        ("sink += i * 11;", False), ("pid_t child = fork();", True)):
        n = source_line(text, needle)
        got = lines.get(n)
        check(got is not None, f"attach: line {n} ({needle}) not listed")
        check((got > 0) == ran, f"attach: line {n} ({needle}) has count {got}, expected it {'' if ran else 'not '}covered")
    # Refusals, one line each.
    bp = ["--mode", "breakpoint"]
    for argv, words in ((bp + ["--pid", "2147483646"], "does not exist"),
                        (bp + ["--pid", str(os.getpid()), "--", "true"], "give no PROG"),
                        (["--mode", "pc", "--source", "runtime", "--pid", str(os.getpid())],
                         "cannot use --source runtime"),
                        (bp + ["--for", "1s", "--", "true"], "goes with --pid")):
        p = run([args.covkit, "sample", "record", "-o", os.path.join(work, "refused.rec")] + argv)
        check(p.returncode == 1 and words in p.stderr and p.stderr.count("\n") == 1,
              f"record {' '.join(argv)}: exit {p.returncode}, {p.stderr!r}")
        check(not os.path.exists(os.path.join(work, "refused.rec")), f"record {' '.join(argv)} left a directory")


def thread_states(pid):
    """The state letters of the process's threads."""
    states = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.add(f.read().rsplit(")", 1)[1].split()[0])
        except FileNotFoundError:
            pass
    return states


def settled_stopped(pid):
    """Whether the process is stopped, given the moment a thread let go by a
    tracer takes to get back into its group-stop (R, then T), which a loaded
    machine stretches: the bound only matters to a process that never stops."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if thread_states(pid) == {"T"}:
            return True
        time.sleep(0.01)
    return False


def scenario_attach_stopped(args, work):
    """--pid on a process its user stopped (SIGSTOP): it stays stopped while
    attached (no block of it runs), runs while a SIGCONT has it run, and is
    still stopped once covkit detaches."""
    src = os.path.join(work, "attached.c")
    shutil.copy(os.path.join(HERE, "progs", "attached.c"), src)
    exe = os.path.join(work, "attached")
    subprocess.run(["gcc-12", "-O2", "-g", "-pthread", "-o", exe, src], check=True, cwd=work)
    prog = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        prog.stdin.write("a\n")
        prog.stdin.flush()
        check(prog.stdout.readline().strip() == "done a 0", "attach_stopped: no answer to 'a'")
        os.kill(prog.pid, signal.SIGSTOP)
        check(settled_stopped(prog.pid), f"attach_stopped: not stopped: {thread_states(prog.pid)}")
        prog.stdin.write("b\n")  # read once it runs again
        prog.stdin.flush()
        rec = os.path.join(work, "stopped.rec")
        # The process stays stopped: nothing runs, an empty recording kept as asked.
        p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "--pid", str(prog.pid), "--for", "700ms",
                 "--allow-empty", "-o", rec])
        check(p.returncode == 0, f"attach_stopped: covkit exited {p.returncode}: {p.stderr!r}")
        check(settled_stopped(prog.pid), f"attach_stopped: after detaching: {thread_states(prog.pid)}")
        check(not select.select([prog.stdout], [], [], 0)[0], "attach_stopped: the stopped process ran while attached")
        check(" 0 of " in p.stderr, f"attach_stopped: blocks ran while stopped: {p.stderr!r}")
        # SIGCONT while attached: it runs (and is recorded); a SIGSTOP then
        # stops it again, while attached too.
        rec2 = os.path.join(work, "continued.rec")
        cov = subprocess.Popen([args.covkit, "sample", "record", "--mode", "breakpoint", "--pid", str(prog.pid),
                                "--for", "60s", "-o", rec2], stderr=subprocess.PIPE, text=True)
        check("attached to process" in cov.stderr.readline(), "attach_stopped: covkit did not attach")
        os.kill(prog.pid, signal.SIGCONT)
        check(prog.stdout.readline().strip() == "done b 0", "attach_stopped: no answer to 'b' after SIGCONT")
        os.kill(prog.pid, signal.SIGSTOP)
        check(held_stopped(prog.pid, 0.5), f"attach_stopped: SIGSTOP while attached: {thread_states(prog.pid)}")
        cov.send_signal(signal.SIGINT)  # detach
        _, err = cov.communicate(timeout=60)
        check(cov.returncode == 0, f"attach_stopped: covkit exited {cov.returncode}: {err!r}")
        check(" 0 of " not in err, f"attach_stopped: nothing recorded after SIGCONT: {err!r}")
        check(settled_stopped(prog.pid), f"attach_stopped: after SIGSTOP: {thread_states(prog.pid)}")
        os.kill(prog.pid, signal.SIGCONT)
        prog.stdin.write("q\n")
        prog.stdin.flush()
        check(prog.wait(timeout=30) == 0, f"attach_stopped: the program exited {prog.returncode}")
    finally:
        if prog.poll() is None:
            prog.kill()
            prog.wait()


def child_pid(parent):
    """The pid of the one child of `parent` (the program covkit runs); the
    bound only matters when it never comes."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                            return int(entry)
                except (FileNotFoundError, ProcessLookupError):
                    pass
        time.sleep(0.01)
    raise Failure(f"process {parent} has no child")


def answer(out, seconds):
    """The next line of `out`, or None when none comes within `seconds`."""
    return out.readline().strip() if select.select([out], [], [], seconds)[0] else None


def held_stopped(pid, seconds, within=60.0):
    """Whether every thread of the process is seen stopped (T; t under a
    tracer) throughout some `seconds` within `within` s. Not from the first
    sight of a stop: a traced thread is stopped (t) first in its
    signal-delivery stop, then runnable (R) from the tracer's passing the
    signal on until the group-stop takes it, which on a loaded machine is
    long enough to be seen. A program that goes on running never holds a
    stop that long."""
    deadline = time.monotonic() + within
    held_since = None
    while time.monotonic() < deadline:
        now = time.monotonic()
        if not thread_states(pid) <= {"T", "t"}:
            held_since = None
        elif held_since is None:
            held_since = now
        elif now - held_since >= seconds:
            return True
        time.sleep(0.02)
    return False


def scenario_launch_stopped(args, work):
    """A program covkit runs under ptrace (--breakpoint-handler ptrace) and
    its user stops (SIGSTOP, or Ctrl-Z: SIGTSTP to the whole job) stays
    stopped until SIGCONT, as it would without covkit, and the recording is
    complete: what it ran after the SIGCONT (a thread and a forked child
    too) is in it."""
    src = os.path.join(work, "attached.c")
    shutil.copy(os.path.join(HERE, "progs", "attached.c"), src)
    exe = os.path.join(work, "attached")
    subprocess.run(["gcc-12", "-O2", "-g", "-pthread", "-o", exe, src], check=True, cwd=work)
    rec = os.path.join(work, "launched.rec")
    # A job of its own in this session, as a shell makes one, for Ctrl-Z.
    cov = subprocess.Popen([args.covkit, "sample", "record", "--mode", "breakpoint", "--breakpoint-handler", "ptrace",
                            "-o", rec, "--", exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, bufsize=1, process_group=0)
    try:
        def command(c):
            cov.stdin.write(c + "\n")
            cov.stdin.flush()
        command("a")
        check(answer(cov.stdout, 60) == "done a 0", "launch_stopped: no answer to 'a'")
        prog = child_pid(cov.pid)
        os.kill(prog, signal.SIGSTOP)
        command("b")  # read once it runs again
        check(held_stopped(prog, 0.7), f"launch_stopped: SIGSTOP did not stop it: {thread_states(prog)}")
        check(answer(cov.stdout, 0) is None, "launch_stopped: the stopped program ran")
        os.kill(prog, signal.SIGCONT)
        check(answer(cov.stdout, 60) == "done b 0", "launch_stopped: no answer to 'b' after SIGCONT")
        # Ctrl-Z: covkit stops too, and both go on at the SIGCONT of `fg`.
        os.killpg(cov.pid, signal.SIGTSTP)
        command("c")
        check(held_stopped(prog, 0.7), f"launch_stopped: SIGTSTP did not stop it: {thread_states(prog)}")
        check(answer(cov.stdout, 0) is None, "launch_stopped: the program ran after SIGTSTP")
        os.killpg(cov.pid, signal.SIGCONT)
        check(answer(cov.stdout, 60) == "done c 0", "launch_stopped: no answer to 'c' after SIGCONT")
        command("q")
        _, err = cov.communicate(timeout=60)
        check(cov.returncode == 0, f"launch_stopped: covkit exited {cov.returncode}: {err!r}")
    finally:
        if cov.poll() is None:
            os.killpg(cov.pid, signal.SIGKILL)
            cov.wait()
    _, funcs = report_functions(args, rec, work, "launched")
    for name in ("before", "during", "in_thread", "in_child", "after"):
        check(funcs.get(name, (0, 0, 0))[1] > 0, f"launch_stopped: {name}() not recorded: {funcs.get(name)}")


def function_addresses(binary):
    """{name: address} of the file's defined functions (nm; the unstripped file)."""
    p = run(["nm", "--defined-only", binary])
    check(p.returncode == 0, f"nm {binary}: {p.stderr}")
    out = {}
    for row in p.stdout.splitlines():
        parts = row.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            out.setdefault(parts[2], int(parts[0], 16))
    return out


def report_functions(args, rec, work, name):
    """(report's stderr, {function name: (blocks, blocks executed, count)}) of `sample report --json`."""
    js = os.path.join(work, name + ".json")
    p = run([args.covkit, "sample", "report", rec, "--json", js, "-r", work])
    check(p.returncode == 0, f"sample report {name}: exit {p.returncode}: {p.stderr}")
    funcs = {}
    for f in json.load(open(js))["files"]:
        for fn in f["functions"]:
            funcs[fn["name"]] = (fn["blocks"], fn["blocks_executed"], fn["execution_count"])
    return p.stderr, funcs


def scenario_stripped(args, work):
    """strip --strip-all: functions from .eh_frame give the unstripped file's
    functions (by address) and the same blocks hit, named fn_<hex>; without
    .eh_frame too, one clear line and no crash."""
    src = os.path.join(work, "accuracy.c")
    shutil.copy(os.path.join(HERE, "progs", "accuracy.c"), src)
    plain, stripped, bare = (os.path.join(work, n) for n in ("plain", "stripped", "bare"))
    subprocess.run(["gcc-12", "-O2", "-g", "-o", plain, src], check=True, cwd=work)
    subprocess.run(["strip", "--strip-all", "-o", stripped, plain], check=True)
    subprocess.run(["objcopy", "--remove-section", ".eh_frame", "--remove-section", ".eh_frame_hdr", stripped, bare],
                   check=True)
    # strip keeps the build-id, under which breakpoint sites are cached: both
    # share one cache, and the stripped one (other content, same build-id, as
    # a binary of another user's that copied one would be) must compute its
    # own answers, never take the plain one's (that it has lines, its sites).
    shutil.rmtree(os.path.join(work, "cache-shared"), ignore_errors=True)

    def fresh_cache(name):
        return dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache-shared"))
    rec_plain, out_plain = record(args, work, "plain.rec", plain, 300, "breakpoint", env=fresh_cache("plain"))
    # Without line information it is not planted unless named; the report
    # says so.
    # Nothing planted in a stripped program by default: empty, kept as asked.
    rec_default, _ = record(args, work, "stripped-default.rec", stripped, 300, "breakpoint",
                            env=fresh_cache("stripped"), extra=("--allow-empty",))
    p = run([args.covkit, "sample", "report", rec_default])
    check(p.returncode == 0, f"sample report: {p.stderr}")
    said = [l for l in p.stderr.splitlines() if "not planted" in l]
    check(len(said) == 1 and said[0].endswith(": " + stripped) and "no line information" in said[0]
          and "--images" in said[0],
          f"want one note that {stripped} was not planted for want of line information, got {p.stderr!r}")
    # Without --allow-empty the refusal says that nothing was planted, and why,
    # naming the program first (not "it ran none of the planted blocks").
    refused = os.path.join(work, "stripped-refused.rec")
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "-o", refused, "--", stripped, "300"],
            env=fresh_cache("stripped"))
    said = [l for l in p.stderr.splitlines() if "the recording is empty" in l]
    check(p.returncode != 0 and len(said) == 1
          and f"nothing was planted: {stripped}: no line information" in said[0]
          and "planted blocks" not in said[0] and not os.path.exists(refused),
          f"want a refusal naming {stripped} and its missing line information, got {p.returncode} {p.stderr!r}")
    rec_stripped, out_stripped = record(args, work, "stripped.rec", stripped, 300, "breakpoint",
                                        env=fresh_cache("stripped"), extra=["--images", "stripped"])
    check(out_plain == out_stripped, f"outputs differ: {out_plain!r} vs {out_stripped!r}")

    _, plain_funcs = report_functions(args, rec_plain, work, "plain")
    err, stripped_funcs = report_functions(args, rec_stripped, work, "stripped")
    note = [l for l in err.splitlines() if ".eh_frame" in l]
    check(len(note) == 1 and stripped in note[0] and "fn_<address>" in note[0],
          f"want one warning naming {stripped} and .eh_frame, got {err!r}")
    check(stripped_funcs and all(n.startswith("fn_") for n in stripped_funcs),
          f"stripped functions should be named fn_<hex>: {sorted(stripped_funcs)}")
    addresses = function_addresses(plain)
    compared = 0
    for name, counts in plain_funcs.items():
        want = f"fn_{addresses[name]:x}"
        check(want in stripped_funcs, f"{name} (at {want}) is missing from the stripped report")
        check(stripped_funcs[want] == counts,
              f"{name}: blocks/executed/count {counts} unstripped, {stripped_funcs[want]} stripped")
        compared += 1
    # main, work's helpers and never() at least; each ran or was listed with 0.
    check(compared >= 3 and any(c[1] > 0 for c in plain_funcs.values()),
          f"only {compared} functions compared: {sorted(plain_funcs)}")
    check(any(c[1] == 0 for c in plain_funcs.values()), "never() should be listed with no block run")

    rec_bare, out_bare = record(args, work, "bare.rec", bare, 300, "breakpoint", env=fresh_cache("bare"),
                                extra=["--images", "*/bare", "--allow-empty"])  # nothing can be planted
    check(out_bare == out_plain, f"the bare program's output changed: {out_bare!r}")
    p = run([args.covkit, "sample", "report", rec_bare, "--json", os.path.join(work, "bare.json")])
    check(p.returncode == 0, f"sample report of the bare file: exit {p.returncode}: {p.stderr}")
    # The recorder's warning (kept in the recording) and the analysis's: each
    # one line naming the file and why.
    lines = [l for l in p.stderr.splitlines() if bare in l]
    check(lines and all("no .eh_frame" in l and "functions unknown" in l for l in lines),
          f"want lines naming {bare} and why, got {p.stderr!r}")
    check(len(p.stderr.splitlines()) == len(lines), f"other messages: {p.stderr!r}")


def perf_brstackoff_text(dump):
    """`covkit sample dump` of a branch-mode recording as perf
    would print the same vectors with `perf script -F
    pid,tid,ip,brstackoff,dso`: offsets in the file named after each
    address, newest entry first."""
    images, lines, current = {}, [], None
    for row in dump.splitlines():
        f = row.split()
        if row.startswith("image "):
            current = images.setdefault(int(f[1]), {"pid": int(f[2].split("=")[1]), "maps": []})
        elif row.startswith("  mapping "):
            lo, hi = (int(x, 16) for x in f[1].split("-"))
            fields = dict(x.split("=", 1) for x in f[2:])
            current["maps"].append((lo, hi, int(fields["offset"], 16), fields["path"]))
        elif row.startswith("sample "):
            fields = dict(x.split("=", 1) for x in f[1:])
            sample = {"image": images[int(fields["image"])], "tid": fields["tid"], "ip": fields["ip"]}
        elif row.startswith("  branches "):
            def off(a):
                for lo, hi, offset, path in sample["image"]["maps"]:
                    if lo <= a < hi:
                        return f"0x{a - lo + offset:x}({path})"
                return f"0x{a:x}([unknown])"
            entries = []
            for pair in reversed(f[2:]):
                frm, to = (int(x, 16) for x in pair.split("->"))
                entries.append(f"{off(frm)}/{off(to)}/P/-/-/0")
            lines.append(f"{sample['image']['pid']}/{sample['tid']} {sample['ip'][2:]} " + "  ".join(entries))
    return "\n".join(lines) + "\n"


def scenario_import_perf(args, work):
    """perf's brstackoff of a PIE, imported, finds what the same vectors
    found when covkit recorded them: the emulated branch recording is
    printed as perf would print it (file offsets), imported with
    --brstackoff, and compared line for line."""
    _, cov_dir = build(work)
    # A PIE linked by lld: its code sits 4 KiB above its file offset, so
    # only offsets turned into addresses find its lines.
    plain = os.path.join(work, "plain-lld")
    subprocess.run(["gcc-12", "-O2", "-g", "-fuse-ld=lld", "-o", plain, "accuracy.c"], check=True, cwd=work)
    truth_run(cov_dir, 600000)
    rec, _ = record(args, work, "br.rec", plain, 600000, "branch", "2ms")
    p = run([args.covkit, "sample", "dump", rec])
    check(p.returncode == 0, f"sample dump: {p.stderr}")
    text = os.path.join(work, "perf.txt")
    with open(text, "w") as f:
        f.write(perf_brstackoff_text(p.stdout))
    imported = os.path.join(work, "perf.rec")
    shutil.rmtree(imported, ignore_errors=True)
    p = run([args.covkit, "sample", "import-perf", "--brstackoff", text, "--binary", plain, "-o", imported])
    check(p.returncode == 0, f"import-perf --brstackoff exited {p.returncode}: {p.stderr}")
    recall, precision, hits, misses, false_pos = compare(args, [imported], cov_dir)
    check(false_pos == 0, f"the imported vectors claimed {false_pos} lines that did not run")
    _, _, own_hits, _, _ = compare(args, [rec], cov_dir)
    # The recording's own steps also prove the instructions before each
    # vector's first branch: the import may find a little less, not more.
    check(0 < hits <= own_hits and hits * 10 >= own_hits * 8,
          f"imported {hits} lines, the recording itself {own_hits}")
    # Without --brstackoff the offsets are taken as addresses: none is.
    p = run([args.covkit, "sample", "import-perf", text, "--binary", plain, "-o", imported + ".abs"])
    check(p.returncode == 0, f"import-perf of brstackoff text without the flag: {p.stderr}")
    p = run([args.covkit, "sample", "compare", imported + ".abs", "--against", cov_dir, "--csv-summary"])
    abs_hits = int(p.stdout.strip().split(",")[3]) if p.returncode == 0 else 0
    check(abs_hits < hits, f"offsets taken as addresses found {abs_hits} lines, converted {hits}")

def scenario_import_perf_data(args, work):
    """perf.data that perf 6.1 recorded (tests/data/perf/cpu-clock.data:
    `perf record -e cpu-clock:u -c 500000 --call-graph fp -- ./loop 0.05`),
    imported: the samples are those perf script read from it then
    (cpu-clock.script), sample dump reads the file itself alike, --binary
    is said to be ignored, and a damaged or
    piped perf.data is one line naming the file, exit 1, no recording."""
    data_dir = os.path.join(HERE, "..", "data", "perf")
    data = os.path.join(data_dir, "cpu-clock.data")
    out = os.path.join(work, "perfdata.rec")
    shutil.rmtree(out, ignore_errors=True)
    p = run([args.covkit, "sample", "import-perf", data, "-o", out])
    check(p.returncode == 0, f"import-perf of perf.data exited {p.returncode}: {p.stderr}")
    p = run([args.covkit, "sample", "dump", out])
    check(p.returncode == 0, f"sample dump: {p.stderr}")
    check("recording mode=pc period_ns=500000" in p.stdout, p.stdout.splitlines()[0])
    pids = {}
    ours = []
    for line in p.stdout.splitlines():
        words = line.split()
        if words[0] == "image":
            fields = dict(w.split("=", 1) for w in words[2:])
            pids[int(words[1])] = int(fields["pid"])
        elif words[0] == "sample":
            fields = dict(w.split("=", 1) for w in words[1:])
            ours.append((pids[int(fields["image"])], int(fields["tid"]), int(fields["ip"], 16)))
    theirs = []
    with open(os.path.join(data_dir, "cpu-clock.script")) as f:
        for line in f:
            task, ip = line.split()
            pid, tid = task.split("/")
            theirs.append((int(pid), int(tid), int(ip, 16)))
    check(len(theirs) > 50, f"cpu-clock.script holds {len(theirs)} samples")
    check(sorted(ours) == sorted(theirs), f"{len(ours)} samples imported, perf script read {len(theirs)}, or they differ")

    # sample dump (and report, compare) read perf.data as it is: the same samples.
    direct = run([args.covkit, "sample", "dump", data])
    check(direct.returncode == 0, f"sample dump of perf.data: {direct.stderr}")
    samples = lambda text: [l for l in text.splitlines() if l.startswith(("sample ", "  stack"))]
    check(samples(direct.stdout) == samples(p.stdout), "sample dump of perf.data differs from the import's")

    p = run([args.covkit, "sample", "import-perf", data, "--binary", "/bin/true", "-o", out + "2"])
    check(p.returncode == 0 and "ignored" in p.stderr, f"--binary with perf.data: {p.returncode} {p.stderr}")

    with open(data, "rb") as f:
        raw = f.read()
    data_offset = int.from_bytes(raw[40:48], "little")
    cut = os.path.join(work, "cut.data")
    damaged = bytearray(raw)
    # The first record claims more than the data section holds.
    damaged[data_offset + 6:data_offset + 8] = (0xfff0).to_bytes(2, "little")
    with open(cut, "wb") as f:
        f.write(damaged)
    piped = bytearray(raw)
    piped[8:16] = (16).to_bytes(8, "little")
    pipe = os.path.join(work, "pipe.data")
    with open(pipe, "wb") as f:
        f.write(piped)
    for bad, words in ((cut, "does not fit"), (pipe, "pipe")):
        target = os.path.join(work, "bad.rec")
        shutil.rmtree(target, ignore_errors=True)
        p = run([args.covkit, "sample", "import-perf", bad, "-o", target])
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 1 and len(lines) == 1 and bad in lines[0] and words in lines[0],
              f"import-perf of {bad}: {p.returncode} {p.stderr}")
        check(not os.path.exists(target), f"a refused import left {target}")


def lcov_functions(text, source_suffix):
    """{function: count} of the tracefile's record for the source."""
    functions, current = {}, None
    for row in text.splitlines():
        if row.startswith("SF:"):
            current = row[3:].endswith(source_suffix)
        elif current and row.startswith("FNDA:"):
            count, name = row[5:].split(",", 1)
            functions[name] = int(count)
    return functions


def scenario_inlined(args, work):
    """Functions inlined into main whose out-of-line copies never run were
    called all the same: their inlined instances (DW_TAG_inlined_subroutine)
    that ran count; one whose instance is on a path not taken does not."""
    src = os.path.join(work, "inlined.c")
    shutil.copy(os.path.join(HERE, "progs", "inlined.c"), src)
    plain = os.path.join(work, "plain")
    cov_dir = os.path.join(work, "truth")
    os.makedirs(cov_dir)
    subprocess.run(["gcc-12", "-O2", "-g", "-o", plain, src], check=True, cwd=work)
    subprocess.run(["gcc-12", "-O2", "-g", "--coverage", "-o", os.path.join(cov_dir, "prog"), src],
                   check=True, cwd=cov_dir)
    truth_run(cov_dir, 7)
    rec, _ = record(args, work, "inl.rec", plain, 7, "breakpoint")
    recall, precision, hits, misses, false_pos = compare(args, [rec], cov_dir)
    check(misses == 0 and false_pos == 0 and hits > 10,
          f"inlined: {hits} hits, {misses} misses, {false_pos} false positives")
    lcov = os.path.join(work, "inl.info")
    p = run([args.covkit, "sample", "report", rec, "--lcov", lcov, "-r", work])
    check(p.returncode == 0, f"sample report: {p.stderr}")
    functions = lcov_functions(open(lcov).read(), "inlined.c")
    for name in ("main", "square", "scale", "twice"):
        check(functions.get(name, 0) >= 1, f"inlined: {name} ran (inlined into main) but counts "
              f"{functions.get(name)}: {functions}")
    check(functions.get("shout") == 0, f"inlined: shout never ran but counts {functions.get('shout')}")


def scenario_attach_window(args, work):
    """--pid records a window of the run: a block that dominates one hit in
    the window (serve()'s set-up, before the loop) may have run before it
    opened and is not inferred; a block that post-dominates one is (the
    loop's end after its last command). Without --pid (a whole run) the
    same program's set-up is covered."""
    src = os.path.join(work, "window.c")
    shutil.copy(os.path.join(HERE, "progs", "window.c"), src)
    exe = os.path.join(work, "window")
    subprocess.run(["gcc-12", "-O2", "-g", "-o", exe, src], check=True, cwd=work)
    text = open(src).read()
    setup = [source_line(text, "/* set-up */"), source_line(text, "/* set-up, done */")]
    command, end = source_line(text, "/* a command */"), source_line(text, "/* the end */")
    prog = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    rec = os.path.join(work, "window.rec")
    try:
        check(prog.stdout.readline().strip() == "ready", "window: the program did not get ready")
        cov = subprocess.Popen([args.covkit, "sample", "record", "--mode", "breakpoint", "--pid", str(prog.pid),
                                "-o", rec], stderr=subprocess.PIPE, text=True)
        first = cov.stderr.readline()
        check("attached to process" in first, f"window: covkit said {first!r}")
        for c in "xy":
            prog.stdin.write(c + "\n")
            prog.stdin.flush()
            check(prog.stdout.readline().strip() == f"done {c}", "window: no answer")
        prog.stdin.write("q\n")
        prog.stdin.flush()
        check(prog.wait(timeout=30) == 0, f"window: the program exited {prog.returncode}")
        _, err = cov.communicate(timeout=60)
        check(cov.returncode == 0, f"window: covkit exited {cov.returncode}: {first}{err}")
    finally:
        if prog.poll() is None:
            prog.kill()
            prog.wait()
    check('"attached": true' in open(os.path.join(rec, "recording.json")).read(), "window: not marked attached")
    for inference in ("dominators", "shye", "sound"):
        lcov = os.path.join(work, f"window-{inference}.info")
        p = run([args.covkit, "sample", "report", rec, "--inference", inference, "--lcov", lcov, "-r", work])
        check(p.returncode == 0, f"sample report: {p.stderr}")
        lines = lcov_lines(open(lcov).read(), "window.c")
        for n in setup:
            check(lines.get(n) == 0, f"window ({inference}): set-up line {n} covered ({lines.get(n)}): it ran before "
                                     "the attach")
        check(lines.get(command, 0) > 0, f"window ({inference}): command line {command} not covered: {lines}")
        check(lines.get(end, 0) > 0, f"window ({inference}): line {end} after the loop not covered: {lines}")
    # The whole run, for contrast: the set-up is covered.
    whole = os.path.join(work, "whole.rec")
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "-o", whole, "--", exe], input="x\nq\n")
    check(p.returncode == 0, f"window: record {p.returncode}: {p.stderr}")
    lcov = os.path.join(work, "whole.info")
    p = run([args.covkit, "sample", "report", whole, "--lcov", lcov, "-r", work])
    lines = lcov_lines(open(lcov).read(), "window.c")
    check(all(lines.get(n, 0) > 0 for n in setup), f"window: a whole run's set-up lines not covered: {lines}")


def has_branch_stack():
    """Whether this machine's PMU samples branch stacks (`perf list` would say; the VMs these tests run on have
    none). Read from covkit itself: `sample record` says when it falls back."""
    return os.path.exists("/sys/bus/event_source/devices/cpu/caps/branches")


def scenario_empty(args, work):
    """Issue 35, trap 2: the default mode records something on a short program
    (breakpoints where the machine has no PMU branch stack); an empty
    recording exits 1 and keeps the earlier one (unless --allow-empty);
    compare says "no data" instead of a ratio over nothing."""
    plain, cov_dir = build(work)
    truth_run(cov_dir, 10)
    rec = os.path.join(work, "short.rec")
    p = run([args.covkit, "sample", "record", "-o", rec, "--", plain, "10"])
    check(p.returncode == 0, f"record with the default mode exited {p.returncode}: {p.stderr}")
    mode = json.load(open(os.path.join(rec, "recording.json")))["mode"]
    if not has_branch_stack():
        check(mode == "breakpoint" and "breakpoint mode" in p.stderr,
              f"no PMU here: the default mode should be breakpoint, got {mode}: {p.stderr!r}")
    recall, precision, hits, misses, false_pos = compare(args, [rec], cov_dir)
    check(hits > 10 and misses == 0, f"default mode on a short run: {hits} hits, {misses} misses")
    good = sorted(os.listdir(rec))
    # Branch sampling through the runtime on a run far shorter than one period: nothing.
    p = run([args.covkit, "sample", "record", "--mode", "branch", "--source", "runtime", "-o", rec, "--", plain, "10"])
    check(p.returncode == 1 and "the recording is empty" in p.stderr and "--allow-empty" in p.stderr
          and "earlier recording is back" in p.stderr, f"empty branch recording: {p.returncode} {p.stderr!r}")
    check(sorted(os.listdir(rec)) == good and json.load(open(os.path.join(rec, "recording.json")))["mode"] == mode,
          "the earlier recording was not kept")
    # A program that fails keeps its own exit status.
    p = run([args.covkit, "sample", "record", "--mode", "branch", "--source", "runtime", "-o", rec, "--", "false"])
    check(p.returncode == 1 and "the recording is empty" in p.stderr, f"false: {p.returncode} {p.stderr!r}")
    # --allow-empty keeps it, with a warning and the program's status.
    empty = os.path.join(work, "empty.rec")
    p = run([args.covkit, "sample", "record", "--mode", "branch", "--source", "runtime", "--allow-empty", "-o", empty,
             "--", plain, "10"])
    check(p.returncode == 0 and "warning: the recording is empty" in p.stderr, f"--allow-empty: {p.returncode} {p.stderr!r}")
    # compare: no precision without a sampled line, no recall without a true one.
    p = run([args.covkit, "sample", "compare", empty, "--against", cov_dir])
    check(p.returncode == 0, f"compare of an empty recording: {p.returncode} {p.stderr}")
    total = [row for row in p.stdout.splitlines() if row.startswith("TOTAL")]
    check(len(total) == 1 and total[0].split()[-3:] == ["0.0%", "no", "data"],
          f"empty sample: recall 0.0%, precision 'no data': {p.stdout!r}")
    check("the sample covers no line" in p.stderr, f"empty sample: no warning: {p.stderr!r}")
    p = run([args.covkit, "sample", "compare", empty, "--against", cov_dir, "--csv-summary"])
    check(p.stdout.split(",")[:2] == ["0.000000", ""], f"empty sample, CSV: {p.stdout!r}")
    for f in os.listdir(cov_dir):
        if f.endswith(".gcda"):
            os.unlink(os.path.join(cov_dir, f))
    p = run([args.covkit, "sample", "compare", rec, "--against", cov_dir, "--csv-summary"])
    check(p.returncode == 0 and p.stdout.split(",")[0] == "" and "the truth covers no line" in p.stderr,
          f"a truth that never ran: no recall: {p.stdout!r} {p.stderr!r}")


def scenario_defaults_and_kinds(args, work):
    """Issue 35, item 6: sample report and compare read ./covkit-sample.data
    by default, as record writes it; a path of the wrong kind is named for
    what it is, with the command that reads it, by every command; a sampled
    HTML report labels its counts as lower bounds."""
    plain, cov_dir = build(work)
    truth_run(cov_dir, 50)
    p = run([args.covkit, "sample", "record", "--mode", "breakpoint", "--", plain, "50"], cwd=work)
    check(p.returncode == 0, f"record into the default directory: {p.stderr}")
    p = run([args.covkit, "sample", "report", "--lcov", "default.info", "-r", work], cwd=work)
    check(p.returncode == 0 and "SF:" in open(os.path.join(work, "default.info")).read(),
          f"sample report without DIR: {p.returncode} {p.stderr!r}")
    p = run([args.covkit, "sample", "compare", "--against", cov_dir, "--csv-summary"], cwd=work)
    check(p.returncode == 0 and p.stdout.count(",") == 5, f"sample compare without DIR: {p.returncode} {p.stderr!r}")
    # A sampled HTML report: counts are lower bounds, and says so.
    p = run([args.covkit, "sample", "report", "--html", "html", "-r", work], cwd=work)
    check(p.returncode == 0, f"sample report --html: {p.stderr}")
    def pages(site):
        out = []
        for root, _, files in os.walk(os.path.join(work, site)):
            out += [open(os.path.join(root, f)).read() for f in files if f.endswith(".html") and f != "index.html"]
        return out
    sampled = [pg for pg in pages("html") if "accuracy.c" in pg and "id=\"functions\"" in pg]
    check(sampled and "Calls (at least)" in sampled[0] and "\u2265" in sampled[0] and "lower-bounds" in sampled[0],
          "the sampled HTML page does not label its counts as lower bounds")
    p = run([args.covkit, "report", "--html", "html-cov", cov_dir], cwd=work)
    truth = [pg for pg in pages("html-cov") if "id=\"functions\"" in pg]
    check(p.returncode == 0 and truth and not any("Calls (at least)" in pg for pg in truth),
          "an instrumented report labels its counts as lower bounds")
    # Wrong kinds, named.
    sample_dir = os.path.join(work, "covkit-sample.data")
    for argv, words in ((["trace", "report", sample_dir], ["a covkit sample recording", "covkit sample report"]),
                        (["trace", "timeline", sample_dir, "-o", os.path.join(work, "t.json")],
                         ["a covkit sample recording"]),
                        (["report", sample_dir], ["a covkit sample recording", "covkit sample report"]),
                        (["sample", "report", cov_dir], ["a build tree", "covkit report"]),
                        (["sample", "report", os.path.join(cov_dir, "prog")], ["an ELF program"]),
                        (["gprof", plain, sample_dir], ["a covkit sample recording"])):
        p = run([args.covkit] + argv, cwd=work)
        check(p.returncode != 0 and all(w in p.stderr for w in words),
              f"covkit {' '.join(argv)}: want {words} in one line, got {p.returncode} {p.stderr!r}")


def cpu_seconds(pids):
    """User + system CPU time the processes used so far (/proc/PID/stat)."""
    total = 0.0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def scenario_terminated(args, work):
    """SIGTERM (or SIGHUP) sent to covkit alone while it records a program it
    started, as a CI job's time limit sends it: as with perf record, the
    signal goes on to the program, which ends, and covkit writes what it
    recorded. Before, covkit died, leaving the program running unrecorded
    (pc mode) or killed with nothing kept (breakpoint mode)."""
    plain, _ = build(work)
    real = os.path.realpath(plain)

    def running_programs():
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if os.readlink(f"/proc/{pid}/exe") == real:
                        found.append(int(pid))
                except OSError:
                    pass
        return found

    for mode, sig in (("pc", signal.SIGTERM), ("breakpoint", signal.SIGTERM), ("pc", signal.SIGHUP)):
        out = os.path.join(work, f"term-{mode}-{sig}.rec")
        shutil.rmtree(out, ignore_errors=True)
        err_path = out + ".stderr"
        err_file = open(err_path, "w")
        p = subprocess.Popen([args.covkit, "sample", "record", "--mode", mode, "-o", out, "--", plain, "999999999999"],
                             stdout=subprocess.DEVNULL, stderr=err_file)
        err_file.close()
        deadline = time.monotonic() + 60
        while not running_programs() and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.05)
        check(running_programs(), f"{mode}: the program did not start")
        # Some samples: the runtime's timer counts the thread's own CPU time,
        # which a loaded machine hands out slowly, so wait for CPU, not wall time.
        cpu_deadline = time.monotonic() + 120
        while cpu_seconds(running_programs()) < 0.5 and time.monotonic() < cpu_deadline and p.poll() is None:
            time.sleep(0.05)
        p.send_signal(sig)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            for pid in running_programs():
                os.kill(pid, signal.SIGKILL)
            raise Failure(f"{mode}, signal {sig}: covkit did not end after it")
        err = open(err_path).read()
        # covkit reaps the program before it ends (waitpid): none may be
        # left now, not even one still on its way out (a zombie has no exe
        # and is not counted). A sleep here only hid one that was.
        left = running_programs()
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        check(p.returncode != -sig, f"{mode}, signal {sig}: covkit died of it: {err!r}")
        check(not left, f"{mode}, signal {sig}: the program still runs after covkit ended: {left}")
        r = run([args.covkit, "sample", "report", out, "--lcov", "-", "-r", work])
        check(r.returncode == 0 and "DA:" in r.stdout, f"{mode}, signal {sig}: the recording: {r.stderr}")


SCENARIOS = {"attach": scenario_attach, "attach_window": scenario_attach_window, "empty": scenario_empty,
             "defaults_and_kinds": scenario_defaults_and_kinds, "attach_stopped": scenario_attach_stopped,
             "launch_stopped": scenario_launch_stopped,
             "breakpoint": scenario_breakpoint, "branch": scenario_branch,
             "pc": scenario_pc, "errors": scenario_errors, "stripped": scenario_stripped,
             "import_perf": scenario_import_perf, "import_perf_data": scenario_import_perf_data,
             "inlined": scenario_inlined, "terminated": scenario_terminated}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--covkit", required=True)
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
