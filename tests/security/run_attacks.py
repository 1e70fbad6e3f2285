#!/usr/bin/env python3
"""Attacks on a root covkit by an unprivileged user (issue 32), as CI runs
them: this script runs as root, the attacker's steps run as user 65534
(nobody) through setpriv, and covkit runs as root against what that user
prepared. Each scenario asserts that covkit wrote nothing where the
attacker pointed it and disclosed nothing that user could not read, and
that it said so in one line with exit status 1.

  run_attacks.py --covkit build/covkit [--work DIR] [-v] [--keep] SCENARIO...  (or "all")

Races are won deterministically: COVKIT_TEST_STOP_AT (util/output_path.h)
makes covkit stop itself (SIGSTOP) at a named point, the script waits for
the stop, makes the attacker's move, and lets covkit go on (SIGCONT).

Exit 0 when every scenario passes, 1 on a failure, 77 when not root or a
tool is missing (setpriv, gcc-12).
"""
import argparse
import hashlib
import os
import re
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")
ATTACKER = 65534  # nobody


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def site_text(out):
    """Every file of the HTML site under `out`, as one text."""
    return "".join(open(os.path.join(d, f), errors="replace").read() for d, _, fs in os.walk(out) for f in fs)


def check_not_disclosed(pages, stderr, names, command, markers):
    """None of `markers` (text, what it is) in the pages, and each of the
    source `names` said to be not readable."""
    for leaked, what in markers:
        check(leaked not in pages, f"{command} disclosed {what}")
    for n in names:
        check(f"{n}: source not readable" in stderr, f"report did not say why {n} was not shown: {stderr!r}")


def check(cond, what):
    if not cond:
        raise Failure(what)


def one_line_error(r, what, *words, status=1):
    """covkit refused in one line with exit status `status`, naming `words`."""
    check(r.returncode == status, f"{what}: exit {r.returncode}, want {status}: {r.stderr!r}")
    errors = [l for l in r.stderr.splitlines() if ": warning: " not in l]  # (/bin/true is not instrumented)
    check(len(errors) == 1, f"{what}: not one error line on stderr: {r.stderr!r}")
    for w in words:
        check(w in r.stderr, f"{what}: {w!r} not in {r.stderr!r}")


# ------------------------------------------------------------------ a stream for `live unpack`

GCFN, GCDA, VERSION = 0x6763666E, 0x67636461, 0x4232322A


