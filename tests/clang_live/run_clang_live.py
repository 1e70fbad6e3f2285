#!/usr/bin/env python3
"""covkit live dump / reset of running processes built with clang's
source-based coverage (-fprofile-instr-generate -fcoverage-mapping), for
each clang-N given that is installed (one server program per compiler):

  runtime   `live dump PID -o DIR` at an instant where the server's own
            runtime wrote its file (__llvm_profile_write_file) is that file,
            byte for byte, and `covkit report` reads it as it reads the
            runtime's file (lcov equal)
  reset     `live dump --reset` then more work: the server's next file holds
            what the same work gives after its own __llvm_profile_reset_
            counters() (llvm-profdata merge -text equal); likewise `live reset`
  hostile   (once) a process whose profile sections are damaged gets one
            line and exit 1, nothing written, and the process lives on
  twins     (once) two instrumented libraries of one file name (a/libtwin.so,
            b/libtwin.so) give two dumps, neither replacing the other, each
            holding its own library's counts

  run_clang_live.py COVKIT VERSION...     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_checks import check, finish, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
COVKIT = None


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Server:
    def __init__(self, exe, cwd):
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(cwd, "unused-%p.profraw"))
        self.p = subprocess.Popen([exe], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def say(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline().strip()
        if answer != "ok":
            raise RuntimeError(f"server answered {answer!r} to {line!r}")

    def close(self):
        # Killed: its exit would write its profile again, into the last
        # file it was told to write (so that file would hold two profiles).
        self.p.kill()
        self.p.wait()


def profdata_text(tool, path):
    r = run([tool, "merge", "-text", "-o", "-", path])
    if r.returncode != 0:
        return "llvm-profdata failed: " + r.stderr
    return r.stdout


def dumped(directory, exe, pid):
    return os.path.join(directory, f"{os.path.basename(exe)}.{pid}.profraw")


def lcov(profile, exe, cwd):
    r = run([COVKIT, "report", "-q", "--lcov", "-", "--object", exe, profile], cwd=cwd)
    return r.returncode, r.stdout + r.stderr


def scenarios(version, tmp):
    clang, profdata = f"clang-{version}", f"llvm-profdata-{version}"
    if not shutil.which(clang) or not shutil.which(profdata):
        print(f"clang {version}: skipped ({clang} or {profdata} missing)")
        return False
    d = os.path.join(tmp, f"c{version}")
    os.makedirs(d)
    exe = os.path.join(d, "server")
    r = run([clang, "-O0", "-g", "-fprofile-instr-generate", "-fcoverage-mapping", os.path.join(HERE, "server.c"),
             "-o", exe])
    if r.returncode != 0:
        check(False, f"clang {version}: build failed: {r.stderr}")
        return True
    print(f"clang {version}:", flush=True)

    # runtime: the dump is the runtime's own file at the same instant.
    s = Server(exe, d)
    try:
        s.say("work 7")
        s.say("write " + os.path.join(d, "own1.profraw"))
        r = run([COVKIT, "live", "dump", str(s.p.pid), "-o", os.path.join(d, "d1")])
        check(r.returncode == 0, f"clang {version}: live dump: {r.stderr}")
        out = dumped(os.path.join(d, "d1"), exe, s.p.pid)
        if r.returncode == 0:
            check(os.path.exists(out) and read(out) == read(os.path.join(d, "own1.profraw")),
                  f"clang {version}: the dump differs from the runtime's own file (cmp {out} {d}/own1.profraw)")
            a, b = lcov(out, exe, d), lcov(os.path.join(d, "own1.profraw"), exe, d)
            check(a[0] == 0 and a == b and "DA:" in a[1], f"clang {version}: covkit report of the dump: {a} vs {b}")
            # live report: the same report, no file left behind.
            r = run([COVKIT, "live", "report", "-q", "--lcov", "-", str(s.p.pid)], cwd=d)
            check(r.returncode == 0 and r.stdout + r.stderr == a[1],
                  f"clang {version}: live report differs from the dump's report: {r.stdout + r.stderr} vs {a[1]}")
        # A second dump into the same directory never replaces the file.
        r = run([COVKIT, "live", "dump", str(s.p.pid), "-o", os.path.join(d, "d1")])
        check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and "exists" in r.stderr,
              f"clang {version}: a dump over an existing file: {r.returncode} {r.stderr}")
        # Without -o: one line, nothing written.
        r = run([COVKIT, "live", "dump", "--reset", str(s.p.pid)])
        check(r.returncode == 1 and "-o DIR" in r.stderr and len(r.stderr.splitlines()) == 1,
              f"clang {version}: dump without -o: {r.stderr}")

        # reset (dump --reset): the dump holds everything so far, and the
        # counters restart from zero.
        s.say("work 5")
        s.say("write " + os.path.join(d, "own2.profraw"))
        r = run([COVKIT, "live", "dump", "--reset", str(s.p.pid), "-o", os.path.join(d, "d2")])
        check(r.returncode == 0, f"clang {version}: live dump --reset: {r.stderr}")
        if r.returncode == 0:
            check(read(dumped(os.path.join(d, "d2"), exe, s.p.pid)) == read(os.path.join(d, "own2.profraw")),
                  f"clang {version}: the --reset dump differs from the runtime's own file")
        s.say("work 3")
        s.say("write " + os.path.join(d, "after-dump-reset.profraw"))
        # live reset alone.
        r = run([COVKIT, "live", "reset", str(s.p.pid)])
        check(r.returncode == 0, f"clang {version}: live reset: {r.stderr}")
        s.say("work 2")
        s.say("write " + os.path.join(d, "after-reset.profraw"))
    finally:
        s.close()
    # The oracle: the same steps with the runtime's own reset.
    ref = Server(exe, d)
    try:
        ref.say("work 7")
        ref.say("work 5")
        ref.say("reset")
        ref.say("work 3")
        ref.say("write " + os.path.join(d, "ref-dump-reset.profraw"))
        ref.say("reset")
        ref.say("work 2")
        ref.say("write " + os.path.join(d, "ref-reset.profraw"))
    finally:
        ref.close()
    for mine, theirs in (("after-dump-reset", "ref-dump-reset"), ("after-reset", "ref-reset")):
        a = profdata_text(profdata, os.path.join(d, mine + ".profraw"))
        b = profdata_text(profdata, os.path.join(d, theirs + ".profraw"))
        check(a == b and "failed" not in a, f"clang {version}: {mine} differs from {theirs}:\n{a}\n---\n{b}")
    # The deltas add up: the --reset dump plus what came after equals the
    # whole run, as llvm-profdata adds them.
    total = run([profdata, "merge", "-o", os.path.join(d, "sum.profdata"),
                 dumped(os.path.join(d, "d2"), exe, s.p.pid), os.path.join(d, "after-dump-reset.profraw")])
    whole = Server(exe, d)
    try:
        # The same commands (the loop counts each one).
        whole.say("work 7")
        whole.say("write " + os.path.join(d, "w1.profraw"))
        whole.say("work 5")
        whole.say("write " + os.path.join(d, "w2.profraw"))
        whole.say("work 3")
        whole.say("write " + os.path.join(d, "whole.profraw"))
    finally:
        whole.close()
    check(total.returncode == 0 and profdata_text(profdata, os.path.join(d, "sum.profdata")) ==
          profdata_text(profdata, os.path.join(d, "whole.profraw")),
          f"clang {version}: the --reset dump and the file after it do not add up to the whole run")
    return True


def hostile(tmp):
    gcc = shutil.which("gcc") or shutil.which("cc")
    for define, expect in (("-DHOSTILE_ODD_DATA", "no whole number of 48-byte records"),
                           ("-DHOSTILE_FAR_COUNTERS", "lie outside __llvm_prf_cnts")):
        exe = os.path.join(tmp, "hostile" + define.lower())
        r = run([gcc, define, os.path.join(HERE, "hostile.c"), "-o", exe])
        if r.returncode != 0:
            check(False, f"hostile build: {r.stderr}")
            continue
        p = subprocess.Popen([exe], stdout=subprocess.PIPE, text=True)
        try:
            p.stdout.readline()
            out = os.path.join(tmp, "hostile-out" + define.lower())
            r = run([COVKIT, "live", "dump", str(p.pid), "-o", out])
            check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and expect in r.stderr,
                  f"hostile {define}: {r.returncode} {r.stderr!r}")
            check(not os.path.exists(out) or not os.listdir(out), f"hostile {define}: files were written")
            r = run([COVKIT, "live", "reset", str(p.pid)])
            check(r.returncode == 1 and len(r.stderr.splitlines()) == 1 and expect in r.stderr,
                  f"hostile {define}: reset: {r.returncode} {r.stderr!r}")
            check(p.poll() is None, f"hostile {define}: the process died")
        finally:
            p.kill()
            p.wait()


def twins(version, tmp):
    clang, profdata = f"clang-{version}", f"llvm-profdata-{version}"
    d = os.path.join(tmp, "twins")
    libs = []
    for n in (1, 2):
        lib = os.path.join(d, "ab"[n - 1], "libtwin.so")
        os.makedirs(os.path.dirname(lib))
        r = run([clang, "-O0", "-shared", "-fPIC", f"-DTWIN={n}", "-fprofile-instr-generate", "-fcoverage-mapping",
                 os.path.join(HERE, "twin_lib.c"), "-o", lib])
        check(r.returncode == 0, f"twins: build of {lib}: {r.stderr}")
        libs.append(lib)
    exe = os.path.join(d, "twins")
    r = run([clang, "-O0", os.path.join(HERE, "twins.c"), "-o", exe, "-ldl"])
    check(r.returncode == 0, f"twins: build: {r.stderr}")
    if not all(os.path.exists(f) for f in libs + [exe]):
        return
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(d, "unused-%p.profraw"))
    p = subprocess.Popen([exe, *libs], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        check(p.stdout.readline().strip() == "ready", "twins: the program did not start")
        out = os.path.join(d, "out")
        r = run([COVKIT, "live", "dump", str(p.pid), "-o", out])
        check(r.returncode == 0, f"twins: live dump: {r.returncode} {r.stderr}")
        names = sorted(os.listdir(out)) if os.path.isdir(out) else []
        want = [f"libtwin.so.{p.pid}.2.profraw", f"libtwin.so.{p.pid}.profraw"]
        check(names == want, f"twins: dumped {names}, expected {want}")
        # Each dump holds one library's counts: twin() entered 3 and 6 times.
        entries = set()
        for name in names:
            text = profdata_text(profdata, os.path.join(out, name))
            lines = text.splitlines()
            if "# Counter Values:" in lines:
                entries.add(lines[lines.index("# Counter Values:") + 1])
            else:
                check(False, f"twins: {name}: no counters in {text!r}")
        check(entries == {"3", "6"}, f"twins: entry counts {entries}, expected 3 and 6")
    finally:
        p.kill()
        p.wait()


def main():
    global COVKIT
    COVKIT = os.path.abspath(sys.argv[1])
    versions = sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="covkit-clang-live-")
    try:
        ran = [v for v in versions if scenarios(v, tmp)]
        hostile(tmp)
        if ran:
            twins(ran[-1], tmp)
        if not ran:
            print("no clang to test with: skipped")
            return 77
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