def word(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def gcda_bytes(counters):
    body = word(GCDA) + word(VERSION) + word(0xFFFFFFFF) + word(0xC0FFEE)
    body += word(0x01000000) + word(12) + word(1) + word(0x1111) + word(0x2222)
    body += word(0x01A10000) + word(8 * len(counters)) + b"".join(struct.pack("<q", c) for c in counters)
    return body + word(0)


def stream_bytes(name, counters):
    raw = name.encode() + b"\0"
    return word(GCFN) + word(VERSION) + word(len(raw)) + raw + gcda_bytes(counters)


# ------------------------------------------------------------------ the world

class Env:
    def __init__(self, args):
        self.covkit = os.path.abspath(args.covkit)
        self.verbose = args.verbose
        # Below /tmp, not the build tree: the attacker must reach its own
        # directory, and the work directory may lie below one only root
        # can enter (a 0700 home).
        self.base = tempfile.mkdtemp(prefix="covkit-attacks-")
        os.chmod(self.base, 0o755)
        # The attacker's home: theirs to fill with links.
        self.home = os.path.join(self.base, "home")
        os.makedirs(self.home)
        os.chown(self.home, ATTACKER, ATTACKER)
        # What only root may touch: a directory the attacker wants written
        # into, a secret they want to read.
        self.rootonly = os.path.join(self.base, "rootonly")
        os.makedirs(self.rootonly, mode=0o700)
        os.chmod(self.rootonly, 0o700)
        self.victim = os.path.join(self.rootonly, "victimdir")
        os.makedirs(self.victim)
        self.secret = os.path.join(self.rootonly, "secret.txt")
        with open(self.secret, "w") as f:
            f.write("TOPSECRET-LINE\n")
        os.chmod(self.secret, 0o600)
        self.root_work = os.path.join(self.base, "root")
        os.makedirs(self.root_work, mode=0o700)
        # Journals of killed or failed --reset dumps stay in this run, not in
        # root's own /var/lib/covkit, where later dumps would find them.
        os.environ["COVKIT_STATE_DIR"] = self.fresh_dir("state")

    def fresh_dir(self, name):
        """An empty directory of root's, under root_work."""
        d = os.path.join(self.root_work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, mode=0o700)
        return d

    def log(self, *a):
        if self.verbose:
            print(*a, flush=True)

    def run(self, argv, ok=True, **kw):
        self.log("$", " ".join(argv))
        p = subprocess.run(argv, capture_output=True, text=True, **kw)
        self.log(p.stdout + p.stderr)
        if ok and p.returncode != 0:
            raise Failure(f"{' '.join(argv)} exited {p.returncode}: {p.stderr.strip()}")
        return p

    def covkit_run(self, args, ok=False, **kw):
        return self.run([self.covkit, *args], ok=ok, **kw)

    def attacker_covkit(self):
        """covkit and its runtimes where the attacker can run them: the build
        tree may lie below a directory only root can enter (a fresh clone in
        a 0700 mktemp directory), and covkit looks for a runtime beside
        itself with the attacker's rights."""
        tools = os.path.join(self.base, "tools")
        if not os.path.isdir(tools):
            os.makedirs(tools)
            os.chmod(tools, 0o755)
            here = os.path.dirname(self.covkit)
            for name in ("covkit", "libcovkit-trace.so", "libcovkit-sample.so"):
                if os.path.exists(os.path.join(here, name)):
                    shutil.copy2(os.path.join(here, name), os.path.join(tools, name))
                    os.chmod(os.path.join(tools, name), 0o755)
        return os.path.join(tools, "covkit")

    def as_attacker(self, argv, ok=True, **kw):
        return self.run(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", *argv], ok=ok, **kw)

    def attacker_dir(self, name):
        d = os.path.join(self.home, name)
        self.as_attacker(["mkdir", "-p", d])
        return d

    def attacker_link(self, target, link):
        self.as_attacker(["ln", "-sfn", target, link])

    def victim_untouched(self, what):
        for d, dirs, files in os.walk(self.victim):
            check(not dirs and not files, f"{what}: written into the victim directory: {dirs + files}")
        check(open(self.secret).read() == "TOPSECRET-LINE\n", f"{what}: the secret was changed")

    def build_hostile(self, name, extra_source=""):
        """hostile.c built with --coverage into the attacker's directory,
        owned by the attacker (as if they had built it)."""
        d = os.path.join(self.home, name)
        os.makedirs(d)
        src = os.path.join(d, "hostile.c")
        with open(os.path.join(PROGS, "hostile.c")) as f:
            text = f.read()
        with open(src, "w") as f:
            f.write(text + extra_source)
        self.run(["gcc-12", "--coverage", "-O0", "-g", "-Wl,--wrap=__gcov_init", "-o", "hostile", "hostile.c"], cwd=d)
        subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", d], check=True)
        return d


class Hostile:
    """The attacker's program, running as the attacker."""

    def __init__(self, env, d, name=None, text=None, fanout=False):
        e = {"PATH": "/usr/bin:/bin"}
        if fanout:
            e["HOSTILE_FANOUT"] = "1"
        if name is not None:
            e["HOSTILE_NAME"] = name
        if text is not None:
            e["HOSTILE_TEXT"] = text
        argv = ["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", os.path.join(d, "hostile")]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=e, cwd=d)
        self.pid = self.p.pid
        line = self.p.stdout.readline()
        check(line.startswith("ready"), f"the hostile program did not start: {line!r}")

    def quit(self):
        try:
            self.p.stdin.write("q\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            pass
        self.p.wait(timeout=20)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def stopped(pid, timeout=60):
    """Waits until process `pid` is stopped (state T); False if it ended."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state in ("T", "t"):
            return True
        if state == "Z":
            return False
        time.sleep(0.01)
    raise Failure(f"process {pid} did not stop at the test point")


def blocked_in_open(procs, timeout=120):
    """Waits until each process is blocked in an openat() system call (a
    FIFO's open waiting for its other end): only then does a covkit that
    opened the FIFO let it go on, which is what the scenarios look for.
    (x86-64: openat is system call 257.)"""
    deadline = time.time() + timeout
    for p in procs:
        while True:
            try:
                with open(f"/proc/{p.pid}/syscall") as f:
                    if f.read().split()[0] == "257":
                        break
            except (OSError, IndexError):
                pass
            check(p.poll() is None and time.time() < deadline, f"process {p.pid} never waited in a FIFO's open")
            time.sleep(0.01)


def staging_dirs(parent):
    return [n for n in os.listdir(parent) if ".covkit-staging-" in n]


# ------------------------------------------------------------------ scenarios

def scenario_link_targets(env):
    """Every output covkit creates or fills, given as a link the attacker
    planted to a directory only root may write: refused, nothing written."""
    b = env.build_hostile("prog")
    h = Hostile(env, b)
    try:
        stream = os.path.join(env.root_work, "dump.bin")
        with open(stream, "wb") as f:
            f.write(stream_bytes("/b/app.gcda", [1, 2]))
        tree = os.path.join(env.root_work, "tree")
        os.makedirs(tree)
        with open(os.path.join(tree, "x.gcda"), "wb") as f:
            f.write(gcda_bytes([3, 4]))
        commands = {
            "live dump -o": ["live", "dump", str(h.pid), "-o", "{out}"],
            "live unpack -o": ["live", "unpack", stream, "-o", "{out}"],
            "merge -o": ["merge", tree, "-o", "{out}"],
            "live report --html": ["live", "report", str(h.pid), "--html", "{out}"],
            "report --html": ["report", "-q", "--root", b, b, "--html", "{out}"],
            "sample record -o": ["sample", "record", "-o", "{out}", "--", "/bin/true"],
            "trace record -o": ["trace", "record", "-o", "{out}", "--", "/bin/true"],
        }
        for what, argv in commands.items():
            for how in ("target", "parent"):
                # The output itself is the link, or a directory on the way.
                link = os.path.join(env.home, f"snap-{how}")
                env.attacker_link(env.victim, link)
                out = link if how == "target" else os.path.join(link, "sub")
                r = env.covkit_run([a.replace("{out}", out) for a in argv])
                env.victim_untouched(f"{what} ({how})")
                # A report that cannot be written exits 3 (covkit report's rule).
                one_line_error(r, f"{what} ({how})", "symbolic link", status=3 if "report" in what else 1)
                check(os.path.islink(link), f"{what} ({how}): the planted link was removed")
        # Files: `report --lcov FILE`, gcov's .gcov files and gprof's gmon.sum
        # in the working directory.
        victim_file = os.path.join(env.victim, "planted")
        link = os.path.join(env.home, "cov.info")
        env.attacker_link(victim_file, link)
        r = env.covkit_run(["report", "-q", "--root", b, b, "--lcov", link])
        env.victim_untouched("report --lcov")
        check(r.returncode != 0 and "symbolic link" in r.stderr, f"report --lcov through a link: {r.stderr!r}")
    finally:
        h.quit()
    gcov_dir = env.attacker_dir("gcov-cwd")
    env.attacker_link(os.path.join(env.victim, "planted.gcov"), os.path.join(gcov_dir, "hostile.c.gcov"))
    r = env.covkit_run(["gcov", "-o", b, os.path.join(b, "hostile.c")], cwd=gcov_dir)
    env.victim_untouched("gcov")
    check("symbolic link" in r.stdout + r.stderr, f"gcov wrote through a link without a word: {r.stdout + r.stderr!r}")
    # gprof -s writes gmon.sum where it runs.
    g = env.attacker_dir("gprof")
    src = os.path.join(env.root_work, "prof.c")
    with open(src, "w") as f:
        f.write("int f(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i; return s; }\n"
                "int main(void) { return f(100000) == 3; }\n")
    env.run(["gcc-12", "-pg", "-O0", "-o", os.path.join(g, "prof"), src])
    env.run([os.path.join(g, "prof")], cwd=g, ok=False)
    env.attacker_link(os.path.join(env.victim, "gmon.sum"), os.path.join(g, "gmon.sum"))
    r = env.covkit_run(["gprof", "-s", "prof", "gmon.out"], cwd=g)
    env.victim_untouched("gprof -s")
    one_line_error(r, "gprof -s", "symbolic link")


def scenario_object_names(env):
    """A process that renamed its objects: names that are no .gcda, or climb
    out of -o DIR, are refused; nothing is written anywhere."""
    b = env.build_hostile("names")
    for name, why in (("/x.conf", "no .gcda file name"),
                      ("/../../../x.gcda", "climbs above the root"),
                      ("/tmp/a\nb.gcda", "control characters")):
        h = Hostile(env, b, name=name, text="ATTACKER-TEXT-LINE\n")
        try:
            out = os.path.join(env.root_work, "names-out")
            shutil.rmtree(out, ignore_errors=True)
            r = env.covkit_run(["live", "dump", str(h.pid), "-o", out])
            one_line_error(r, f"dump of an object named {name!r}", why)
            check(not os.path.exists(out), f"{name!r}: the dump wrote {out}")
            check(not os.path.exists("/x.conf"), f"{name!r}: /x.conf written")
            # Into the program's own paths neither (a ".." there is the
            # program's to resolve, as its libgcov would, with its own rights:
            # it may not write at /).
            # A name refused is refused before the reset. A ".." name is
            # reset, its write refused by the kernel (user 65534 at /): the
            # counts go to a rescue directory, the journal is finished, and
            # no later dump finds it again (once, each later dump of root
            # made one more empty rescue directory, for ever).
            tmp, state = env.fresh_dir("names-tmp"), env.fresh_dir("names-state")
            denv = dict(os.environ, TMPDIR=tmp, COVKIT_STATE_DIR=state)
            r = env.covkit_run(["live", "dump", "--reset", str(h.pid)], env=denv)
            check(r.returncode == 1, f"dump --reset of an object named {name!r}: {r.stderr!r}")
            rescued = os.listdir(tmp)
            if ".." not in name:
                one_line_error(r, f"dump --reset of an object named {name!r}", why)
                check(not rescued, f"{name!r}: refused, yet rescued: {rescued}")
            else:
                check(len(rescued) == 1 and rescued[0] in r.stderr, f"{name!r}: rescued {rescued}: {r.stderr!r}")
                found = [os.path.relpath(os.path.join(d, f), os.path.join(tmp, rescued[0]))
                         for d, _, fs in os.walk(os.path.join(tmp, rescued[0])) for f in fs]
                check(found == ["x.gcda"], f"{name!r}: the rescue holds {found}, want x.gcda (the root's)")
            journals = [f for _, _, fs in os.walk(state) for f in fs]
            check(not journals, f"{name!r}: journals left: {journals}")
            again = env.covkit_run(["live", "dump", str(h.pid), "-o", os.path.join(env.root_work, "names-again")],
                                   env=denv)
            check("was killed" not in again.stderr and os.listdir(tmp) == rescued,
                  f"{name!r}: the next dump found something left: {again.stderr!r} {os.listdir(tmp)}")
        finally:
            h.kill()
    check(not os.path.exists("/x.conf") and not os.path.exists("/x.gcda"), "a hostile name was written at /")


def run_raced(env, argv, point, what, attacker_move):
    """run_stopping for a point covkit passes once, where the attacker's
    move must be made: (exit status, stdout, stderr). Wins the race every
    time."""
    status, out, err, moved = run_stopping(env, argv, point, attacker_move, what)
    check(moved, f"{what}: covkit ended before the stop point {point}")
    return status, out, err


def race_staging(env, what, argv_of, point):
    """Stops covkit at `point` with its staging directory just made beside
    the attacker's output directory, swaps that directory for a link to the
    victim, and lets covkit go on."""
    parent = env.attacker_dir(f"race-{what.replace(' ', '-')}-{point}")
    out = os.path.join(parent, "out")
    env.as_attacker(["mkdir", "-m", "777", out])
    env.as_attacker(["chmod", "777", out])
    def move():
        staged = staging_dirs(parent)
        check(len(staged) == 1, f"{what}: staging directories {staged}")
        st = os.lstat(os.path.join(parent, staged[0]))
        if point == "staging":
            # Created 0700, whatever the target's mode (it was 0777): no one
            # else can enter it while it fills.
            check(stat.S_IMODE(st.st_mode) == 0o700, f"{what}: staging directory mode {oct(st.st_mode)}")
        # The attacker owns the parent: it moves covkit's directory away and
        # puts a link to the victim in its place.
        env.as_attacker(["mv", os.path.join(parent, staged[0]), os.path.join(parent, "moved")])
        env.attacker_link(env.victim, os.path.join(parent, staged[0]))
    status, _, err = run_raced(env, argv_of(out), point, what, move)
    env.victim_untouched(f"{what} raced at {point}")
    check(status == 1 and err.count("\n") == 1 and "moved by another program" in err,
          f"{what} raced at {point}: exit {status}: {err!r}")
    check(os.path.isdir(out) and not os.listdir(out), f"{what} raced at {point}: the target changed")


def scenario_staging_race(env):
    """The race of issue 32 item 2 (2 in 150 runs wrote into root's
    directory), won every time by stopping covkit in the window."""
    stream = os.path.join(env.root_work, "race.bin")
    with open(stream, "wb") as f:
        f.write(stream_bytes("/b/app.gcda", [5, 6]))
    tree = os.path.join(env.root_work, "race-tree")
    os.makedirs(tree, exist_ok=True)
    with open(os.path.join(tree, "x.gcda"), "wb") as f:
        f.write(gcda_bytes([7, 8]))
    for point in ("staging", "swap"):
        race_staging(env, "live unpack", lambda out: ["live", "unpack", stream, "-o", out], point)
        race_staging(env, "merge", lambda out: ["merge", tree, "-o", out], point)
    # Not raced: the new tree gets the target's mode back at the end.
    parent = env.attacker_dir("race-none")
    out = os.path.join(parent, "out")
    env.as_attacker(["mkdir", out])
    env.as_attacker(["chmod", "777", out])
    env.covkit_run(["live", "unpack", stream, "-o", out], ok=True)
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o777, f"final mode {oct(os.stat(out).st_mode)}, want the target's")
    check(os.path.isfile(os.path.join(out, "b", "app.gcda")) and not staging_dirs(parent), "unpack did not complete")


def scenario_output_file_race(env):
    """A single output file (report --lcov): its temporary file is created in
    the directory covkit holds; the attacker who swaps it for a link at that
    moment gets its link renamed over the target, nothing written through it."""
    b = env.build_hostile("lcov")
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    parent = env.attacker_dir("lcov-race")
    target = os.path.join(parent, "cov.info")
    def move():
        temps = [n for n in os.listdir(parent) if ".covkit-tmp." in n]
        check(len(temps) == 1, f"temporary files {temps}")
        env.as_attacker(["rm", "-f", os.path.join(parent, temps[0])])
        env.attacker_link(os.path.join(env.victim, "lcov"), os.path.join(parent, temps[0]))
    run_raced(env, ["report", "-q", "--root", b, b, "--lcov", target], "output", "report --lcov", move)
    env.victim_untouched("report --lcov raced")


def scenario_disclosure(env):
    """A program whose sources name a file only root may read: reports made
    by root show the attacker nothing of it, and are no more open than the
    attacker's data."""
    extra = f'\n#line 1 "{env.secret}"\nint leak(int x) {{ return x + 1; }}\n'
    b = env.build_hostile("leak", extra)
    h = Hostile(env, b)
    try:
        out = os.path.join(env.base, "live-html")
        r = env.covkit_run(["live", "report", str(h.pid), "--html", out, "--lcov", out + ".info"], ok=True)
        pages = site_text(out)
        check("TOPSECRET" not in pages, "live report --html disclosed the secret")
        for d, _, files in os.walk(out):
            for f in files:
                mode = stat.S_IMODE(os.stat(os.path.join(d, f)).st_mode)
                check(mode & 0o077 == 0, f"live report page {f} has mode {oct(mode)}: the process's memory is private")
        check("secret.txt" in pages, "the report lost the source's name (its counts are still reported)")
        check(stat.S_IMODE(os.stat(out).st_mode) & 0o077 == 0, "the report directory is open to others")
        check(stat.S_IMODE(os.stat(out + ".info").st_mode) & 0o077 == 0, "the lcov file is open to others")
    finally:
        h.quit()
    # The files the program wrote at exit are the attacker's: covkit report
    # and covkit gcov read its sources with the attacker's rights too.
    out = os.path.join(env.base, "report-html")
    env.covkit_run(["report", "-q", "--root", b, b, "--html", out], ok=True)
    pages = site_text(out)
    check("TOPSECRET" not in pages, "covkit report --html disclosed the secret")
    gcov_out = os.path.join(env.base, "gcov-cwd")
    os.makedirs(gcov_out)
    r = env.covkit_run(["gcov", "-o", b, os.path.join(b, "hostile.c")], cwd=gcov_out)
    texts = "".join(open(os.path.join(gcov_out, f), errors="replace").read() for f in os.listdir(gcov_out))
    check("TOPSECRET" not in texts, f"covkit gcov disclosed the secret: {os.listdir(gcov_out)}")
    check("secret.txt" in r.stdout + r.stderr + texts, "covkit gcov said nothing of the unreadable source")


def scenario_sample_pid(env):
    """`sample record --pid` of another user's process by a user who may not
    trace it: the real reason, and nothing left behind."""
    b = env.build_hostile("sample")
    h = Hostile(env, b)
    try:
        d = tempfile.mkdtemp(prefix="covkit-sample-", dir=env.base)
        os.chmod(d, 0o777)
        out = os.path.join(d, "rec")
        r = env.run(["setpriv", "--reuid=65533", "--regid=65533", "--clear-groups", env.covkit, "sample", "record",
                     "--mode", "pc", "--pid", str(h.pid), "-o", out], ok=False)
        one_line_error(r, "sample record --pid of another user's process", "belongs to user", "trace")
        check(not os.path.exists(out), f"a refused record left {os.listdir(d)}")
    finally:
        h.kill()


def scenario_sample_disclosure(env):
    """`sample record --pid` of the attacker's process, then `sample report
    --html`, by root: the sources the attacker's binary names are read with
    the attacker's rights, and the recording is no more open than the
    process's memory. (The report's own mode follows the binary, which is
    world-readable here, so it is not checked.)"""
    extra = f'\n#line 1 "{env.secret}"\nint leak(int x) {{ return x + 1; }}\n'
    b = env.build_hostile("sample-leak", extra)
    h = Hostile(env, b)
    try:
        rec = os.path.join(env.base, "sample-rec")
        env.covkit_run(["sample", "record", "--mode", "breakpoint", "--allow-empty", "--pid", str(h.pid),
                        "--for", "300ms", "-o", rec], ok=True)
        mode = stat.S_IMODE(os.stat(rec).st_mode)
        check(mode & 0o077 == 0, f"the recording directory has mode {oct(mode)}: the process's memory is private")
        out = os.path.join(env.base, "sample-html")
        env.covkit_run(["sample", "report", rec, "--html", out], ok=True)
        pages = site_text(out)
        check("TOPSECRET" not in pages, "sample report --html disclosed the secret")
    finally:
        h.kill()


TWO_WAYS = r"""static volatile unsigned long sink;
__attribute__((noinline)) void public_path(void) { for (unsigned long i = 0; i < 200000000UL; i++) sink += i; }
__attribute__((noinline)) void private_path(void) { for (unsigned long i = 0; i < 200000000UL; i++) sink ^= i; }
int main(int argc, char **argv) { if (argc > 1) private_path(); else public_path(); return 0; }
"""


def scenario_sample_linked_files(env):
    """A recording of the attacker's whose sample file is a link to a sample
    file of root's own recording, in a directory only root can enter: `sample
    report` by root reads the attacker's files with the attacker's rights, so
    root's samples (which code root's run took) do not reach the report."""
    d = os.path.join(env.base, "two-ways")
    os.makedirs(d)
    os.chmod(d, 0o755)
    with open(os.path.join(d, "tw.c"), "w") as f:
        f.write(TWO_WAYS)
    env.run(["gcc-12", "-O0", "-g", "-o", "tw", "tw.c"], cwd=d)
    private_line = TWO_WAYS.split("\n").index(next(l for l in TWO_WAYS.split("\n") if "private_path(void)" in l)) + 1
    # Root's run, recorded where only root may look.
    mine = os.path.join(env.rootonly, "rec")
    env.covkit_run(["sample", "record", "--mode", "pc", "--period", "1ms", "-o", mine, "--",
                    os.path.join(d, "tw"), "private"], ok=True)
    cks = [n for n in os.listdir(mine) if n.endswith(".cks")]
    check(len(cks) == 1, f"root's recording holds {os.listdir(mine)}")
    r = env.covkit_run(["sample", "report", mine, "--lcov", "-"], ok=True)
    check(f"DA:{private_line},0" not in r.stdout and f"DA:{private_line}," in r.stdout,
          f"root's own recording does not show its run of private_path: {r.stdout!r}")
    # The attacker's recording: their own recording.json, root's sample file linked.
    theirs = env.attacker_dir("rec")
    env.as_attacker([env.covkit, "sample", "record", "--mode", "pc", "--period", "1ms", "-o", theirs, "--",
                     os.path.join(d, "tw")])
    for n in os.listdir(theirs):
        if n.endswith(".cks"):
            env.as_attacker(["rm", "-f", os.path.join(theirs, n)])
    env.attacker_link(os.path.join(mine, cks[0]), os.path.join(theirs, cks[0]))
    r = env.covkit_run(["sample", "report", theirs, "--lcov", "-"])
    check(not re.search(rf"^DA:{private_line},[1-9]", r.stdout, re.M),
          "sample report read root's own sample file through the attacker's link: private_path's run is in it")
    one_line_error(r, "a sample file linked to root's recording", cks[0])


def scenario_blocks_runtime_files(env):
    """A program with libcovkit-blocks run by root in a directory the
    attacker may write (a shared build tree): the attacker planted a FIFO,
    a link to root's secret and a file of their own where the block file
    and its trace go. The program neither hangs at exit on the FIFO nor
    writes through the link or into the attacker's file: each name ends as
    a new file of root's holding the blocks. Nor does it follow the
    attacker's link to root's directory on the way to the file."""
    lib_dir = os.path.dirname(env.covkit)
    if not os.path.exists(os.path.join(lib_dir, "libcovkit-blocks.so")):
        raise Skip("libcovkit-blocks.so not built")
    prog_dir = env.fresh_dir("blocks-prog")
    os.chmod(env.root_work, 0o755)
    os.chmod(prog_dir, 0o755)
    src = os.path.join(prog_dir, "p.c")
    with open(src, "w") as f:
        f.write("int main(int argc, char **argv) { int s = 0; for (int i = 0; i < argc; ++i) s += i; return s; }\n")
    prog = os.path.join(prog_dir, "p")
    env.run(["gcc-12", "-O0", "-g", "-fsanitize-coverage=trace-pc", src, "-o", prog, f"-L{lib_dir}",
             "-lcovkit-blocks", f"-Wl,-rpath,{lib_dir}"])
    shared = env.attacker_dir("blocks-shared")
    for plant in ("fifo", "link", "file"):
        out = os.path.join(shared, f"blocks-{plant}")
        for name in (out, out + ".trace"):
            if plant == "fifo":
                env.as_attacker(["mkfifo", name])
            elif plant == "link":
                env.attacker_link(env.secret, name)
            else:
                env.as_attacker(["sh", "-c", f"echo mine > {name} && chmod 666 {name}"])
        e = dict(os.environ, COVKIT_BLOCKS_FILE=out, COVKIT_BLOCKS_TRACE="4k")
        try:
            p = subprocess.run([prog], capture_output=True, text=True, env=e, cwd=shared, timeout=60)
        except subprocess.TimeoutExpired:
            raise Failure(f"the program hung at exit on the {plant} the attacker planted at {out}")
        check(p.returncode == 0, f"{plant}: the program exited {p.returncode}: {p.stderr!r}")
        env.victim_untouched(f"blocks runtime, {plant}")
        for name, magic in ((out, "covkit-blocks 1"), (out + ".trace", "covkit-block-trace 1")):
            st = os.lstat(name)
            check(stat.S_ISREG(st.st_mode) and st.st_uid == 0,
                  f"{plant}: {name} is not a new file of root's (mode {oct(st.st_mode)}, uid {st.st_uid})")
            with open(name, "rb") as f:
                check(f.read().startswith(magic.encode() + b"\n"), f"{plant}: {name} does not hold the blocks")
        left = [n for n in os.listdir(shared) if n.endswith(".tmp")]
        check(not left, f"{plant}: temporary files left behind: {left}")
    # A directory on the way that is the attacker's link to one of root's:
    # the file would be made there (replacing one of its name). Not
    # followed; the program says why it wrote no block file.
    env.attacker_link(env.victim, os.path.join(shared, "sub"))
    e = dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(shared, "sub", "blocks"), COVKIT_BLOCKS_TRACE="4k")
    p = subprocess.run([prog], capture_output=True, text=True, env=e, cwd=shared, timeout=60)
    env.victim_untouched("blocks runtime, a directory link on the way")
    check(p.returncode == 0 and "cannot write the block file" in p.stderr,
          f"a directory link on the way: the program exited {p.returncode} and said {p.stderr!r}")


def scenario_blocks_named_binary(env):
    """A block file the attacker wrote names, as its module, a binary only
    root may read (and, for `blocks dump`, its trace does too). `covkit
    blocks report` and `blocks dump` by root read the modules a block file
    names with the rights of the file's owner: the secret binary's
    functions and sources appear in no output, a warning says why."""
    src = os.path.join(env.rootonly, "secret_prog.c")
    with open(src, "w") as f:
        f.write("int topsecret_function(int x) { return x * 3; }\n"
                "int main(int argc, char **argv) { return topsecret_function(argc); }\n")
    binary = os.path.join(env.rootonly, "secret_prog")
    env.run(["gcc-12", "-O0", "-g", src, "-o", binary])
    os.chmod(binary, 0o700)
    nm = env.run(["nm", binary]).stdout
    address = next(int(l.split()[0], 16) for l in nm.splitlines() if l.endswith(" topsecret_function"))
    d = env.attacker_dir("blocks-files")
    blocks = os.path.join(d, "covkit-blocks.4242")
    text = (f"covkit-blocks 1\npid 4242\ndropped 0 0 0 0 0 0\nmodule 0x0 {binary}\n"
            f"b {address:x} 7\nb {address + 4:x} 7\nend\n")
    trace = (f"covkit-block-trace 1\npid 4242\nbound 4\ndropped 0 0\nmodule 0x0 {binary}\n"
             f"i 1 {address:x}\nevents 1\n").encode() + struct.pack("<I", 1) + b"end\n"
    env.as_attacker(["sh", "-c", f"cat > {blocks}"], input=text)
    env.as_attacker(["sh", "-c", f"cat > {blocks}.trace"], input=trace.decode("latin-1"))
    out = os.path.join(env.fresh_dir("blocks-out"), "out.info")
    r = env.covkit_run(["blocks", "report", blocks, "--lcov", out])
    said = r.stdout + r.stderr + (open(out).read() if os.path.exists(out) else "")
    check("topsecret_function" not in said and "secret_prog.c" not in said,
          f"blocks report read a binary the block file's owner may not read: {said!r}")
    check("Permission denied" in r.stderr, f"blocks report did not say why the module was left out: {r.stderr!r}")
    r = env.covkit_run(["blocks", "dump", blocks + ".trace"])
    said = r.stdout + r.stderr
    check("topsecret_function" not in said and "secret_prog.c" not in said,
          f"blocks dump read a binary the trace's owner may not read: {said!r}")


CLANG_SERVED = r"""
#include <stdio.h>
#include <string.h>
int served_function(int x) { return x * 2 + 1; }
int main(void) {
  char line[64];
  int s = 0;
  for (int i = 0; i < 7; ++i) s += served_function(i);
  printf("ready %d\n", s);
  fflush(stdout);
  while (fgets(line, sizeof line, stdin) && strncmp(line, "q", 1) != 0) {}
  return 0;
}
"""


def scenario_live_report_binary_swap(env):
    """`covkit live report PID` of the attacker's clang-instrumented process
    (-fprofile-instr-generate), whose owner, after it started, replaced the
    program's path: by a link to a binary only root may read (with a
    coverage mapping of its own), then by a rebuilt program, after covkit
    read the process and before the report read the program. The report reads
    the file the process maps, never the one its path names by then: the
    secret binary's functions and source names appear in no output, and the
    counts are those of the program that runs. The swap is made while covkit
    is stopped (COVKIT_TEST_STOP_AT=live-report) between its read of the
    process and the report's read of the program."""
    clang = shutil.which("clang") or shutil.which("clang-14")
    if not clang:
        raise Skip("clang not found")
    flags = ["-O0", "-g", "-fprofile-instr-generate", "-fcoverage-mapping"]
    src = os.path.join(env.rootonly, "secret_prog.c")
    with open(src, "w") as f:
        f.write("int topsecret_function(int x) { return x * 3; }\n"
                "int main(int argc, char **argv) { return topsecret_function(argc); }\n")
    secret = os.path.join(env.rootonly, "secret_prog")
    env.run([clang, *flags, src, "-o", secret])
    os.chmod(secret, 0o700)
    d = os.path.join(env.home, "clangswap")
    os.makedirs(d)
    with open(os.path.join(d, "served.c"), "w") as f:
        f.write(CLANG_SERVED)
    with open(os.path.join(d, "rebuilt.c"), "w") as f:
        f.write("int rebuilt_function(int x) { return x; }\nint main(void) { return rebuilt_function(0); }\n")
    env.run([clang, *flags, "served.c", "-o", "served.built"], cwd=d)
    env.run([clang, *flags, "rebuilt.c", "-o", "rebuilt"], cwd=d)
    subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", d], check=True)
    prog = os.path.join(d, "served")
    for swap in ("link to root's binary", "rebuilt program"):
        env.as_attacker(["rm", "-f", prog])
        env.as_attacker(["cp", os.path.join(d, "served.built"), prog])
        argv = ["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", prog]
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=d,
                             env={"PATH": "/usr/bin:/bin", "LLVM_PROFILE_FILE": os.path.join(d, "exit.profraw")})
        try:
            line = p.stdout.readline()
            check(line.startswith("ready"), f"the clang program did not start: {line!r}")
            out = os.path.join(env.fresh_dir("clangswap-out"), "out.info")
            def move():
                # covkit has read the process (and the path /proc/PID/maps
                # names its program by); the owner's move, before the report
                # reads the program: that path now names another file.
                env.as_attacker(["rm", "-f", prog])
                if swap.startswith("link"):
                    env.attacker_link(secret, prog)
                else:
                    env.as_attacker(["cp", os.path.join(d, "rebuilt"), prog])
            status, c_out, c_err = run_raced(env, ["live", "report", str(p.pid), "--lcov", out], "live-report",
                                             f"{swap}: live report", move)
            said = c_out + c_err + (open(out).read() if os.path.exists(out) else "")
            check("topsecret_function" not in said and "secret_prog" not in said,
                  f"{swap}: live report read the file the path names now, a binary only root may read: {said!r}")
            check("rebuilt_function" not in said, f"{swap}: live report read the rebuilt program: {said!r}")
            check(status == 0, f"{swap}: live report exited {status}: {c_err!r}")
            # The counts of the program that runs: served_function ran 7 times.
            check("FNDA:7,served_function" in said, f"{swap}: the running program's counts are missing: {said!r}")
        finally:
            try:
                p.stdin.write("q\n")
                p.stdin.flush()
            except BrokenPipeError:
                pass
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

def ends(env, argv, what, timeout=60, **kw):
    """covkit run as root to its end; a Failure if it is still running
    after `timeout` seconds (blocked on what the attacker planted)."""
    env.log("$", " ".join(argv))
    try:
        p = subprocess.run([env.covkit, *argv], capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise Failure(f"{what}: covkit hung on a FIFO the attacker planted")
    env.log(p.stdout + p.stderr)
    return p


def attacker_copy(env, src, dest):
    """A copy of root's file `src` at `dest`, owned by the attacker."""
    shutil.copyfile(src, dest)
    os.chown(dest, ATTACKER, ATTACKER)


def scenario_fifo_inputs(env):
    """FIFOs where covkit reads files named by a tree, a directory or a
    process another user controls: a .gcda in a build tree whose stamp
    decides between two notes files, gprof's default a.out, and a module of
    a process sampled by `sample record --pid` (its directory moved for one
    holding a FIFO between covkit's reading of its maps and its opening of
    the module). covkit says what it could not read and ends; before, each
    open waited for a writer for ever."""
    # The tree: x.gcda in c/ pairs with a/x.gcno or b/x.gcno equally well by
    # path, so its stamp decides, and that read met the FIFO.
    tree = env.attacker_dir("fifo-tree")
    for sub in ("a", "b"):
        d = os.path.join(env.root_work, "fifo-" + sub)
        os.makedirs(d)
        with open(os.path.join(d, "x.c"), "w") as f:
            f.write("int f(int n) { return n + 1; }\nint main(void) { return f(0) - 1; }\n")
        env.run(["gcc-12", "--coverage", "-O0", "-c", "x.c", "-o", "x.o"], cwd=d)
        env.as_attacker(["mkdir", os.path.join(tree, sub)])
        attacker_copy(env, os.path.join(d, "x.gcno"), os.path.join(tree, sub, "x.gcno"))
    env.as_attacker(["mkdir", os.path.join(tree, "c")])
    env.as_attacker(["mkfifo", os.path.join(tree, "c", "x.gcda")])
    r = ends(env, ["report", tree], "report of a tree with a FIFO .gcda")
    check("c/x.gcda" in r.stderr, f"report did not say what it made of the FIFO: {r.stderr!r}")
    # gprof in the attacker's directory: a.out, its default program, a FIFO.
    g = env.attacker_dir("fifo-gprof")
    src = os.path.join(env.root_work, "prof.c")
    with open(src, "w") as f:
        f.write("int f(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i; return s; }\n"
                "int main(void) { return f(100000) == 3; }\n")
    prog = os.path.join(env.root_work, "prof")
    env.run(["gcc-12", "-pg", "-O0", "-o", prog, src])
    env.run([prog], cwd=env.root_work, ok=False)
    attacker_copy(env, os.path.join(env.root_work, "gmon.out"), os.path.join(g, "gmon.out"))
    env.as_attacker(["mkfifo", os.path.join(g, "a.out")])
    r = ends(env, ["gprof"], "gprof with a FIFO a.out", cwd=g)
    one_line_error(r, "gprof with a FIFO a.out", "a.out", "not a regular file")
    # sample record --pid: the attacker's process maps two modules; covkit
    # stops at its first ELF open (after reading the maps), the attacker
    # moves the modules' directories away and FIFOs in their place.
    d = env.attacker_dir("fifo-modules")
    exe = os.path.join(env.home, "moved_modules")
    env.run(["gcc-12", "-O0", "-o", exe, os.path.join(PROGS, "moved_modules.c")])
    os.chmod(exe, 0o755)
    argv = ["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", exe, d, "2", exe]
    h = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=d)
    p = None
    try:
        check(h.stdout.readline().startswith("ready"), "the program with moved modules did not start")
        e = dict(os.environ, COVKIT_TEST_STOP_AT="elf-open")
        rec = os.path.join(env.root_work, "fifo-rec")
        p = subprocess.Popen([env.covkit, "sample", "record", "--mode", "pc", "--allow-empty", "--pid", str(h.pid),
                              "--for", "100", "-o", rec], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        moved = False
        deadline = time.time() + 60
        while p.poll() is None:
            check(time.time() < deadline, "sample record --pid hung on a module moved for a FIFO")
            try:
                with open(f"/proc/{p.pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                break
            if state not in ("T", "t"):
                time.sleep(0.01)
                continue
            if not moved:
                for i in range(2):
                    env.as_attacker(["mv", os.path.join(d, f"a{i}"), os.path.join(d, f"old{i}")])
                    env.as_attacker(["mv", os.path.join(d, f"b{i}"), os.path.join(d, f"a{i}")])
                moved = True
            os.kill(p.pid, signal.SIGCONT)
            time.sleep(0.01)
        err = p.communicate(timeout=60)[1]
        env.log(err)
        # (pc mode leaves a module it cannot read without a build-id, silently.)
        check(moved, f"sample record --pid opened no module: {err!r}")
        check(p.returncode == 0, f"sample record --pid exited {p.returncode}: {err!r}")
    finally:
        if p and p.poll() is None:
            p.kill()
            p.wait()
        h.stdin.close()
        h.wait(timeout=20)

SECRET_BUILD_ID = "5ec2e75ec2e7c0de5ec2e75ec2e7c0de5ec2e7c0"


def run_stopping(env, argv, point, move, what, timeout=120, at_stop=1):
    """covkit run as root with COVKIT_TEST_STOP_AT=point: at its stop number
    `at_stop` there `move()` is made (the attacker's step), and it is let go
    on at each stop until it ends. (returncode, stdout, stderr, moved)"""
    e = dict(os.environ, COVKIT_TEST_STOP_AT=point)
    env.log("$", " ".join(argv))
    p = subprocess.Popen([env.covkit, *argv], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    moved = False
    stops = 0
    try:
        deadline = time.time() + timeout
        while p.poll() is None:
            check(time.time() < deadline, f"{what}: covkit did not end")
            try:
                with open(f"/proc/{p.pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except FileNotFoundError:
                break
            if state not in ("T", "t"):
                time.sleep(0.01)
                continue
            stops += 1
            if stops == at_stop:
                move()
                moved = True
            os.kill(p.pid, signal.SIGCONT)
            time.sleep(0.01)
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    env.log(err)
    return p.returncode, out, err, moved


def scenario_module_swap(env):
    """`sample record --pid` (pc: perf_event_open; breakpoint: ptrace) of the
    attacker's process, which maps a module from DIR/a0/lib.so: after covkit
    read /proc/PID/maps and before it opened the module (covkit stopped at
    its first ELF open), the attacker moves DIR/a0 away and puts a link to a
    directory only root may enter in its place, where lib.so is a binary only
    root may read. covkit reads the file the process maps (/proc/PID/map_files,
    checked against the mapping's device and inode), never what its path
    names by then: the secret binary's build-id and functions reach no
    recording and no message. The move is made at the ELF open after covkit
    read the maps: its first in pc mode (the program's build-id), its third
    in breakpoint mode (after the dynamic linker's two); the recording
    naming DIR/a0/lib.so (not DIR/old0, the name the kernel shows once the
    directory moved) checks that the maps were read before the move."""
    secret_dir = os.path.join(env.rootonly, "libs")
    os.makedirs(secret_dir, mode=0o700)
    src = os.path.join(secret_dir, "secret.c")
    with open(src, "w") as f:
        f.write("int topsecret_function(int x) { return x * 3; }\n"
                "int main(int argc, char **argv) { return topsecret_function(argc); }\n")
    secret = os.path.join(secret_dir, "lib.so")
    env.run(["gcc-12", "-O0", "-g", f"-Wl,--build-id=0x{SECRET_BUILD_ID}", src, "-o", secret])
    os.chmod(secret, 0o600)
    exe = os.path.join(env.home, "moved_modules")
    env.run(["gcc-12", "-O0", "-g", "-o", exe, os.path.join(PROGS, "moved_modules.c")])
    os.chmod(exe, 0o755)
    for mode in ("pc", "breakpoint"):
        d = env.attacker_dir(f"swap-{mode}")
        argv = ["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups", exe, d, "1", exe]
        h = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=d)
        try:
            check(h.stdout.readline().startswith("ready"), "the program with moved modules did not start")

            def move():
                env.as_attacker(["mv", os.path.join(d, "a0"), os.path.join(d, "old0")])
                env.attacker_link(secret_dir, os.path.join(d, "a0"))

            rec = os.path.join(env.root_work, f"swap-rec-{mode}")
            status, _, err, moved = run_stopping(
                env, ["sample", "record", "--mode", mode, "--allow-empty", "--pid", str(h.pid), "--for", "300ms",
                      "-o", rec], "elf-open", move, f"sample record --mode {mode} --pid",
                at_stop=1 if mode == "pc" else 3)
            check(moved, f"{mode}: sample record --pid opened no module: {err!r}")
            check(status == 0, f"{mode}: sample record --pid exited {status}: {err!r}")
            said = err
            for dd, _, files in os.walk(rec):
                for n in files:
                    said += open(os.path.join(dd, n), "rb").read().decode("latin-1")
            check(SECRET_BUILD_ID not in said and bytes.fromhex(SECRET_BUILD_ID).decode("latin-1") not in said
                  and "topsecret_function" not in said,
                  f"{mode}: the recording holds what only root may read (the secret binary's build-id or functions), "
                  "read through the path the attacker swapped")
            check(os.path.join(d, "a0", "lib.so") in said, f"{mode}: the recording lost the module the process maps")
        finally:
            h.stdin.close()
            h.wait(timeout=20)


def scenario_special_files(env):
    """Special files where covkit, as root, reads a tree's files: it must not
    even open them. Opening a device runs its driver (a serial line's modem
    lines rise, a watchdog starts counting to a reboot, a tape rewinds);
    the harmless stand-in here is a FIFO with the attacker's writer waiting
    in its open, which any open for reading, O_NONBLOCK or not, lets go on.
    The FIFOs: a .gcda beside its notes, a .gcda whose stamp decides between
    two notes files, and gprof's default a.out."""
    tree = env.attacker_dir("special-tree")
    for sub in ("a", "b", "c"):
        env.as_attacker(["mkdir", os.path.join(tree, sub)])
    for sub in ("a", "b"):
        d = os.path.join(env.root_work, "special-" + sub)
        os.makedirs(d)
        with open(os.path.join(d, "x.c"), "w") as f:
            f.write("int f(int n) { return n + 1; }\nint main(void) { return f(0) - 1; }\n")
        env.run(["gcc-12", "--coverage", "-O0", "-c", "x.c", "-o", "x.o"], cwd=d)
        attacker_copy(env, os.path.join(d, "x.gcno"), os.path.join(tree, sub, "x.gcno"))
    g = env.attacker_dir("special-gprof")
    src = os.path.join(env.root_work, "prof.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    env.run(["gcc-12", "-pg", "-O0", "-o", os.path.join(env.root_work, "prof"), src])
    env.run([os.path.join(env.root_work, "prof")], cwd=env.root_work, ok=False)
    attacker_copy(env, os.path.join(env.root_work, "gmon.out"), os.path.join(g, "gmon.out"))
    fifos = [os.path.join(tree, "a", "x.gcda"), os.path.join(tree, "c", "x.gcda"), os.path.join(g, "a.out")]
    writers = []
    try:
        for fifo in fifos:
            env.as_attacker(["mkfifo", fifo])
            writers.append(subprocess.Popen(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups",
                                             "sh", "-c", 'exec 3>"$1"', "sh", fifo],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        blocked_in_open(writers)  # each writer in its open
        r = ends(env, ["report", tree], "report of a tree with FIFOs")
        check("a/x.gcda" in r.stderr and "c/x.gcda" in r.stderr, f"report said nothing of the FIFOs: {r.stderr!r}")
        r = ends(env, ["gprof"], "gprof with a FIFO a.out", cwd=g)
        one_line_error(r, "gprof with a FIFO a.out", "a.out", "not a regular file")
        time.sleep(0.2)
        for fifo, w in zip(fifos, writers):
            check(w.poll() is None, f"covkit opened the FIFO {fifo} (its writer went on)")
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
            w.wait()


def scenario_proc_sources(env):
    """A program whose sources are named /proc/self/cmdline, /proc/self/maps,
    /proc/self/fd/0 and /dev/stdin: read by a root covkit, even with the
    attacker's rights, they were covkit's own process's (its command line,
    its memory map, and through the descriptor's link a file root gave it
    as standard input, which the attacker may read but not reach: it lies
    in a directory only root may enter). Refused, and nothing of them in
    the report."""
    names = ["/proc/self/cmdline", "/proc/self/maps", "/proc/self/fd/0", "/dev/stdin"]
    extra = "".join(f'\n#line 1 "{n}"\nint leak{i}(int x) {{ return x + {i}; }}\n' for i, n in enumerate(names))
    b = env.build_hostile("proc", extra)
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", b], check=True)
    given = os.path.join(env.rootonly, "stdin.txt")
    with open(given, "w") as f:
        f.write("ROOT-STDIN-TEXT\n")
    os.chmod(given, 0o644)  # readable, in a directory only root may enter
    out = os.path.join(env.base, "proc-html-ROOT-ARGUMENT")
    with open(given) as stdin:
        r = env.run([env.covkit, "report", "--root", b, b, "--html", out], ok=False, stdin=stdin)
    check(r.returncode == 0, f"report exited {r.returncode}: {r.stderr!r}")
    pages = site_text(out)
    check_not_disclosed(pages, r.stderr, names, "report --html",
                        (("ROOT-ARGUMENT", "covkit's command line"), ("r-xp", "covkit's memory map"),
                         ("ROOT-STDIN-TEXT", "covkit's standard input")))

    # Root's own build of the attacker's checkout: the notes and data are
    # root's, the names in them the attacker's (#line in their source). They
    # were read as root's own files: covkit's environment and the file its
    # standard output went to (/dev/stdout) were copied into the report.
    names = ["/proc/self/environ", "/proc/self/cmdline", "/dev/stdout"]
    extra = "".join(f'\n#line 1 "{n}"\nint own{i}(int x) {{ return x + {i}; }}\n' for i, n in enumerate(names))
    b = env.build_hostile("proc-own", extra)
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    owned = [f for f in os.listdir(b) if f.endswith((".gcno", ".gcda"))]
    check(len(owned) == 2, f"not one notes and one data file: {owned}")
    for f in owned:
        os.chown(os.path.join(b, f), 0, 0)
    log = os.path.join(env.rootonly, "covkit-stdout.log")
    with open(log, "w") as f:
        f.write("ROOT-STDOUT-TEXT\n")
    out = os.path.join(env.base, "proc-own-html-ROOT-ARGUMENT")
    env.log("$ covkit report --html (root's build, stdout to a root-only file)")
    with open(log, "a") as stdout:
        r = subprocess.run([env.covkit, "report", "--root", b, b, "--html", out], stdout=stdout, stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, COVKIT_ATTACK_ENV="ROOT-ENVIRONMENT-TEXT"))
    env.log(r.stderr)
    check(r.returncode == 0, f"report (root's build) exited {r.returncode}: {r.stderr!r}")
    pages = site_text(out)
    check_not_disclosed(pages, r.stderr, names, "report --html of root's build",
                        (("ROOT-ENVIRONMENT-TEXT", "covkit's environment"), ("ROOT-ARGUMENT", "covkit's command line"),
                         ("ROOT-STDOUT-TEXT", "covkit's standard output")))


def scenario_fifo_outputs(env):
    """FIFOs the attacker planted where a root covkit writes: the .gcov file
    `covkit gcov` makes in a shared working directory and a report's --lcov
    file. Their reader waits to take the output (the .gcov text holds the
    source's lines); without one, the open waited for ever. covkit refuses
    another user's FIFO, and the attacker reads nothing."""
    b = env.build_hostile("fifo-out")
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    cwd = env.attacker_dir("fifo-out-cwd")
    stolen = []
    readers = []
    try:
        for name in ("hostile.c.gcov", "cov.info"):
            fifo = os.path.join(cwd, name)
            env.as_attacker(["mkfifo", fifo])
            got = os.path.join(env.home, name + ".stolen")
            stolen.append(got)
            readers.append(subprocess.Popen(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups",
                                             "sh", "-c", 'exec cat "$1" > "$2"', "sh", fifo, got],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        blocked_in_open(readers)  # each reader in its open
        r = ends(env, ["gcov", "-o", b, os.path.join(b, "hostile.c")], "gcov writing to a FIFO", cwd=cwd)
        check("hostile.c.gcov" in r.stdout + r.stderr and "FIFO" in r.stdout + r.stderr,
              f"gcov did not say why hostile.c.gcov was not written: {r.stdout + r.stderr!r}")
        r = ends(env, ["report", "-q", "--root", b, b, "--lcov", os.path.join(cwd, "cov.info")],
                 "report --lcov to a FIFO")
        check(r.returncode != 0 and "FIFO" in r.stderr, f"report --lcov to another user's FIFO: {r.stderr!r}")
        time.sleep(0.2)
        for got in stolen:
            text = open(got, errors="replace").read() if os.path.exists(got) else ""
            check(not text, f"the attacker read covkit's output from a FIFO: {text[:80]!r}")
    finally:
        for rd in readers:
            if rd.poll() is None:
                rd.kill()
            rd.wait()


def scenario_output_special_swap(env):
    """A FIFO of root's where root's covkit writes its --lcov file, in a
    directory the attacker may write: once covkit has looked at it (a FIFO
    of its own user, written through) and before it opens it, the attacker
    renames it away and puts their own FIFO, with their reader waiting, or
    their own file at the name (covkit stopped at COVKIT_TEST_STOP_AT=
    output-special in between). covkit opens only the file it looked at:
    refused in one line, and the attacker reads nothing."""
    b = env.build_hostile("special-swap")
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    for plant in ("fifo", "file"):
        shared = env.attacker_dir(f"special-swap-{plant}")
        env.as_attacker(["chmod", "777", shared])
        target = os.path.join(shared, "cov.info")
        os.mkfifo(target, 0o600)  # root's own FIFO
        stolen = os.path.join(env.home, f"special-swap-{plant}.stolen")
        reader = None
        try:
            def move():
                nonlocal reader
                env.as_attacker(["mv", target, target + ".roots"])
                if plant == "fifo":
                    env.as_attacker(["mkfifo", "-m", "666", target])
                    reader = subprocess.Popen(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}",
                                               "--clear-groups", "sh", "-c", 'exec cat "$1" > "$2"', "sh", target,
                                               stolen], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    blocked_in_open([reader])  # the reader waits in its open for a writer
                else:
                    env.as_attacker(["sh", "-c", f"umask 0; : > {target}; ln -s {target} {stolen}"])

            status, _, err, moved = run_stopping(env, ["report", "-q", "--root", b, b, "--lcov", target],
                                              "output-special", move, f"report --lcov to root's FIFO ({plant})",
                                              timeout=60)
            check(moved, f"{plant}: covkit did not stop before opening root's FIFO: {err!r}")
            if reader:
                # The reader ends either way before `stolen` is read: it read
                # what covkit wrote (and covkit's close), or, still waiting in
                # its open, it is let go by an empty writer of ours.
                try:
                    os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass  # no reader waits any more
                reader.wait(timeout=60)
            text = open(stolen, errors="replace").read() if os.path.exists(stolen) else ""
            check(not text, f"{plant}: the attacker read covkit's output through the file they put at the name: "
                            f"{text[:80]!r}")
            check(status != 0 and err.count("\n") == 1 and "cov.info" in err and "replaced" in err,
                  f"{plant}: covkit did not refuse the swapped output in one line: exit {status}: {err!r}")
        finally:
            if reader:
                if reader.poll() is None:
                    reader.kill()
                reader.wait()


def scenario_huge_source(env):
    """A program whose source the attacker made a sparse file of 100 GB (it
    costs them nothing): `report --html` and `covkit gcov` by root read at
    most a bounded part of a source, say so in one line naming it, and end
    with outputs of ordinary size. Before, covkit read all of it and wrote
    an HTML page (and a .gcov text) as large, until the disk was full.
    (Each covkit here may write 1 GiB at most: RLIMIT_FSIZE.)"""
    import resource
    d = os.path.join(env.home, "huge")
    extra = f'\n#line 1 "{d}/huge.c"\nint huge(int x) {{ return x + 1; }}\n'
    b = env.build_hostile("huge", extra)
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", b], check=True)
    env.as_attacker(["truncate", "-s", "100G", os.path.join(d, "huge.c")])

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))

    def run(argv, what, **kw):
        env.log("$", " ".join(argv))
        try:
            p = subprocess.run([env.covkit, *argv], capture_output=True, text=True, timeout=120,
                               preexec_fn=limited, **kw)
        except subprocess.TimeoutExpired:
            raise Failure(f"{what}: covkit was still reading the 100 GB source after 120 s")
        env.log(p.stdout + p.stderr)
        return p

    out = os.path.join(env.root_work, "huge-html")
    r = run(["report", "--root", b, b, "--html", out], "report --html")
    check(r.returncode == 0, f"report --html exited {r.returncode}: {r.stderr!r}")
    # (gcov's warning that the source is newer than the notes comes when the
    # truncate fell in a later second than the build: not the line looked for)
    said = [l for l in r.stderr.splitlines() if "huge.c" in l and "newer than notes" not in l]
    check(len(said) == 1 and "larger than" in said[0],
          f"report --html did not say in one line why huge.c was not shown: {r.stderr!r}")
    size = sum(os.path.getsize(os.path.join(dd, f)) for dd, _, fs in os.walk(out) for f in fs)
    check(size < (16 << 20), f"report --html wrote {size} bytes for a program of a few lines")
    gcov_dir = env.fresh_dir("huge-gcov")
    r = run(["gcov", "-o", b, os.path.join(b, "hostile.c")], "gcov", cwd=gcov_dir)
    check("huge.c" in r.stdout + r.stderr, f"covkit gcov said nothing of huge.c: {r.stdout + r.stderr!r}")
    size = sum(os.path.getsize(os.path.join(gcov_dir, f)) for f in os.listdir(gcov_dir))
    check(size < (16 << 20), f"covkit gcov wrote {size} bytes for a program of a few lines")


SPINNER = r"""static volatile unsigned long sink;
int topsecret_function(int x) { for (unsigned long i = 0; i < 100000000UL; i++) sink += i * x; return (int)sink; }
int main(int argc, char **argv) { return topsecret_function(argc) & 1; }
"""


def root_only_program(env, flags=()):
    """The spinner built as a program in a directory only root may enter,
    executable by root alone; its path."""
    secret_dir = os.path.join(env.rootonly, "bin")
    os.makedirs(secret_dir, mode=0o700, exist_ok=True)
    with open(os.path.join(secret_dir, "secret.c"), "w") as f:
        f.write(SPINNER)
    secret = os.path.join(secret_dir, "secret_prog")
    env.run(["gcc-12", "-O0", "-g", *flags, "secret.c", "-o", secret], cwd=secret_dir)
    os.chmod(secret, 0o700)
    return secret


def scenario_import_perf_named_files(env):
    """A perf.data of the attacker's whose MMAP records name a binary only
    root may read, with no build-id table entry for it (perf record -B):
    `sample import-perf` by root reads the files a perf.data names with the
    rights of its owner, so the secret binary's build-id reaches no
    recording, and the recording carries its data's owner, so that `sample
    report` of it (and of the perf.data itself) reads the binary with the
    attacker's rights too: no function of it in any output, a warning says
    why. (The perf.data is recorded by root for brevity: its bytes are
    anything the attacker could write.)"""
    perf = shutil.which("perf")
    if not perf:
        raise Skip("perf not found")
    secret = root_only_program(env, [f"-Wl,--build-id=0x{SECRET_BUILD_ID}"])
    recorded = os.path.join(env.root_work, "perf.data")
    r = env.run([perf, "record", "-B", "-e", "cpu-clock:u", "-o", recorded, secret], ok=False)
    if r.returncode != 0 or not os.path.exists(recorded):
        raise Skip(f"perf record failed here: {r.stderr.strip()[-200:]}")
    theirs = os.path.join(env.attacker_dir("perf"), "their.data")
    shutil.copyfile(recorded, theirs)
    os.chown(theirs, ATTACKER, ATTACKER)
    os.chmod(theirs, 0o600)
    rec = os.path.join(env.root_work, "imported")
    r = env.covkit_run(["sample", "import-perf", theirs, "-o", rec])
    check(r.returncode == 0, f"import-perf exited {r.returncode}: {r.stderr!r}")
    said = r.stderr
    for d, _, files in os.walk(rec):
        for n in files:
            said += open(os.path.join(d, n), "rb").read().decode("latin-1")
    dump = env.covkit_run(["sample", "dump", rec])
    said += dump.stdout + dump.stderr
    check(SECRET_BUILD_ID not in said and bytes.fromhex(SECRET_BUILD_ID).decode("latin-1") not in said,
          "import-perf read a binary the perf.data's owner may not read: its build-id is in the recording")
    check(secret in dump.stdout, f"the recording lost the mapping of {secret}: {dump.stdout[:500]!r}")
    mode = stat.S_IMODE(os.stat(rec).st_mode)
    check(mode & 0o077 == 0, f"the recording has mode {oct(mode)}, its perf.data was private to its owner")
    # The same perf.data on standard input (`import-perf - < their.data`)
    # is still the attacker's data.
    piped = os.path.join(env.root_work, "imported_stdin")
    with open(theirs, "rb") as data:
        r = env.run([env.covkit, "sample", "import-perf", "-", "-o", piped], ok=False, stdin=data)
    check(r.returncode == 0, f"import-perf - exited {r.returncode}: {r.stderr!r}")
    dump = env.covkit_run(["sample", "dump", piped])
    check(SECRET_BUILD_ID not in dump.stdout + dump.stderr,
          "import-perf of a perf.data on standard input read a binary its owner may not read: its build-id is "
          "in the recording")
    for what, source in (("a recording imported from it", rec), ("the perf.data itself", theirs)):
        r = env.covkit_run(["sample", "report", source, "--lcov", "-"])
        said = r.stdout + r.stderr
        check("topsecret_function" not in said and "secret.c" not in said,
              f"sample report of {what} read a binary the perf.data's owner may not read: {said[:800]!r}")
        check(r.returncode == 0 and "Permission denied" in r.stderr,
              f"sample report of {what} did not say why the binary was left out ({r.returncode}): {r.stderr!r}")


def scenario_plan_server_rights(env):
    """A program root runs under `sample record --mode breakpoint` (the
    in-process runtime asks covkit's plan server where to plant) drops
    root's rights, then asks, on the connection it opened as root, for the
    plan of a binary only root may read: the sites would tell it the
    binary's code. covkit analyses a path for the user the request came from
    (the kernel's credentials of its sender): refused, the file's sites are
    not sent. And with that process's own group and groups, not those the
    group database gives its user."""
    lib_dir = os.path.dirname(env.covkit)
    if not os.path.exists(os.path.join(lib_dir, "libcovkit-sample.so")):
        raise Skip("libcovkit-sample.so not built")
    secret = root_only_program(env)
    d = env.fresh_dir("plan-asker")
    asker = os.path.join(d, "asker")
    env.run(["gcc-12", "-O0", "-g", os.path.join(PROGS, "plan_asker.c"), "-o", asker])
    rec = os.path.join(d, "rec")
    r = env.covkit_run(["sample", "record", "--mode", "breakpoint", "--allow-empty", "-o", rec, "--", asker, secret],
                       timeout=120)
    check(r.returncode == 0, f"sample record exited {r.returncode}: {r.stderr!r}")
    check(r.stdout.startswith("refused") and "Permission denied" in r.stdout,
          f"the plan server analysed, for a program that dropped root's rights, a binary only root may read: "
          f"{r.stdout!r}")
    # Asked with root's rights (a program that keeps them), the same binary has a plan: the refusal above is the rule.
    r = env.covkit_run(["sample", "record", "--mode", "breakpoint", "--allow-empty", "-o", rec + "2", "--", asker,
                        secret, "keep"], timeout=120)
    check(r.returncode == 0 and re.match(r"sites [1-9]", r.stdout),
          f"the control (a program keeping root's rights) got no plan of the binary: {r.stdout!r} {r.stderr!r}")
    # A binary its user's group may read (in the group database), asked for
    # by a process that left that group (another gid, no supplementary
    # group): the process's own rights decide, not the database's.
    group_dir = os.path.join(env.base, "groupbin")
    os.makedirs(group_dir, mode=0o750)
    grouped = os.path.join(group_dir, "grouped_prog")
    shutil.copyfile(secret, grouped)
    for p, mode in ((group_dir, 0o750), (grouped, 0o750)):
        os.chown(p, 0, ATTACKER)
        os.chmod(p, mode)
    for argv, want, what in ((["gid=4242"], "refused", "a program that left its user's group"),
                             ([], "sites", "the control (a program in the binary's group)")):
        r = env.covkit_run(["sample", "record", "--mode", "breakpoint", "--allow-empty", "-o", rec + "-" + want, "--",
                            asker, grouped, *argv], timeout=120)
        check(r.returncode == 0 and r.stdout.startswith(want),
              f"{what}: the plan server answered {r.stdout!r} for a binary of group {ATTACKER} ({r.stderr!r})")


def scenario_many_large_sources(env):
    """A program whose sources the attacker made many sparse files, each
    under covkit's limit for one source (it costs them nothing): `report
    --html` by root reads sources up to its total for one run and no
    further, and says so in one line for each source left out. The total
    is lowered for the test (COVKIT_TEST_SOURCE_TOTAL: 20 MiB, each source
    8 MiB, so two are read and six are not); before, covkit read them all."""
    d = os.path.join(env.home, "many")
    count, size = 8, 8 << 20
    extra = "".join(f'\n#line 1 "{d}/big{i}.c"\nint big{i}(int x) {{ return x + {i}; }}\n' for i in range(count))
    b = env.build_hostile("many", extra)
    env.run([os.path.join(b, "hostile")], cwd=b, input="q\n")
    subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", b], check=True)
    env.as_attacker(["mkdir", "-p", d])
    for i in range(count):
        env.as_attacker(["truncate", "-s", str(size), os.path.join(d, f"big{i}.c")])
    out = os.path.join(env.root_work, "many-html")
    r = env.covkit_run(["report", "--root", b, b, "--html", out], env=dict(os.environ, COVKIT_TEST_SOURCE_TOTAL=str(20 << 20)))
    check(r.returncode == 0, f"report --html exited {r.returncode}: {r.stderr!r}")
    said = [re.search(r"big\d\.c", l).group(0) for l in r.stderr.splitlines()
            if re.search(r"big\d\.c", l) and "its total for them" in l]
    check(len(said) == count - 2 and len(set(said)) == len(said),
          f"report --html did not say, once for each of the {count - 2} sources over the total, why it was not shown: "
          f"{r.stderr!r}")
    written = sum(os.path.getsize(os.path.join(dd, f)) for dd, _, fs in os.walk(out) for f in fs)
    check(written < 4 * size, f"report --html wrote {written} bytes: more sources than the total allows were shown")


def start_root_program_in_shared(env, name):
    """hostile.c built with --coverage by root into a new shared sticky
    directory (as /tmp) and started there; the program and its .gcda's name."""
    shared = os.path.join(env.base, name)
    os.makedirs(shared)
    os.chmod(shared, 0o1777)
    with open(os.path.join(PROGS, "hostile.c")) as f:
        text = f.read()
    with open(os.path.join(shared, "rootprog.c"), "w") as f:
        f.write(text)
    env.run(["gcc-12", "--coverage", "-O0", "-g", "-Wl,--wrap=__gcov_init", "-o", "rootprog", "rootprog.c"], cwd=shared)
    p = subprocess.Popen([os.path.join(shared, "rootprog")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         cwd=shared, env={"PATH": "/usr/bin:/bin"})
    try:
        check(p.stdout.readline().startswith("ready"), "the root program did not start")
        notes = [n for n in os.listdir(shared) if n.endswith(".gcno")]
        check(len(notes) == 1, f"one .gcno expected in {shared}: {os.listdir(shared)}")
    except Failure:
        stop_root_program(p)
        raise
    return p, os.path.join(shared, notes[0][:-len(".gcno")] + ".gcda")


def stop_root_program(p):
    try:
        p.stdin.write("q\n")
        p.stdin.flush()
    except BrokenPipeError:
        pass
    p.wait(timeout=20)


def scenario_spare_fifo(env):
    """`live dump --reset` of a root program into its own paths, a shared
    sticky directory (as /tmp): covkit reuses the spare it keeps beside each
    .gcda (NAME.gcda.covkit-spare) when that is a plain file of one link.
    The attacker planted a FIFO at that name, its reader open: covkit must
    not even open it for writing (the reader would see a writer come, and a
    device's open runs its driver). A FIFO's reader learns of a writer that
    came and went from POLLHUP, which no writer ever having come leaves
    unset: before, covkit opened it, then saw it was no plain file."""
    p, gcda = start_root_program_in_shared(env, "shared")
    reader = None
    try:
        spare = gcda + ".covkit-spare"
        env.as_attacker(["mkfifo", "-m", "0666", spare])
        reader = os.open(spare, os.O_RDONLY | os.O_NONBLOCK)
        r = env.covkit_run(["live", "dump", "--reset", str(p.pid)])
        check(r.returncode == 0 and os.path.isfile(gcda), f"dump --reset exited {r.returncode}: {r.stderr!r}")
        events = select_poll(reader)
        check(not events & select.POLLHUP, "covkit opened the attacker's FIFO planted at a spare's name for writing")
    finally:
        if reader is not None:
            os.close(reader)
        stop_root_program(p)


def scenario_spare_owned_file(env):
    """The same dump, the attacker's plain file (mode 0666, one link) at the
    spare's name: covkit reused it as the spare, so the root program's .gcda
    became the attacker's inode, readable and writable by them before the
    next merge. A spare is reused only when it is the dump's writer's own."""
    p, gcda = start_root_program_in_shared(env, "shared-owned")
    try:
        spare = gcda + ".covkit-spare"
        env.as_attacker(["sh", "-c", f"umask 0; : > '{spare}'"])
        planted = os.lstat(spare)
        check(planted.st_uid == ATTACKER, f"the planted spare is not the attacker's: {planted}")
        r = env.covkit_run(["live", "dump", "--reset", str(p.pid)])
        check(r.returncode == 0 and os.path.isfile(gcda), f"dump --reset exited {r.returncode}: {r.stderr!r}")
        st = os.lstat(gcda)
        check(st.st_uid == 0 and st.st_ino != planted.st_ino,
              f"the root program's .gcda is the attacker's planted file (uid {st.st_uid}, mode {st.st_mode:o})")
    finally:
        stop_root_program(p)


def root_counts_tree(env, name):
    """A directory only root may read holding x.gcda, whose counts
    (0x5EC2E7) no output made for the attacker may hold."""
    tree = os.path.join(env.rootonly, name)
    os.makedirs(tree)
    with open(os.path.join(tree, "x.gcda"), "wb") as f:
        f.write(gcda_bytes([0x5EC2E7, 0x5EC2E7]))
    return tree


def refused_through_links(env, runs, reason, merge_out):
    """Each covkit run of `runs` (what: argv) reads a file only root may
    read through the attacker's link: it must fail with Permission denied
    and `reason`, say nothing of the secret, and `merge_out` (merge's
    output) must hold none of root's counts."""
    for what, argv in runs.items():
        r = env.covkit_run(argv)
        said = r.stdout + r.stderr
        check("TOPSECRET" not in said, f"{what}: the secret's text is in what covkit said: {said[:300]!r}")
        check(r.returncode != 0 and "Permission denied" in r.stderr and reason in r.stderr,
              f"{what}: read a file only root may read through the attacker's link ({r.returncode}): {r.stderr!r}")
    merged = [os.path.join(dd, f) for dd, _, fs in os.walk(merge_out) for f in fs] if os.path.isdir(merge_out) else []
    for m in merged:
        check(struct.pack("<q", 0x5EC2E7) not in open(m, "rb").read(), f"merge took root's counts into {m}")


def scenario_linked_inputs(env):
    """Data files given to covkit (a tracefile, a .gcda tree to merge, a
    gmon.out, a block file) that are the attacker's symbolic links to files
    only root may read (a link in a tree a root CI job reports on): covkit
    read them with root's rights, took root's counts into its outputs and
    quoted their first line in its parse errors (a public CI log). The
    attacker chose the file: it is read with their rights, refused in one
    line, nothing of it in any output."""
    secret_tree = root_counts_tree(env, "tree")
    d = env.attacker_dir("linked-inputs")
    tree = env.attacker_dir("linked-inputs/tree")
    env.attacker_link(os.path.join(secret_tree, "x.gcda"), os.path.join(tree, "x.gcda"))
    for name in ("cov.info", "gmon.out", "blocks.txt"):
        env.attacker_link(env.secret, os.path.join(d, name))
    out = os.path.join(env.root_work, "linked-merge")
    prog = os.path.join(env.root_work, "linked-prof")
    with open(prog + ".c", "w") as f:
        f.write("int main(void) { return 0; }\n")
    env.run(["gcc-12", "-pg", "-O0", "-o", prog, prog + ".c"])
    runs = {
        "report --add-tracefile": ["report", "--add-tracefile", os.path.join(d, "cov.info"), "--lcov", "-"],
        "merge": ["merge", tree, "-o", out],
        "gprof": ["gprof", prog, os.path.join(d, "gmon.out")],
        "blocks report": ["blocks", "report", os.path.join(d, "blocks.txt"), "--lcov", "-"],
        # These two read with read_file_or_stdin, as root, once.
        "sample import-perf": ["sample", "import-perf", os.path.join(d, "perf.data"), "-o",
                               os.path.join(env.root_work, "linked-perf")],
        "live unpack": ["live", "unpack", os.path.join(d, "uart.log"), "-o", os.path.join(env.root_work, "linked-unpack")],
    }
    for name in ("perf.data", "uart.log"):
        env.attacker_link(env.secret, os.path.join(d, name))
    # A clang binary of root's (its coverage mapping names its functions
    # and sources), named with --object through the attacker's link.
    cc = shutil.which("clang") or shutil.which("clang-16") or shutil.which("clang-14")
    if cc:
        csrc = os.path.join(env.rootonly, "clangsecret.c")
        with open(csrc, "w") as f:
            f.write("int TOPSECRET_function(int x) { return x + 1; }\n"
                    "int main(int argc, char **argv) { (void)argv; return TOPSECRET_function(argc) - 2; }\n")
        cbin = os.path.join(env.rootonly, "clangsecret")
        env.run([cc, "-fprofile-instr-generate", "-fcoverage-mapping", "-O0", "-o", cbin, csrc])
        env.attacker_link(cbin, os.path.join(d, "prog"))
        runs["report --object"] = ["report", "--object", os.path.join(d, "prog"), d, "--lcov", "-"]
    refused_through_links(env, runs, "whose symbolic link it is", out)
    # The link on the way, not at the end: the attacker's link to root's
    # directory, the files named through it.
    shutil.copyfile(env.secret, os.path.join(secret_tree, "cov.info"))
    env.attacker_link(env.rootonly, os.path.join(d, "dirlink"))
    out2 = os.path.join(env.root_work, "linked-merge-dir")
    runs = {
        "report --add-tracefile through a directory link":
            ["report", "--add-tracefile", os.path.join(d, "dirlink", "tree", "cov.info"), "--lcov", "-"],
        "merge through a directory link": ["merge", os.path.join(d, "dirlink", "tree"), "-o", out2],
    }
    refused_through_links(env, runs, "whose symbolic link is on its way", out2)


def scenario_input_dir_swap(env):
    """`merge TREE` of the attacker's tree: covkit lists the .gcda files, then
    reads each by its name. Before, it looked at the directories on the way
    (lstat: no link), then opened the file by name: the attacker who swapped
    the tree for a link to root's directory in between (won every time:
    covkit stops itself at COVKIT_TEST_STOP_AT=input, about to open the
    file) had root's counts merged into the output. The name is walked from
    held directories, no link of theirs followed with root's rights."""
    secret_tree = root_counts_tree(env, "swaptree")
    parent = env.attacker_dir("swap")
    tree = env.attacker_dir("swap/tree")
    theirs = os.path.join(tree, "x.gcda")
    with open(theirs, "wb") as f:
        f.write(gcda_bytes([1, 2]))
    os.chown(theirs, ATTACKER, ATTACKER)
    out = os.path.join(env.root_work, "swap-merge")
    def move():
        env.as_attacker(["mv", tree, os.path.join(parent, "moved")])
        env.attacker_link(secret_tree, tree)
    status, _, err = run_raced(env, ["merge", tree, "-o", out], "input", "merge", move)
    merged = [os.path.join(dd, f) for dd, _, fs in os.walk(out) for f in fs] if os.path.isdir(out) else []
    for m in merged:
        check(struct.pack("<q", 0x5EC2E7) not in open(m, "rb").read(),
              f"merge took root's counts through a directory swapped for the attacker's link: {m}")
    check(status == 1 and "Permission denied" in err and "is on its way" in err,
          f"merge: exit {status}, want the refusal of the attacker's link on the way: {err!r}")


def scenario_source_link(env):
    """Root builds and reports in a directory another user owns (a CI job
    of root's in a user's checkout): the objects and counts are root's, so
    the sources they name were read with root's rights, following any link.
    The directory's owner replaced a source by a link to a file only root
    may read: `report --html` and `gcov` copied it into their pages. A link
    of another user's is followed with that user's rights, as for data."""
    d = env.attacker_dir("rootbuild")
    src = os.path.join(d, "prog.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    env.run(["gcc-12", "--coverage", "-O0", "-o", "prog", "prog.c"], cwd=d)
    env.run([os.path.join(d, "prog")], cwd=d)
    env.as_attacker(["rm", "-f", src])
    env.attacker_link(env.secret, src)
    out = os.path.join(env.root_work, "srclink-html")
    r = env.covkit_run(["report", "--root", d, d, "--html", out])
    pages = "".join(open(os.path.join(dd, f), errors="replace").read() for dd, _, fs in os.walk(out) for f in fs)
    check("TOPSECRET" not in pages + r.stdout + r.stderr,
          "report --html read a source through the attacker's link with root's rights")
    check("whose symbolic link it is" in r.stderr, f"report --html did not say why the source was not shown: "
                                                   f"{r.stderr!r}")
    gcov_out = env.fresh_dir("srclink-gcov")
    r = env.covkit_run(["gcov", "-o", d, src], cwd=gcov_out)
    texts = "".join(open(os.path.join(gcov_out, f), errors="replace").read() for f in os.listdir(gcov_out))
    check("TOPSECRET" not in texts + r.stdout + r.stderr,
          "gcov read a source through the attacker's link with root's rights")
    # The control: root's own link to the same file is followed.
    os.unlink(src)
    os.symlink(env.secret, src)
    r = env.covkit_run(["report", "--root", d, d, "--html", out + "-own"], ok=True)
    pages = "".join(open(os.path.join(dd, f), errors="replace").read() for dd, _, fs in os.walk(out + "-own")
                    for f in fs)
    check("TOPSECRET" in pages, "the control (root's own link to the source) was not followed")


def scenario_gcov_linked_objects(env):
    """`covkit gcov` run by root in the attacker's directory, whose x.gcno
    and x.gcda are links to root's own object in a directory only root may
    enter: covkit read them with root's rights and printed the root-only
    object's source, function names and counts on standard output (a public
    CI log). The attacker chose the files: read with their rights, refused;
    nothing of them said. Root's own object, named directly, is the control."""
    secret_dir = os.path.join(env.rootonly, "gcovobj")
    os.makedirs(secret_dir)
    with open(os.path.join(secret_dir, "x.c"), "w") as f:
        f.write("int topsecret_function(int v) { return v * 3; }\n"
                "int main(void) { return topsecret_function(1) == 3 ? 0 : 1; }\n")
    env.run(["gcc-12", "--coverage", "-O0", "-o", "x", "x.c"], cwd=secret_dir)
    env.run([os.path.join(secret_dir, "x")], cwd=secret_dir)
    objs = sorted(n for n in os.listdir(secret_dir) if n.endswith((".gcno", ".gcda")))
    check(len(objs) == 2, f"the secret object's files: {objs}")
    d = env.attacker_dir("gcov-linked")
    for n in objs:
        env.attacker_link(os.path.join(secret_dir, n), os.path.join(d, n))
    stem = objs[0].rsplit(".", 1)[0]
    for opts in ([], ["-f", "-b"], ["-j", "-t"]):
        r = env.covkit_run(["gcov", *opts, stem + ".gcda"], cwd=d)
        said = r.stdout + r.stderr
        check("topsecret" not in said and "x.c" not in r.stdout,
              f"gcov {opts} in the attacker's directory read root's object through their links: {said[:400]!r}")
    # The same object named through the attacker's link to its directory.
    env.attacker_link(secret_dir, os.path.join(d, "objdir"))
    r = env.covkit_run(["gcov", "-f", "-t", os.path.join("objdir", stem + ".gcda")], cwd=d)
    check("topsecret" not in r.stdout + r.stderr,
          f"gcov through the attacker's directory link read root's object: {(r.stdout + r.stderr)[:400]!r}")
    r = env.covkit_run(["gcov", "-f", "-t", os.path.join(secret_dir, stem + ".gcda")], cwd=env.root_work)
    check(r.returncode == 0 and "topsecret_function" in r.stdout,
          f"the control (root's own object named directly): {r.returncode} {r.stdout[:300]!r} {r.stderr!r}")


def scenario_trace_named_binary(env):
    """A trace directory of the attacker's: its metadata names a binary
    only root may read (or is a link to root's secret). `trace report` by
    root named that binary's functions and source lines (the attacker picks
    the addresses: every symbol could be had), `trace dump --raw` printed
    the linked file's lines. A trace is its owner's data: the modules it
    names are read with their rights, its files through their links too."""
    lib_dir = os.path.dirname(env.covkit)
    if not os.path.exists(os.path.join(lib_dir, "libcovkit-trace.so")):
        raise Skip("libcovkit-trace.so not built")
    secret_dir = os.path.join(env.rootonly, "tracebin")
    os.makedirs(secret_dir)
    src = os.path.join(secret_dir, "secret_fns.c")
    with open(src, "w") as f:
        f.write("int topsecret_function(int x) { return x + 1; }\n"
                "int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += topsecret_function(i); return s == 55 ? 0 : 2; }\n")
    prog = os.path.join(secret_dir, "secret_prog")
    env.run(["gcc-12", "-O0", "-g", "-finstrument-functions", src, "-o", prog])
    os.chmod(prog, 0o700)
    rec = os.path.join(env.root_work, "trace-rec")
    env.covkit_run(["trace", "record", "-o", rec, "--", prog], ok=True)
    # The attacker's copy of such a trace (its bytes are anything they could write).
    theirs = env.attacker_dir("trace-theirs")
    linked = env.attacker_dir("trace-linked")
    for name in os.listdir(rec):
        for d in (theirs, linked):
            shutil.copyfile(os.path.join(rec, name), os.path.join(d, name))
            os.chown(os.path.join(d, name), ATTACKER, ATTACKER)
    for meta in [n for n in os.listdir(linked) if n.endswith(".meta")]:
        os.unlink(os.path.join(linked, meta))
        env.attacker_link(env.secret, os.path.join(linked, meta))
    r = env.covkit_run(["trace", "report", theirs])
    check(r.returncode == 0, f"trace report exited {r.returncode}: {r.stderr!r}")
    check("topsecret_function" not in r.stdout + r.stderr and "secret_fns.c" not in r.stdout + r.stderr,
          f"trace report of the attacker's trace named a root-only binary's functions: {r.stdout[:600]!r}")
    r = env.covkit_run(["trace", "dump", "--raw", linked])
    check("TOPSECRET" not in r.stdout + r.stderr,
          f"trace dump --raw printed a file only root may read through the attacker's link: {r.stdout[:300]!r}")
    check("whose symbolic link it is" in r.stdout + r.stderr, f"trace dump --raw did not say why: {r.stderr!r}")
    # The control: root's own trace names them.
    r = env.covkit_run(["trace", "report", rec])
    check("topsecret_function" in r.stdout, f"the control (root's own trace) names no function: {r.stdout[:600]!r}")


# ------------------------------------------------------------------ clang's names, inflated

def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def name_ref(name):
    """LLVM's MD5Hash: the first 8 bytes of the MD5, little-endian."""
    return struct.unpack("<Q", hashlib.md5(name.encode()).digest()[:8])[0]


def names_bomb_profile(name, count):
    """A raw profile (version 8) of one function `name` whose names blob is
    `name` `count` times, zlib-compressed: a few KB that inflate a
    thousandfold."""
    text = "\x01".join([name] * count).encode()
    z = zlib.compress(text, 9)
    blob = uleb(len(text)) + uleb(len(z)) + z
    blob += b"\0" * ((8 - len(blob) % 8) % 8)
    delta = 0x1000
    q = lambda v: struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)
    header = b"".join(q(v) for v in (0xFF6C70726F667281, 8, 0, 1, 0, 1, 0, len(blob), delta, 0, 1))
    record = q(name_ref(name)) + q(0) + q(delta) + q(0) + q(0) + struct.pack("<IHH", 1, 0, 0)
    return header + record + q(5) + blob


def measured_run(env, argv, **kw):
    """covkit run as by covkit_run, with its peak resident memory (KiB)."""
    env.log("$", " ".join(argv))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([env.covkit, *argv], stdout=out, stderr=err, **kw)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        said = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    env.log(said[0] + said[1])
    return p.returncode, said[0], said[1], usage.ru_maxrss


def scenario_clang_names_bomb(env):
    """`covkit report DIR` of a directory the attacker fills: a 12 KB
    .profraw of four profiles, each of 2^22 one-byte names (a blob zlib
    inflates a thousandfold, each name a table's slots), read although no
    binary uses it, took covkit 805 MiB (2^23 names: 820 MB a profile).
    Names compress less than 10 times: a block that claims more than 64
    times its compressed bytes is damage, the file left out in one line,
    and what covkit takes stays small."""
    d = env.attacker_dir("names-bomb")
    path = os.path.join(d, "bomb.profraw")
    with open(path, "wb") as f:
        for n in "abcd":
            f.write(names_bomb_profile(n, 1 << 22))
    os.chown(path, ATTACKER, ATTACKER)
    check(os.path.getsize(path) < 64 << 10, f"the bomb is {os.path.getsize(path)} bytes")
    status, out, err, rss = measured_run(env, ["report", d, "--lcov", "-"])
    check(rss < 300 << 10, f"report of a {os.path.getsize(path)}-byte profile took {rss >> 10} MiB")
    check("bomb.profraw" in err and "function names" in err,
          f"report of a profile of 2^22 names: no line naming it ({status}, {rss >> 10} MiB): {err!r}")


def covmap_unit(names, packed_bytes_extra=0):
    """A coverage map unit (format 6) whose file list is `names`,
    zlib-compressed, the blob padded by `packed_bytes_extra` bytes (the
    count of names may not exceed the blob's bytes)."""
    plain = b"".join(uleb(len(n)) + n for n in names)
    z = zlib.compress(plain, 9)
    blob = uleb(len(names)) + uleb(len(plain)) + uleb(len(z)) + z + b"\0" * packed_bytes_extra
    unit = struct.pack("<IIII", 0, len(blob), 0, 5) + blob
    return unit + b"\0" * ((8 - len(unit) % 8) % 8)


def scenario_covmap_names_bomb(env):
    """A binary of the attacker's whose coverage map's units each list a
    compile directory of 1 MiB and hundreds of one-byte relative names:
    format 6 joins each to the directory, so a 2 KB section took 817 MiB
    (six lists inflating to zlib's 1 GiB each took 2.06 GB and 62 s). A binary's file names may take at most 64 times its map's bytes
    and 1 MiB: refused in one line naming the binary."""
    cc = shutil.which("clang") or shutil.which("clang-16") or shutil.which("clang-14")
    if not cc:
        raise Skip("clang not found")
    d = env.attacker_dir("covmap-bomb")
    src = os.path.join(env.root_work, "covmap.c")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    prog = os.path.join(d, "prog")
    env.run([cc, "-fprofile-instr-generate", "-fcoverage-mapping", "-O0", "-o", prog, src])
    names = [b"/" + b"d" * (1 << 20)] + [bytes([ord("a") + i % 26]) for i in range(800)]
    section = os.path.join(env.root_work, "covmap.bin")
    with open(section, "wb") as f:
        f.write(covmap_unit(names, 1000))
    env.run(["objcopy", f"--update-section=__llvm_covmap={section}", prog])
    os.chown(prog, ATTACKER, ATTACKER)
    status, out, err, rss = measured_run(env, ["report", d, "--lcov", "-"])
    check(rss < 300 << 10, f"report of a binary with a {os.path.getsize(section)}-byte coverage map took "
                           f"{rss >> 10} MiB")
    check("prog" in err and "file names" in err,
          f"report of a binary whose file names join to ~800 MiB: no line naming it ({status}, {rss >> 10} MiB): "
          f"{err!r}")


# ------------------------------------------------------------------ names that act on a terminal

# What a terminal acts on, in the attacker's names: OSC 52 (writes root's
# clipboard, pasted later as a command), OSC 0 (the title), CSI 2J (clears
# the screen) as ESC sequences, as the C1 controls U+009D/U+009B (which
# xterm and VTE take as OSC and CSI in UTF-8) and as a lone 0x9B byte (CSI
# to an 8-bit terminal).
TERMINAL_NAME = (b"\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;TITLE\x07\x1b[2J"
                 b"\xc2\x9d0;C1TITLE\xc2\x9c\xc2\x9b2J\x9b31mx.c")
# Bytes a terminal must never be sent from such names: ESC, BEL, CSI/OSC/ST
# as C1 characters and as lone 8-bit bytes.
TERMINAL_ACTIVE = re.compile(rb"[\x07\x1b\x9b\x9d]|\xc2[\x80-\x9f]")


def c_octal(b):
    return "".join(f"\\{c:03o}" if c < 0x20 or c >= 0x7f or chr(c) in '"\\' else chr(c) for c in b)


def on_terminal(env, argv, cwd):
    """covkit run with a pseudo-terminal (raw: no line-ending changes) as its
    standard output and error: the bytes the terminal received."""
    import pty
    import tty
    master, slave = pty.openpty()
    tty.setraw(slave)
    env.log("$ (on a terminal)", " ".join(argv))
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=cwd)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    p.wait(timeout=120)
    env.log(got.decode("utf-8", "backslashreplace"))
    return p.returncode, got


def terminal_clean(got, what, shown=b"]52;c;ZWNobyBwd25lZA=="):
    m = TERMINAL_ACTIVE.search(got)
    check(m is None, f"{what}: the attacker's name reached the terminal with {m and m.group()!r}: {got[:400]!r}")
    check(shown in got, f"{what}: the name is not shown at all: {got[:400]!r}")


def scenario_terminal_names(env):
    """Names from the attacker's notes files and program (a source named by
    #line, a function's name edited into the .gcno, a symbol renamed in a
    -pg program) carry escape sequences: shown by root's `covkit gcov`,
    `gprof`, `report` (summary, warnings, an lcov tracefile to '-') on a
    terminal, nor `trace report/replay/dump` of the attacker's own trace,
    nor `live dump -v` of a process that named its .gcda so, none may
    reach it as a control; in a pipe, covkit gcov and gprof still print
    gcov-12's and gprof's bytes."""
    d = env.attacker_dir("termnames")
    src = os.path.join(d, "names.c")
    placeholder = b"PLACEHOLDER" * 6
    with open(src, "w") as f:
        f.write(f"""#include <stdio.h>
int weird(int x) __asm__("{placeholder.decode()}");
int weird(int x) {{ return x + 1; }}
#line 10 "{c_octal(TERMINAL_NAME)}"
int other(int y) {{
  if (y > 2) return y;
  return 0;
}}
#line 30 "names.c"
int main(void) {{ printf("%d\\n", weird(1) + other(3)); return 0; }}
""")
    env.run(["gcc-12", "--coverage", "-O0", "-o", "names", "names.c"], cwd=d)
    env.run(["./names"], cwd=d)
    notes = os.path.join(d, "names.gcno")
    with open(notes, "rb") as f:
        data = f.read()
    evil_fn = (b"f" + TERMINAL_NAME[:-4]).ljust(len(placeholder), b"_")
    check(data.count(placeholder) == 1, "the function's name is not in the notes once")
    with open(notes, "wb") as f:
        f.write(data.replace(placeholder, evil_fn))
    # gprof: a -pg program whose symbol the attacker renamed after its run.
    with open(os.path.join(d, "pg.c"), "w") as f:
        f.write("#include <stdio.h>\n__attribute__((noinline)) int work(int n) { volatile long s = 0; "
                "for (long i = 0; i < 3000000L * n; i++) s += i; return (int)s; }\n"
                "int main(void) { printf(\"%d\\n\", work(1)); return 0; }\n")
    env.run(["gcc-12", "-pg", "-O0", "-o", "pg0", "pg.c"], cwd=d)
    env.run(["./pg0"], cwd=d)
    subprocess.run([b"objcopy", b"--redefine-sym", b"work=" + TERMINAL_NAME, b"pg0", b"pg"], cwd=d, check=True)
    subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", d], check=True)

    # The oracles' bytes in a pipe, and covkit's.
    for tool, oracle, argv in (
            ("gcov", ["gcov-12"], ["-b", "-c", "-f", "names.gcno"]),
            ("gprof", ["gprof"], ["-b", "pg", "gmon.out"])):
        if shutil.which(oracle[0]) is None:
            continue
        out_dir = env.fresh_dir(f"pipe-{tool}")
        for f in ("names.gcno", "names.gcda", "pg", "gmon.out"):
            shutil.copy(os.path.join(d, f), out_dir)
        want = subprocess.run(oracle + argv, cwd=out_dir, capture_output=True)
        got = subprocess.run([env.covkit, tool] + argv, cwd=out_dir, capture_output=True)
        check(TERMINAL_ACTIVE.search(want.stdout), f"{oracle[0]}'s output lacks the names: the attack is not built")
        check(got.stdout == want.stdout, f"covkit {tool} in a pipe differs from {oracle[0]}: "
              f"{got.stdout[:300]!r} != {want.stdout[:300]!r}")

    runs = [
        ("covkit gcov", ["gcov", "-b", "-c", "-f", "names.gcno"]),
        ("covkit gcov -t", ["gcov", "-t", "names.gcno"]),
        ("covkit gprof", ["gprof", "-b", "pg", "gmon.out"]),
        ("covkit report", ["report", "--color", "never", "."]),
        ("covkit report --lcov -", ["report", "--lcov", "-", "."]),
    ]
    # trace: the attacker's own trace of a program whose function they renamed.
    if os.path.exists(os.path.join(os.path.dirname(env.covkit), "libcovkit-trace.so")):
        with open(os.path.join(d, "tr.c"), "w") as f:
            f.write("#include <stdio.h>\n__attribute__((noinline)) int work(int n) { return n + 1; }\n"
                    "int main(void) { printf(\"%d\\n\", work(1)); return 0; }\n")
        env.run(["gcc-12", "-O0", "-finstrument-functions", "-o", "tr0", "tr.c"], cwd=d)
        subprocess.run([b"objcopy", b"--redefine-sym", b"work=" + TERMINAL_NAME, b"tr0", b"tr"], cwd=d, check=True)
        subprocess.run(["chown", "-R", f"{ATTACKER}:{ATTACKER}", d], check=True)
        env.as_attacker([env.attacker_covkit(), "trace", "record", "-o", os.path.join(d, "trace"), "--", "./tr"], ok=True,
                        cwd=d)
        for sub in ("report", "replay", "dump"):
            runs.append((f"covkit trace {sub}", ["trace", sub, os.path.join(d, "trace")]))
            # In a pipe too, as trace report always did: no oracle prints
            # these, and a line break in a name would forge their lines.
            r = subprocess.run([env.covkit, "trace", sub, os.path.join(d, "trace")], capture_output=True)
            m = TERMINAL_ACTIVE.search(r.stdout)
            check(r.returncode == 0 and m is None and b"]52;c;" in r.stdout,
                  f"covkit trace {sub} | ...: {r.returncode}, {m and m.group()!r}: {r.stdout[:400]!r}")
    for what, args in runs:
        work = env.fresh_dir("term-" + args[0])
        for f in ("names.gcno", "names.gcda", "pg", "gmon.out"):
            shutil.copy(os.path.join(d, f), work)
        rc, got = on_terminal(env, [env.covkit, *args], work)
        check(rc == 0, f"{what}: exit {rc}: {got[:400]!r}")
        terminal_clean(got, what)
    # gcov -t -k: covkit's own colours reach the terminal, the name's
    # sequences do not.
    work = env.fresh_dir("term-gcov-k")
    for f in ("names.gcno", "names.gcda"):
        shutil.copy(os.path.join(d, f), work)
    rc, got = on_terminal(env, [env.covkit, "gcov", "-t", "-k", "names.gcno"], work)
    check(rc == 0, f"covkit gcov -t -k: exit {rc}: {got[:400]!r}")
    # gcov's colours: a colour, then erase to the line's end (ESC [ K)
    sgr = re.compile(rb"\x1b\[(?:[0-9;]*m|K)")
    check(re.search(rb"\x1b\[4[1356](?:;37)?m\x1b\[K", got), f"covkit gcov -t -k: no colours on the terminal: {got[:400]!r}")
    check(b"\\x1b[K" not in got, f"covkit gcov -t -k: its own erase-line shown as text: {got[:400]!r}")
    terminal_clean(sgr.sub(b"", got), "covkit gcov -t -k")

    # live dump -v: the path of a .gcda an attacker's process named (C1
    # controls are no C0 control bytes: such a name is accepted).
    b = env.build_hostile("termdump")
    h = Hostile(env, b, name=os.path.join(b, "\u009b2J\u009d0;T\u009c.gcda"))
    try:
        out = env.fresh_dir("termdump-out")
        rc, got = on_terminal(env, [env.covkit, "live", "dump", "-v", str(h.pid), "-o", out], out)
        check(rc == 0, f"live dump -v: exit {rc}: {got[:400]!r}")
        terminal_clean(got, "live dump -v", b"2J")
    finally:
        h.kill()


def select_poll(fd):
    """The events pending on `fd` now (no wait)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    return sum(e for _, e in poller.poll(0))


def gmon_bytes(records):
    """A gmon.out of histogram records (low pc, high pc, buckets), one
    sample in each bucket."""
    parts = [b"gmon" + struct.pack("<I", 1) + b"\0" * 12]
    for low, high, n in records:
        parts.append(b"\0" + struct.pack("<QQII", low, high, n, 100) + b"seconds".ljust(15, b"\0") + b"s")
        parts.append(struct.pack("<H", 1) * n)
    return b"".join(parts)


def scenario_gmon_records(env):
    """The gmon.out of root's -pg program, in the attacker's directory, which
    they rewrote: 200,000 histogram records of disjoint ranges (8.6 MB), and
    two records whose high pc is below their low pc. Before, each record was
    compared with every one before it (80,000 records: 9 s; 200,000: 24 s of
    CPU; gprof the same) and samples were assigned walking the symbols from
    the first for each record; records upside down overlap nothing and each
    of their buckets covers every function. covkit gprof must finish within
    10 s of CPU (RLIMIT_CPU; it needs 0.1 s) with the report, and refuse the
    second upside-down record in one line naming the file."""
    import resource
    src = os.path.join(env.root_work, "pg.c")
    with open(src, "w") as f:
        f.write("int f(int x) { return x * 3; }\nint main(void) { return f(1) == 3 ? 0 : 1; }\n")
    prog = os.path.join(env.root_work, "pg")
    env.run(["gcc-12", "-pg", "-O0", "-o", prog, src])
    d = env.attacker_dir("gmon")

    def write(name, data):
        env.as_attacker(["sh", "-c", f"cat > {name}"], input=data.decode("latin-1"), cwd=d, encoding="latin-1")
        return os.path.join(d, name)

    def limited():
        resource.setrlimit(resource.RLIMIT_CPU, (10, 10))

    many = write("many.out", gmon_bytes([(0x1000 + 4 * i, 0x1004 + 4 * i, 1) for i in range(200000)]))
    r = env.run([env.covkit, "gprof", "-b", prog, many], ok=False, preexec_fn=limited)
    check(r.returncode == 0,
          f"gprof of 200,000 histogram records: exit {r.returncode} (killed at the CPU limit: -9 or -24): {r.stderr!r}")
    check("Flat profile:" in r.stdout, f"gprof of 200,000 histogram records printed no profile: {r.stdout[:200]!r}")
    upside = write("upside.out", gmon_bytes([(2 + 2 * m, 2 * m, 1) for m in range(1, 3)]))
    r = env.run([env.covkit, "gprof", "-b", prog, upside], ok=False, preexec_fn=limited)
    one_line_error(r, "gprof of two upside-down histogram records", upside, "high pc is below its low pc")


def elf_section(data, name):
    """(file offset, size) of the section `name` of a little-endian ELF64."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    names = header(shstrndx)[4]
    for i in range(shnum):
        n, _, _, _, off, size = header(i)
        if data[names + n:data.index(b"\0", names + n)] == name:
            return off, size
    raise Failure(f"no section {name!r}")


def scenario_debug_alt_link(env):
    """The attacker's program, whose debug information refers to strings of
    a dwz file (its unit's directory in DW_FORM_strp_sup) and whose
    .gnu_debugaltlink names, as that file, a FIFO of the attacker's. libdw
    opens the file itself, at the first such string, with open(2) as root:
    `covkit blocks report` of the attacker's block file naming the program
    blocked there for good (as trace and sample reports of it, and gprof of
    it, would). covkit opens the file before libdw does, as it opens any
    file data names (a regular file only): the report must end, exit 0."""
    d = env.attacker_dir("altlink")
    src = os.path.join(d, "p.c")
    env.as_attacker(["sh", "-c", f"cat > {src}"],
                    input="int work(int x) { return x * 3; }\nint main(int c, char **v) { return work(c); }\n")
    plain = os.path.join(env.root_work, "p")
    env.run(["gcc-12", "-O0", "-g", "-o", plain, src])
    data = bytearray(open(plain, "rb").read())
    off, size = elf_section(data, b".debug_abbrev")
    # The unit's DW_AT_comp_dir (0x1b) in DW_FORM_line_strp (0x1f) becomes
    # DW_FORM_strp_sup (0x1d): an offset of the same size, into the dwz file.
    at = data.find(bytes([0x1B, 0x1F]), off, off + size)
    check(at >= 0, "gcc-12 wrote no DW_AT_comp_dir in DW_FORM_line_strp")
    data[at + 1] = 0x1D
    patched = plain + ".sup"
    with open(patched, "wb") as f:
        f.write(data)
    fifo = os.path.join(d, "dwz.fifo")
    env.as_attacker(["mkfifo", fifo])
    link = os.path.join(env.root_work, "altlink.bin")
    with open(link, "wb") as f:
        f.write(fifo.encode() + b"\0" + bytes(range(1, 21)))
    prog = os.path.join(d, "prog")
    env.run(["objcopy", f"--add-section=.gnu_debugaltlink={link}", patched, prog])
    subprocess.run(["chown", f"{ATTACKER}:{ATTACKER}", prog], check=True)
    address = next(int(l.split()[0], 16) for l in env.run(["nm", prog]).stdout.splitlines() if l.endswith(" work"))
    blocks = os.path.join(d, "covkit-blocks.4242")
    env.as_attacker(["sh", "-c", f"cat > {blocks}"],
                    input=f"covkit-blocks 1\npid 4242\ndropped 0 0 0 0 0 0\nmodule 0x0 {prog}\nb {address:x} 7\nend\n")
    out = os.path.join(env.fresh_dir("altlink-out"), "out.info")
    try:
        r = env.run([env.covkit, "blocks", "report", blocks, "--lcov", out], ok=False, timeout=60)
    except subprocess.TimeoutExpired:
        raise Failure("blocks report was still blocked after 60 s (libdw opening the FIFO the program's "
                      ".gnu_debugaltlink names)")
    check(r.returncode == 0, f"blocks report exited {r.returncode}: {r.stderr!r}")
    check("FNDA:7,work" in open(out).read(), f"blocks report lost the program's counts: {open(out).read()!r}")


def scenario_live_fanout(env):
    """A process whose object's function table is 65,536 pointers at one
    record it owns, of 4 M counters (hostile.c, $HOSTILE_FANOUT): `live
    dump` copied the 32 MB array for each function (2 TB), until covkit ran
    out of memory (2 GB here: RLIMIT_AS). No program's functions share
    counters they own: refused in one line naming the object, nothing
    written. (The process is killed, not let exit: its libgcov would write
    the 2 TB.)"""
    import resource
    b = env.build_hostile("fanout")
    # AddressSanitizer reserves terabytes of shadow address space at start,
    # which no cap of 2 GB allows: the sanitized covkit runs uncapped (the
    # refusal, checked below, comes before any copy either way).
    with open(env.covkit, "rb") as f:
        sanitized = b"__asan_init" in f.read()

    def limited():
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    h = Hostile(env, b, fanout=True)
    try:
        out = os.path.join(env.root_work, "fanout-out")
        r = env.run([env.covkit, "live", "dump", str(h.pid), "-o", out], ok=False, preexec_fn=limited, timeout=120)
        one_line_error(r, "dump of a process whose functions share one counter array", "hostile.gcda",
                       "counters of two functions overlap")
        check(not os.path.exists(out), f"the refused dump wrote {out}")
    finally:
        h.kill()


SCENARIOS = {
    "link_targets": scenario_link_targets,
    "object_names": scenario_object_names,
    "staging_race": scenario_staging_race,
    "output_file_race": scenario_output_file_race,
    "disclosure": scenario_disclosure,
    "sample_pid": scenario_sample_pid,
    "sample_disclosure": scenario_sample_disclosure,
    "sample_linked_files": scenario_sample_linked_files,
    "blocks_runtime_files": scenario_blocks_runtime_files,
    "blocks_named_binary": scenario_blocks_named_binary,
    "live_report_binary_swap": scenario_live_report_binary_swap,
    "fifo_inputs": scenario_fifo_inputs,
    "special_files": scenario_special_files,
    "proc_sources": scenario_proc_sources,
    "fifo_outputs": scenario_fifo_outputs,
    "module_swap": scenario_module_swap,
    "output_special_swap": scenario_output_special_swap,
    "huge_source": scenario_huge_source,
    "import_perf_named_files": scenario_import_perf_named_files,
    "plan_server_rights": scenario_plan_server_rights,
    "many_large_sources": scenario_many_large_sources,
    "spare_fifo": scenario_spare_fifo,
    "linked_inputs": scenario_linked_inputs,
    "input_dir_swap": scenario_input_dir_swap,
    "clang_names_bomb": scenario_clang_names_bomb,
    "source_link": scenario_source_link,
    "covmap_names_bomb": scenario_covmap_names_bomb,
    "trace_named_binary": scenario_trace_named_binary,
    "gcov_linked_objects": scenario_gcov_linked_objects,
    "spare_owned_file": scenario_spare_owned_file,
    "terminal_names": scenario_terminal_names,
    "gmon_records": scenario_gmon_records,
    "debug_alt_link": scenario_debug_alt_link,
    "live_fanout": scenario_live_fanout,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default="build/covkit")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    if os.geteuid() != 0:
        print("SKIP: the attacks need root (covkit as root, the attacker as another user)")
        return 77
    for tool in ("setpriv", "gcc-12"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} not found")
            return 77
    names = list(SCENARIOS) if args.scenarios in ([], ["all"]) else args.scenarios
    status = 0
    for name in names:
        env = Env(args)
        try:
            SCENARIOS[name](env)
            print(f"PASS {name}")
        except Skip as s:
            print(f"SKIP {name}: {s}")
            status = status or 77
        except Failure as f:
            print(f"FAIL {name}: {f}")
            status = 1
        finally:
            if not args.keep:
                shutil.rmtree(env.base, ignore_errors=True)
            else:
                print(f"kept {env.base}")
    return status


if __name__ == "__main__":
    sys.exit(main())
