#!/usr/bin/env python3
"""End-to-end tests of `covkit live` on real programs: a multi-threaded test
server (progs/) built with gcc-11 and gcc-12, PIE and not, with a shared
library that has its own counters and a dlopen'ed plugin, is dumped while it
waits on its command pipe, and the files are compared byte for byte with the
ones its own libgcov writes at the same point (__gcov_dump() called from the
uninstrumented control loop, so no counter moves in between), with gcov's
output of a run that did the same work and exited, and under load.

  run_live.py --covkit build/covkit [--work DIR] [--keep] [-v] SCENARIO...  (or "all")
  run_live.py --list

Exit 0 when every scenario passes, 1 on a failure, 77 when a compiler a
scenario needs is missing.
"""
import argparse
import filecmp
import os
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from proc_stat import process_state  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def wait_until(cond, what, timeout=120):
    """Polls `cond` until it holds: the state a step waits for, not a time it
    guesses (a loaded machine runs processes late). The bound only matters
    when the state never comes: then `what` is the failure."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise Failure(what)
        time.sleep(0.01)


def thread_states(pid):
    """The state letters of the process's threads (S sleeping, R running...)."""
    states = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        except OSError:
            pass
    return states


def gone_or_zombie(pid):
    return process_state(pid) in (None, "Z")


class Env:
    def __init__(self, args):
        self.covkit = os.path.abspath(args.covkit)
        self.work = os.path.abspath(args.work)
        self.verbose = args.verbose

    def dir(self, *parts):
        d = os.path.join(self.work, *parts)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
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

    def covkit_live(self, *args, ok=True, **kw):
        return self.run([self.covkit, "live", *args], ok=ok, **kw)


# ------------------------------------------------------------------ building

class Build:
    """The server, its shared library and its plugin, built by one compiler."""

    def __init__(self, env, cc, pie=True, atomic=False, solo=False, strip=False, tag="", base=None):
        if not shutil.which(cc):
            raise Skip(f"{cc} not found")
        name = f"{cc}-{'pie' if pie else 'nopie'}{'-atomic' if atomic else ''}{'-solo' if solo else ''}" \
               f"{'-stripped' if strip else ''}{tag}"
        if base:  # outside the work directory (see scenario_refusals)
            self.root = os.path.join(base, name)
            os.makedirs(self.root)
        else:
            self.root = env.dir("build", name)
        self.obj = os.path.join(self.root, "obj")
        os.makedirs(self.obj)
        self.cc = cc
        self.major = int(re.search(r"(\d+)", cc).group(1))
        cov = ["--coverage", "-O2", "-g"] + (["-fprofile-update=atomic"] if atomic else [])
        pic = ["-fPIC"] if pie else ["-fno-pie"]
        def cc_run(args):
            env.run([cc] + args, cwd=self.obj)
        # The control loop is not instrumented (see progs/control.c).
        cc_run(["-O2", "-fPIC", "-c", os.path.join(PROGS, "control.c"), "-o", os.path.join(self.obj, "control.o")])
        for src in ["server", "liblive", "plugin"]:
            cc_run(cov + ["-fPIC" if src != "server" else pic[0], "-c", os.path.join(PROGS, src + ".c"),
                          "-o", os.path.join(self.obj, src + ".o")])
        self.plugin = os.path.join(self.root, "plugin.so")
        cc_run(["--coverage", "-shared", "-o", self.plugin, os.path.join(self.obj, "plugin.o")])
        self.exe = os.path.join(self.root, "server")
        objs = [os.path.join(self.obj, "server.o"), os.path.join(self.obj, "control.o")]
        link = ["--coverage", "-o", self.exe] + (["-pie"] if pie else ["-no-pie"])
        if solo:  # the library linked in: one module, one root
            cc_run(link + objs + [os.path.join(self.obj, "liblive.o"), "-ldl", "-lpthread"])
        else:
            lib = os.path.join(self.root, "liblive.so")
            cc_run(["--coverage", "-shared", "-o", lib, os.path.join(self.obj, "liblive.o")])
            cc_run(link + objs + ["-L" + self.root, "-llive", "-Wl,-rpath," + self.root, "-ldl", "-lpthread"])
        if strip:
            env.run(["strip", self.exe])

    def gcda(self, name):
        return os.path.join(self.obj, name + ".gcda")


class Server:
    """A running test server; `cmd` sends one command and waits for its answer."""

    def __init__(self, env, build, prefix=None, uid=None):
        self.env = env
        e = dict(os.environ, PLUGIN=build.plugin)
        e.pop("GCOV_PREFIX", None)
        if prefix:
            e["GCOV_PREFIX"] = prefix
        argv = [build.exe]
        if uid is not None:
            argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] + argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=e,
                                  cwd=build.root)
        self.pid = self.p.pid
        if uid is not None:  # setpriv execs the server: same pid
            pass
        self.cmd("w 0")  # started and idle

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        answer = self.p.stdout.readline().strip()
        if line != "q" and answer == "":
            raise Failure(f"the server did not answer {line!r}")
        return answer

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


# ------------------------------------------------------------------ .gcda files

def read_gcda(path):
    """{function ident: [counter arrays]}, plus the summary (runs, sum_max)."""
    data = open(path, "rb").read()
    words = struct.unpack("<%dI" % (len(data) // 4), data[: len(data) // 4 * 4])
    check(words[0] == 0x67636461, f"{path}: not a .gcda file")
    version = words[1]
    major = (((version >> 24) & 0xFF) - ord("A")) * 10 + ((version >> 16) & 0xFF) - ord("0")
    pos = 4 if major >= 12 else 3
    in_bytes = major >= 12
    funcs, summary, ident = {}, None, None
    while pos < len(words):
        tag = words[pos]
        if tag == 0:
            break
        length = words[pos + 1]
        signed = length - (1 << 32) if length & 0x80000000 else length
        n_words = (abs(signed) // 4 if in_bytes else abs(signed))
        body = words[pos + 2: pos + 2 + (0 if signed < 0 else n_words)]
        if tag == 0xA1000000:
            summary = (body[0], body[1])
        elif tag == 0x01000000:
            ident = body[0] if body else None
            if ident is not None:
                funcs[ident] = []
        elif (tag & 0xFFFF0000) >= 0x01A10000 and (tag & 0xFFFF0000) < 0x01B00000:
            if signed < 0:
                counts = [0] * (n_words // 2)
            else:
                counts = [body[i] | (body[i + 1] << 32) for i in range(0, len(body), 2)]
            funcs[ident].append((tag, counts))
        pos += 2 + (0 if signed < 0 else n_words)
    return summary, funcs


def tree_files(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".gcda"):
                p = os.path.join(d, f)
                out[os.path.relpath(p, root)] = p
    return out


def same_trees(a, b, what):
    fa, fb = tree_files(a), tree_files(b)
    check(sorted(fa) == sorted(fb), f"{what}: files differ: {sorted(fa)} vs {sorted(fb)}")
    check(fa, f"{what}: no .gcda file at all")
    for rel in fa:
        check(filecmp.cmp(fa[rel], fb[rel], shallow=False), f"{what}: {rel} differs (cmp {fa[rel]} {fb[rel]})")
    return len(fa)


def gcov_lines(env, build, gcda_tree, cc):
    """gcov's text for the server's sources, from a tree holding the build's .gcda files."""
    out = env.dir(os.path.basename(gcda_tree.rstrip("/")) + "-gcov")
    sources = []
    for src in ["server", "liblive", "plugin"]:
        found = [p for rel, p in tree_files(gcda_tree).items() if rel.endswith("/" + src + ".gcda")]
        if not found:
            continue
        shutil.copy(found[0], os.path.join(out, src + ".gcda"))
        shutil.copy(os.path.join(build.obj, src + ".gcno"), os.path.join(out, src + ".gcno"))
        sources.append(os.path.join(PROGS, src + ".c"))
    gcov = cc.replace("gcc", "gcov")
    env.run([gcov, "-b", "-c", "-o", out] + sources, cwd=out)
    texts = {}
    for f in sorted(os.listdir(out)):
        if f.endswith(".gcov"):
            texts[f] = open(os.path.join(out, f)).read()
    check(texts, f"gcov wrote nothing for {gcda_tree}")
    return texts


def valid_for_gcov(env, build, gcda_tree):
    """`covkit gcov` reads every file of the tree with its notes, without a complaint."""
    scratch = env.dir("valid-scratch")
    for rel, p in tree_files(gcda_tree).items():
        base = os.path.basename(p)[:-5]
        shutil.copy(p, os.path.join(scratch, base + ".gcda"))
        shutil.copy(os.path.join(build.obj, base + ".gcno"), os.path.join(scratch, base + ".gcno"))
        r = env.run([env.covkit, "gcov", "-n", "-o", scratch, os.path.join(PROGS, base + ".c")], cwd=scratch)
        check(r.stderr == "", f"{gcda_tree}: {r.stderr}")


def dump_pause(stdout):
    m = re.search(r"stopped for ([0-9.]+) ms", stdout)
    check(m, f"no pause printed: {stdout!r}")
    return float(m.group(1))


# ------------------------------------------------------------------ scenarios

def oracle(env, cc, pie, strip=False, solo=False, expect_source=None):
    """A dump equals the program's own __gcov_dump() at the same point, byte for byte."""
    b = Build(env, cc, pie=pie, strip=strip, solo=solo)
    own = env.dir("own-" + os.path.basename(b.root))
    snap = os.path.join(env.work, "snap-" + os.path.basename(b.root))
    shutil.rmtree(snap, ignore_errors=True)
    s = Server(env, b, prefix=own)
    try:
        s.cmd("w 1000")
        if not solo:
            s.cmd("l")
        s.cmd("w 37")
        r = env.covkit_live("dump", "-v", str(s.pid), "-o", snap)
        dump_pause(r.stdout)
        if expect_source:
            check(expect_source in r.stdout, f"root not found by {expect_source}: {r.stdout}")
        s.cmd("d")
    finally:
        s.quit()
    n = same_trees(snap, own, f"{cc} {'pie' if pie else 'no-pie'}")
    check(n == (2 if solo else 3), f"expected {2 if solo else 3} files, got {n}")


def scenario_gcov_equal(env, cc="gcc-12"):
    """Dumped while idle == a run that did the same work and exited, line for line in gcov."""
    b = Build(env, cc)
    snap = os.path.join(env.work, "snap-gcov-equal")
    shutil.rmtree(snap, ignore_errors=True)
    exited = env.dir("exited")
    s = Server(env, b)
    try:
        for c in ["w 500", "l", "w 20"]:
            s.cmd(c)
        env.covkit_live("dump", str(s.pid), "-o", snap)
    finally:
        s.kill()  # killed: its own exit writes nothing
    s2 = Server(env, b, prefix=exited)
    for c in ["w 500", "l", "w 20"]:
        s2.cmd(c)
    s2.quit()
    a, e = gcov_lines(env, b, snap, cc), gcov_lines(env, b, exited, cc)
    check(sorted(a) == sorted(e), f"gcov files differ: {sorted(a)} vs {sorted(e)}")
    for name in a:
        check(a[name] == e[name], f"{name}: gcov's output differs between the dump and the exited run")
    check("job" in a.get("server.c.gcov", ""), "server.c.gcov misses job()")


def scenario_reset(env, cc="gcc-12"):
    """covkit live reset, then work == __gcov_reset() in the program, then the same work."""
    b = Build(env, cc)
    mine, theirs = env.dir("reset-mine"), env.dir("reset-theirs")
    s = Server(env, b, prefix=mine)
    s.cmd("w 400")
    r = env.covkit_live("reset", str(s.pid))
    check("objects reset" in r.stdout, r.stdout)
    s.cmd("w 300")
    s.cmd("d")
    s.quit()
    t = Server(env, b, prefix=theirs)
    t.cmd("w 400")
    t.cmd("r")
    t.cmd("w 300")
    t.cmd("d")
    t.quit()
    same_trees(mine, theirs, "reset")
    # Only some objects: the library's counters stay.
    s = Server(env, b)
    snap = os.path.join(env.work, "reset-some")
    shutil.rmtree(snap, ignore_errors=True)
    s.cmd("w 50")
    env.covkit_live("reset", str(s.pid), os.path.join(PROGS, "server.c"))
    # A SOURCE no object was built from is an error that says what was reset.
    r = env.covkit_live("reset", str(s.pid), "nowhere.c", ok=False)
    check(r.returncode == 1 and r.stderr.endswith("nowhere.c: no object of the process was built from it "
                                                  "(nothing was reset)\n"), r.stderr)
    # Nothing is reset when one SOURCE matches nothing: the others' objects neither.
    r = env.covkit_live("reset", str(s.pid), os.path.join(PROGS, "server.c"), "nowhere.c", "elsewhere.c", ok=False)
    check(r.returncode == 1 and r.stderr.endswith("nowhere.c, elsewhere.c: no object of the process was built from "
                                                  "them (nothing was reset)\n"), r.stderr)
    env.covkit_live("dump", str(s.pid), "-o", snap)
    s.kill()
    files = tree_files(snap)
    srv = [p for r_, p in files.items() if r_.endswith("server.gcda")][0]
    lib = [p for r_, p in files.items() if r_.endswith("liblive.gcda")][0]
    check(all(all(v == 0 for _, c in f for v in c) for f in read_gcda(srv)[1].values()), "server.c not reset")
    check(any(any(v for _, c in f for v in c) for f in read_gcda(lib)[1].values()), "liblive.c reset too")
    # After the program's own __gcov_dump() (which marks its counters
    # dumped, so that its exit writes nothing more), a reset clears that
    # mark as __gcov_reset() does: the exit then writes what followed.
    mine, theirs = env.dir("reset-dumped-mine"), env.dir("reset-dumped-theirs")
    s = Server(env, b, prefix=mine)
    s.cmd("w 40")
    s.cmd("d")
    env.covkit_live("reset", str(s.pid))
    s.cmd("w 30")
    s.quit()
    t = Server(env, b, prefix=theirs)
    for c in ["w 40", "d", "r", "w 30"]:
        t.cmd(c)
    t.quit()
    same_trees(mine, theirs, "reset after the program's own __gcov_dump")


def scenario_deltas(env, cc="gcc-12"):
    """dump --reset into the program's own files, then its exit == the program's own dump+reset, exit."""
    b = Build(env, cc)
    mine, theirs = env.dir("deltas-mine"), env.dir("deltas-theirs")
    s = Server(env, b, prefix=mine)
    s.cmd("w 100")
    env.covkit_live("dump", "--reset", str(s.pid))
    s.cmd("l")
    s.cmd("w 200")
    env.covkit_live("dump", "--reset", str(s.pid))
    s.cmd("w 50")
    s.quit()
    t = Server(env, b, prefix=theirs)
    for c in ["w 100", "d", "r", "l", "w 200", "d", "r", "w 50"]:
        t.cmd(c)
    t.quit()
    same_trees(mine, theirs, "dump --reset into the program's files, then exit")
    # Under -o: the deltas and the exit file, added with covkit merge, give
    # the counts of one run that did everything.
    b_dirs = [os.path.join(env.work, f"delta{i}") for i in range(2)]
    for d in b_dirs:
        shutil.rmtree(d, ignore_errors=True)
    exit_dir, whole = env.dir("delta-exit"), env.dir("delta-whole")
    s = Server(env, b, prefix=exit_dir)
    s.cmd("w 100")
    env.covkit_live("dump", "--reset", str(s.pid), "-o", b_dirs[0])
    s.cmd("w 200")
    env.covkit_live("dump", "--reset", str(s.pid), "-o", b_dirs[1])
    s.cmd("w 50")
    s.quit()
    merged = os.path.join(env.work, "delta-merged")
    shutil.rmtree(merged, ignore_errors=True)
    env.run([env.covkit, "merge", "-o", merged] + b_dirs + [exit_dir])
    t = Server(env, b, prefix=whole)
    for c in ["w 100", "w 200", "w 50"]:
        t.cmd(c)
    t.quit()
    a, e = gcov_lines(env, b, merged, cc), gcov_lines(env, b, whole, cc)
    for name in e:
        check(a.get(name) == e[name], f"{name}: deltas + exit differ from one whole run")
    # A dump without --reset never adds to an existing file.
    s = Server(env, b, prefix=mine)
    r = env.covkit_live("dump", str(s.pid), "-o", b_dirs[0], ok=False)
    check(r.returncode == 1 and "without --reset" in r.stderr, f"a view was added to a file: {r.stderr}")
    r = env.covkit_live("dump", str(s.pid), ok=False)
    check(r.returncode == 1 and "--reset" in r.stderr, f"own paths without --reset: {r.stderr}")
    s.kill()


def scenario_spare_files(env, cc="gcc-12"):
    """dump --reset into the program's own files puts each file in place by
    exchanging it with the one there, which is kept as NAME.gcda.covkit-spare
    and written over by the next dump: from the third dump on no inode is
    made or freed (each file's inode is the spare's of the dump before). A
    spare that is a symbolic or hard link (planted, or made by hand) is not
    written through: the file it names keeps its bytes. The counts are those
    of the program's own __gcov_dump(); __gcov_reset() all the same. On
    tmpfs no spare is kept."""
    b = Build(env, cc)
    mine, theirs = env.dir("spare-mine"), env.dir("spare-theirs")
    victims = env.dir("spare-victims")
    s = Server(env, b, prefix=mine)
    try:
        s.cmd("w 10")
        env.covkit_live("dump", "--reset", str(s.pid))
        names = [f for _, _, fs in os.walk(mine) for f in fs]
        check(not [f for f in names if ".covkit-" in f], f"the first dump (new files) left {names}")
        s.cmd("w 20")
        env.covkit_live("dump", "--reset", str(s.pid))
        files = tree_files(mine)
        check(len(files) >= 2, f"{files}")
        spares = {}
        for rel, p in files.items():
            check(os.path.isfile(p + ".covkit-spare"), f"{rel}: no spare after the second dump")
            spares[rel] = os.stat(p + ".covkit-spare").st_ino
        # Planted in place of two spares: a link to a file, a hard link to another.
        rels = sorted(files)
        linked, hard = files[rels[0]] + ".covkit-spare", files[rels[1]] + ".covkit-spare"
        victim, victim2 = os.path.join(victims, "victim"), os.path.join(victims, "victim2")
        for v in (victim, victim2):
            with open(v, "w") as f:
                f.write("VICTIM-BYTES\n")
        os.unlink(linked)
        os.symlink(victim, linked)
        os.unlink(hard)
        os.link(victim2, hard)
        s.cmd("w 30")
        env.covkit_live("dump", "--reset", str(s.pid))
        for v in (victim, victim2):
            check(open(v).read() == "VICTIM-BYTES\n", f"{v}: written through a planted spare")
        for rel, p in files.items():
            if rel in rels[:2]:
                continue
            check(os.stat(p).st_ino == spares[rel], f"{rel}: a new inode, not the spare's ({os.stat(p).st_ino} vs "
                                                    f"{spares[rel]})")
        for p in (linked, hard):
            st = os.lstat(p)
            check(stat.S_ISREG(st.st_mode) and st.st_nlink == 1, f"{p}: not the replaced file (mode {oct(st.st_mode)})")
        s.cmd("w 40")
        s.quit()
    finally:
        s.kill()
    t = Server(env, b, prefix=theirs)
    for c in ["w 10", "d", "r", "w 20", "d", "r", "w 30", "d", "r", "w 40"]:
        t.cmd(c)
    t.quit()
    same_trees(mine, theirs, "dumps through spare files, then exit")
    # On tmpfs, where an inode costs less than the renames a spare takes,
    # files are renamed into place as before and no spare is kept.
    fs_type = subprocess.run(["stat", "-f", "-c", "%T", "/dev/shm"], capture_output=True, text=True).stdout.strip()
    if fs_type == "tmpfs":
        shm = tempfile.mkdtemp(prefix="covkit-live-spare-", dir="/dev/shm")
        try:
            s = Server(env, b, prefix=shm)
            try:
                for w in ("w 10", "w 20", "w 30"):
                    s.cmd(w)
                    env.covkit_live("dump", "--reset", str(s.pid))
                s.quit()
            finally:
                s.kill()
            names = [f for _, _, fs in os.walk(shm) for f in fs]
            check(any(f.endswith(".gcda") for f in names), f"tmpfs: no .gcda written: {names}")
            check(not [f for f in names if ".covkit-" in f], f"tmpfs: spares or temporary files kept: {names}")
        finally:
            shutil.rmtree(shm, ignore_errors=True)


def scenario_children(env, cc="gcc-12"):
    """--children --merge == the parent's and the child's own dumps added by libgcov."""
    b = Build(env, cc)
    own = env.dir("children-own")
    snap, sep = os.path.join(env.work, "children-snap"), os.path.join(env.work, "children-sep")
    for d in (snap, sep):
        shutil.rmtree(d, ignore_errors=True)
    s = Server(env, b, prefix=own)
    s.cmd("w 100")
    child = int(s.cmd("f"))
    s.cmd("w 40")
    env.covkit_live("dump", "--children", "--merge", str(s.pid), "-o", snap)
    r = env.covkit_live("dump", "--children", str(s.pid), "-o", sep)
    check(r.stdout.count("pid ") == 2, r.stdout)
    check(os.path.isdir(os.path.join(sep, str(s.pid))) and os.path.isdir(os.path.join(sep, str(child))),
          "--children without --merge: no DIR/PID per process")
    s.cmd("d")
    os.kill(child, signal.SIGTERM)
    wait_until(lambda: gone_or_zombie(child), f"the child {child} did not end after SIGTERM")  # its .gcda written
    s.quit()
    same_trees(snap, own, "--children --merge")
    summary, _ = read_gcda([p for r_, p in tree_files(snap).items() if r_.endswith("server.gcda")][0])
    check(summary[0] == 2, f"two processes, runs {summary[0]}")


def scenario_children_without_coverage(env, cc="gcc-12"):
    """A descendant without coverage (it exec'd sleep) is passed over by dump, reset and report --children."""
    b = Build(env, cc)
    own = env.dir("own-uncovered-child")
    snap = os.path.join(env.work, "snap-uncovered-child")
    shutil.rmtree(snap, ignore_errors=True)
    s = Server(env, b, prefix=own)
    child = None
    try:
        s.cmd("w 100")
        child = int(s.cmd("e"))

        def execd():  # the exec follows the fork's answer
            try:
                return os.path.basename(os.readlink(f"/proc/{child}/exe")) == "sleep"
            except OSError:
                return False
        wait_until(execd, "the child did not exec sleep")
        r = env.covkit_live("dump", "--children", str(s.pid), "-o", snap)
        check(f"process {child}: no coverage data" in r.stderr, f"no warning for the child: {r.stderr!r}")
        s.cmd("d")
        # Without --merge each process of the tree gets DIR/PID: the server alone here.
        check(sorted(os.listdir(snap)) == [str(s.pid)], f"dump directory: {os.listdir(snap)}")
        same_trees(os.path.join(snap, str(s.pid)), own, "--children with a child without coverage")
        r = env.covkit_live("reset", "--children", str(s.pid))
        check("objects reset" in r.stdout, r.stdout)
        r = env.covkit_live("report", "--children", str(s.pid))
        check("server.c" in r.stdout, f"report --children: {r.stdout!r}")
        # The child alone is no process to report: an error, named.
        r = env.covkit_live("dump", str(child), "-o", snap + "-child", ok=False)
        check(r.returncode == 1 and "no coverage data" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
    finally:
        if child:
            os.kill(child, signal.SIGKILL)
        s.kill()


class Tracer:
    """Another tracer holding a process (as gdb or strace would): covkit may not stop it."""

    PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17

    def __init__(self, pid):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self.pid = pid
        if self.libc.ptrace(self.PTRACE_SEIZE, pid, None, None) != 0:
            raise Failure(f"cannot trace {pid}: errno {ctypes.get_errno()}")

    def release(self):
        if self.libc.ptrace(self.PTRACE_INTERRUPT, self.pid, None, None) == 0:
            os.waitpid(self.pid, 0x40000000)  # __WALL
            self.libc.ptrace(self.PTRACE_DETACH, self.pid, None, None)


def children_state(env, pid, out):
    """A dump of the whole tree without a reset (every counter as it is now)."""
    shutil.rmtree(out, ignore_errors=True)
    env.covkit_live("dump", "--children", "--merge", str(pid), "-o", out)
    return out


def scenario_children_all_or_nothing(env, cc="gcc-12"):
    """A descendant that cannot be stopped (another tracer holds it) fails
    `dump --children --reset` and `reset --children` before anything is
    touched; --skip-unstoppable leaves it out with a warning."""
    b = Build(env, cc)
    s = Server(env, b)
    tracer, child = None, None
    try:
        s.cmd("w 100")
        child = int(s.cmd("f"))
        s.cmd("w 50")
        before = children_state(env, s.pid, os.path.join(env.work, "tree-before"))
        tracer = Tracer(child)
        out = os.path.join(env.work, "tree-reset")
        rescue = env.dir("rescue")
        r = env.covkit_live("dump", "--children", "--reset", str(s.pid), "-o", out, ok=False,
                            env=dict(os.environ, TMPDIR=rescue))
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and str(child) in r.stderr
              and "nothing was read or reset" in r.stderr, f"dump of a tree with a traced child: {r.stderr!r}")
        check(not os.path.exists(out) and not os.listdir(rescue), "a refused tree dump wrote files")
        r = env.covkit_live("reset", "--children", str(s.pid), ok=False)
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and str(child) in r.stderr, r.stderr)
        r = env.covkit_live("report", "--children", str(s.pid), ok=False)
        check(r.returncode == 1 and str(child) in r.stderr, r.stderr)
        tracer.release()
        tracer = None
        after = children_state(env, s.pid, os.path.join(env.work, "tree-after"))
        same_trees(before, after, "the tree after refused dumps and resets (nothing may be reset)")
        # Asked to, covkit leaves the process out and says so.
        tracer = Tracer(child)
        out = os.path.join(env.work, "tree-skip")
        r = env.covkit_live("dump", "--children", "--merge", "--reset", "--skip-unstoppable", str(s.pid), "-o", out)
        check(f"process {child}" in r.stderr and "left out" in r.stderr, f"no warning: {r.stderr!r}")
        check(r.stdout.count("pid ") == 1, r.stdout)
        r = env.covkit_live("report", "--children", "--skip-unstoppable", str(s.pid))
        check("left out" in r.stderr, r.stderr)
        r = env.covkit_live("reset", "--children", "--skip-unstoppable", str(s.pid))
        check("left out" in r.stderr and "objects reset" in r.stdout, r.stderr + r.stdout)
        tracer.release()
        tracer = None
        # The child kept its counts; the server's were reset (then nothing ran).
        zero = os.path.join(env.work, "server-zero")
        env.covkit_live("dump", str(s.pid), "-o", zero)
        for p in tree_files(zero).values():
            check(all(v == 0 for f in read_gcda(p)[1].values() for _, c in f for v in c), f"{p} not reset")
        kept = os.path.join(env.work, "child-kept")
        env.covkit_live("dump", str(child), "-o", kept)
        srv = [p for r_, p in tree_files(kept).items() if r_.endswith("server.gcda")][0]
        check(any(v for f in read_gcda(srv)[1].values() for _, c in f for v in c), "the left-out child was reset")
    finally:
        if tracer:
            tracer.release()
        if child:
            os.kill(child, signal.SIGKILL)
        s.kill()


def scenario_children_wrapper(env, cc="gcc-12"):
    """--children from a parent without coverage (a wrapper shell) dumps,
    resets and reports its descendants that have coverage."""
    b = Build(env, cc)
    own = env.dir("wrapped-own")
    # The shell stays (`; :` keeps it from exec'ing the server), the server
    # talks over the pipes it inherits.
    e = dict(os.environ, PLUGIN=b.plugin, GCOV_PREFIX=own)
    shell = subprocess.Popen(["sh", "-c", '"$0"; :', b.exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env=e, cwd=b.root)
    try:
        class Wrapped(Server):
            def __init__(self):
                self.env, self.p = env, shell
        s = Wrapped()
        s.cmd("w 0")
        server = [c for c in live_descendants(shell.pid)]
        check(len(server) == 1, f"the wrapper's children: {server}")
        s.cmd("w 120")
        out = os.path.join(env.work, "wrapped")
        shutil.rmtree(out, ignore_errors=True)
        r = env.covkit_live("dump", "--children", "--merge", str(shell.pid), "-o", out)
        check(f"process {shell.pid}: no coverage data" in r.stderr, f"no word of the wrapper: {r.stderr!r}")
        s.cmd("d")
        same_trees(out, own, "--children of a wrapper without coverage")
        r = env.covkit_live("reset", "--children", str(shell.pid))
        check("objects reset" in r.stdout, r.stdout)
        r = env.covkit_live("report", "--children", str(shell.pid))
        check("server.c" in r.stdout, r.stdout)
    finally:
        shell.kill()
        for c in live_descendants(shell.pid):
            os.kill(c, signal.SIGKILL)
        shell.wait()
    # A tree with no coverage anywhere is an error that says so.
    p = subprocess.Popen(["sh", "-c", "sleep 30; :"])
    try:
        wait_until(lambda: live_descendants(p.pid), "sh did not start sleep")  # its one descendant
        r = env.covkit_live("dump", "--children", str(p.pid), "-o", os.path.join(env.work, "none"), ok=False)
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and "or any of its 1 descendants" in r.stderr, r.stderr)
    finally:
        for c in live_descendants(p.pid):
            os.kill(c, signal.SIGKILL)
        p.kill()
        p.wait()


def live_descendants(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d))
    return out


def scenario_load(env, cc="gcc-12"):
    """50+ dumps under load: all valid and monotone; the last adds up exactly."""
    b = Build(env, cc, atomic=True)
    s = Server(env, b)
    snaps, pauses = [], []
    try:
        s.cmd("L")
        for i in range(55):
            d = os.path.join(env.work, f"load{i}")
            shutil.rmtree(d, ignore_errors=True)
            r = env.covkit_live("dump", str(s.pid), "-o", d, *(["--no-stop"] if i % 5 == 4 else []))
            if "stopped for" in r.stdout:
                pauses.append(dump_pause(r.stdout))
            snaps.append(d)
        iterations = int(s.cmd("S"))
        final = os.path.join(env.work, "load-final")
        shutil.rmtree(final, ignore_errors=True)
        env.covkit_live("dump", str(s.pid), "-o", final)
        # Deltas under load, then the rest: they add up to everything.
        s.cmd("L")
        deltas = []
        for i in range(10):
            d = os.path.join(env.work, f"loaddelta{i}")
            shutil.rmtree(d, ignore_errors=True)
            env.covkit_live("dump", "--reset", str(s.pid), "-o", d)
            deltas.append(d)
        total = int(s.cmd("S"))
        d = os.path.join(env.work, "loaddelta-last")
        shutil.rmtree(d, ignore_errors=True)
        env.covkit_live("dump", "--reset", str(s.pid), "-o", d)
        deltas.append(d)
    finally:
        s.kill()
    prev = None
    for d in snaps + [final]:
        files = tree_files(d)
        check(len(files) == 2, f"{d}: {len(files)} files")
        cur = {}
        for rel, p in files.items():
            for ident, arrays in read_gcda(p)[1].items():
                for k, (tag, counts) in enumerate(arrays):
                    for j, v in enumerate(counts):
                        cur[(rel, ident, k, j)] = v
        if prev is not None:
            for key, v in prev.items():
                check(cur.get(key, -1) >= v, f"{d}: counter {key} went down ({v} -> {cur.get(key)})")
        prev = cur
        valid_for_gcov(env, b, d)
    # job() ran 10 times at start-up and once per load iteration.
    text = gcov_lines(env, b, final, cc)["server.c.gcov"]
    m = re.search(r"function job called (\d+)", text)
    check(m and int(m.group(1)) == 10 + iterations, f"job called {m and m.group(1)}, want {10 + iterations}")
    merged = os.path.join(env.work, "loaddelta-merged")
    shutil.rmtree(merged, ignore_errors=True)
    env.run([env.covkit, "merge", "-o", merged] + deltas)
    text = gcov_lines(env, b, merged, cc)["server.c.gcov"]
    m = re.search(r"function job called (\d+)", text)
    # The first delta holds everything before it (nothing was reset before).
    check(m and int(m.group(1)) == 10 + total, f"deltas: job called {m and m.group(1)}, want {10 + total}")
    print(f"load: {len(snaps)} dumps, pause median {sorted(pauses)[len(pauses) // 2]:.3f} ms, "
          f"max {max(pauses):.3f} ms; {iterations} + {total - iterations} iterations")


def journal_phase(state_dir):
    """How far the journal a killed dump left got: "none", "read" (what it read
    is in, nothing reset yet), "reset" (the resets are written) or "writing"
    (the files are being put in place). Records: tag u32, length u64,
    payload, CRC u32, after an 8-byte magic (src/live/dump_journal.h)."""
    d = os.path.join(state_dir, "live")
    names = [f for f in os.listdir(d) if f.endswith(".journal")] if os.path.isdir(d) else []
    check(len(names) <= 1, f"more than one journal: {names}")
    if not names:
        return "none"
    data = open(os.path.join(d, names[0]), "rb").read()
    tags, at = set(), 8
    while at + 16 <= len(data):
        tag, length = struct.unpack_from("<IQ", data, at)
        if at + 16 + length > len(data):
            break
        tags.add(tag)
        at += 16 + length
    return "writing" if tags & {3, 4} else "reset" if 2 in tags else "read" if 1 in tags else "none"


def scenario_kill_at_random(env, cc="gcc-12"):
    """covkit killed (SIGKILL) in every step of `dump --reset` under load and
    at ~100 random instants, into the program's own files and into -o
    directories: the dumps plus what the program writes at exit count every
    call exactly once, the run once. The steps are met for sure: covkit
    stops itself at its K-th step boundary (a test-only hook,
    COVKIT_TEST_LIVE_STOP_AT) and is killed there, for each K until a dump
    has no K-th; the kills at random instants (each step slowed by a random
    0-3 ms, another hook) land inside the steps too."""
    import random
    b = Build(env, cc, atomic=True)
    own, rescue = env.dir("kill-own"), env.dir("kill-rescue")
    state = os.environ["COVKIT_STATE_DIR"]
    denv = dict(os.environ, TMPDIR=rescue, COVKIT_TEST_LIVE_STEP_US="3000")
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    dirs, lines, own_failures = [], [], []
    s = Server(env, b, prefix=own)
    n = [0]

    def dump(kill_after=None, stop_at=None, to_dir=None):
        i = n[0]
        n[0] += 1
        args = [env.covkit, "live", "dump", "--reset", str(s.pid)]
        if to_dir if to_dir is not None else i % 2 == 0:
            d = os.path.join(env.work, f"kill-{i}")
            args += ["-o", d]
            dirs.append(d)
        e = dict(denv, COVKIT_TEST_LIVE_STOP_AT=str(stop_at)) if stop_at else denv
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
        if kill_after is not None:
            time.sleep(kill_after)
            p.kill()
        if stop_at is not None:
            # Stopped at that step boundary (killed there), or ended before it.
            info = os.waitid(os.P_PID, p.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
            if info.si_code == os.CLD_STOPPED:
                p.kill()
        _, err = p.communicate(timeout=120)
        lines.extend(l for l in err.splitlines() if "was killed" in l)
        if p.returncode not in (0, -signal.SIGKILL):  # it failed by itself: a defect to show as such
            own_failures.append(f"dump {i} exited {p.returncode}: {err.strip()}")
        return p.returncode, err

    phases, at_steps = {}, {}
    try:
        s.cmd("L")
        durations = []
        for i in range(3):
            t = time.monotonic()
            rc, err = dump()
            check(rc == 0, f"dump {i}: {err}")
            durations.append(time.monotonic() - t)
        for to_dir in (False, True):
            steps = at_steps.setdefault("-o" if to_dir else "own files", [])
            for k in range(1, 1000):
                rc, err = dump(stop_at=k, to_dir=to_dir)
                if rc != -signal.SIGKILL:
                    break  # a dump with fewer step boundaries than k (or one that failed: own_failures)
                steps.append(journal_phase(state))
                rc, err = dump(to_dir=to_dir)  # finishes the journal, so that the next count starts alike
                check(rc == 0, f"the dump after a kill: {err}")
            check(steps, f"covkit never stopped at a step boundary ({'-o' if to_dir else 'own files'})")
        longest = 1.3 * sorted(durations)[1]
        for i in range(100):
            rc, err = dump(rng.uniform(0, longest))
            phase = "finished" if rc == 0 else "killed, journal " + journal_phase(state)
            phases[phase] = phases.get(phase, 0) + 1
        iterations = int(s.cmd("S"))
        rc, err = dump()  # finishes whatever journal is left
        check(rc == 0, f"the last dump: {err}")
        check(journal_phase(state) == "none", "a journal is left after a dump that was not killed")
        s.quit()
    finally:
        s.kill()
    print(f"kill_at_random: at each step boundary: {at_steps}")
    print(f"kill_at_random (seed {seed}): {sorted(phases.items())}; {len(lines)} interrupted dumps reported")
    for l in lines[:5]:
        env.log(l)
    check(not own_failures, f"dumps that were not killed failed: {own_failures}")
    for where, steps in at_steps.items():
        check(set(steps) == {"none", "read", "reset", "writing"},
              f"the kills at the step boundaries ({where}) did not meet every journal phase: {steps}")
    # What a dump leaves is one spare per file (the file its exchange
    # replaced), never a temporary file.
    leftovers = [os.path.join(d, f) for d, _, fs in os.walk(own) for f in fs
                 if ".covkit-" in f and not (f.endswith(".gcda.covkit-spare") and
                                             os.path.isfile(os.path.join(d, f[:-len(".covkit-spare")])))]
    check(not leftovers, f"temporary files left: {leftovers}")
    rescued = os.listdir(rescue)
    merged = os.path.join(env.work, "kill-merged")
    shutil.rmtree(merged, ignore_errors=True)
    env.run([env.covkit, "merge", "-o", merged, own] + [d for d in dirs if os.path.isdir(d)])
    if rescued:
        # Only a kill inside the one write that resets the process (a few
        # microseconds) cannot be made exact: the next dump must have said so.
        check(any("cannot be told" in l for l in lines), f"rescued without a word: {rescued} {lines}")
        print(f"kill_at_random: a kill landed inside a reset's write ({rescued}); the total is not exact then")
        return
    text = gcov_lines(env, b, merged, cc)["server.c.gcov"]
    m = re.search(r"function job called (\d+)", text)
    check(m and int(m.group(1)) == 10 + iterations, f"job called {m and m.group(1)}, want {10 + iterations}")
    ref = env.dir("kill-reference")
    t = Server(env, b, prefix=ref)
    t.cmd(f"w {iterations}")
    t.quit()
    want = gcov_lines(env, b, ref, cc)["server.c.gcov"]
    check(text == want, "dumps + exit differ from one run that did the same work (gcov server.c.gcov)")
    summary, _ = read_gcda([p for r_, p in tree_files(merged).items() if r_.endswith("server.gcda")][0])
    check(summary[0] == 1, f"the run counted {summary[0]} times")


def scenario_journal_told_at_once(env, cc="gcc-12"):
    """A dump that finishes the journal of a killed dump says so at once, even
    when it fails itself a moment later (or is killed): the line used to be
    printed only at the end of a dump that succeeded, so a rescue or files
    written for the killed dump could go unsaid."""
    b = Build(env, cc, atomic=True)
    state = os.environ["COVKIT_STATE_DIR"]
    out = env.dir("told-out")
    slow = dict(os.environ, COVKIT_TEST_LIVE_STEP_US="300000")
    s = Server(env, b)
    try:
        s.cmd("w 5")
        phase = "none"
        for attempt in range(10):
            shutil.rmtree(out, ignore_errors=True)
            p = subprocess.Popen([env.covkit, "live", "dump", "--reset", str(s.pid), "-o", out],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=slow)
            while p.poll() is None:
                phase = journal_phase(state)
                if phase == "reset":
                    break
                time.sleep(0.002)
            p.kill()
            p.wait()
            phase = journal_phase(state)
            if phase == "reset":
                break
            finish = env.covkit_live("dump", "--reset", str(s.pid), "-o", env.dir(f"told-clear-{attempt}"), ok=False)
            check(journal_phase(state) == "none", f"a journal is left: {finish.stderr}")
        check(phase == "reset", f"no kill landed after the reset in 10 tries (last: {phase})")
        # A process that is gone: this dump fails, after it finished the journal.
        gone = subprocess.Popen(["true"])
        gone.wait()
        r = env.covkit_live("dump", "--reset", str(gone.pid), "-o", env.dir("told-gone"), ok=False)
        check(r.returncode != 0, f"a dump of a process that is gone: {r.returncode} {r.stderr}")
        told = [l for l in r.stderr.splitlines() if "was killed" in l]
        check(len(told) == 1 and "files are written now to " + out in told[0],
              f"the finished journal was not told: {r.stderr!r}")
        check(journal_phase(state) == "none", "the journal is left")
        check(os.path.isdir(out) and tree_files(out), f"{out}: the killed dump's files are not there")
        s.quit()
    finally:
        s.kill()


# The calls of progs/blocking.c that a ptrace stop makes return EINTR, as
# SIGSTOP and SIGCONT do (signal(7)); docs/covkit-live.md lists them.
EINTR_CALLS = {"epoll_wait", "epoll_wait(timeout)", "epoll_pwait", "epoll_pwait2", "recv(SO_RCVTIMEO)",
               "sigtimedwait", "sigwaitinfo", "semop", "semtimedop", "io_getevents"}


def scenario_blocking_calls(env, cc="gcc-12"):
    """What a dump does to a program's blocking calls, measured on ~36 of
    them: the default stop makes exactly EINTR_CALLS fail with EINTR (and
    restarts the others unseen); --gentle and --no-stop disturb none, and
    --gentle --reset dumps still add up to every count."""
    if not shutil.which(cc):
        raise Skip(f"{cc} not found")
    root = env.dir("blocking")
    exe = os.path.join(root, "blocking")
    env.run([cc, "-O2", "-c", os.path.join(PROGS, "blocking.c"), "-o", os.path.join(root, "blocking.o")])
    env.run([cc, "--coverage", "-fprofile-update=atomic", "-O2", "-c", os.path.join(PROGS, "blocking_tick.c"), "-o", os.path.join(root, "tick.o")],
            cwd=root)
    env.run([cc, "--coverage", "-o", exe, os.path.join(root, "blocking.o"), os.path.join(root, "tick.o"), "-lpthread"])
    own = env.dir("blocking-own")
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, GCOV_PREFIX=own))
    made = iter(range(1000))

    def ask(command):
        p.stdin.write(command + "\n")
        p.stdin.flush()
        line = p.stdout.readline().strip()
        check(line != "", "the program stopped answering")
        return line

    def status():
        out = {}
        line = ask("s")
        while line != "end":
            name, returns, eintr = line.rsplit(" ", 2)
            out[name] = (int(returns), int(eintr))
            line = p.stdout.readline().strip()
            check(line != "", "the program stopped answering")
        return out

    def all_asleep():
        wait_until(lambda: set(thread_states(p.pid)) <= {"S", "D"},
                   f"the program's threads are not all asleep in their calls: {thread_states(p.pid)}")

    def disturbed(command, *args):
        before = status()
        for i in range(2):
            extra = ["-o", os.path.join(env.work, f"blocking-{next(made)}")] if command == "dump" else []
            r = env.covkit_live(command, *args, str(p.pid), *extra)
            if "--gentle" in args and command != "report":
                check("left asleep" in r.stdout, f"--gentle left no thread asleep: {r.stdout}")
        # A call that returns goes round the waiter's loop and into the call
        # again: once every thread sleeps, each return has been counted.
        all_asleep()
        after = status()
        return {name for name in after if after[name] != before[name]}

    deltas, woke, retried = [], 0, 0
    try:
        check(p.stdout.readline().strip() == "ready", "the program did not start")
        all_asleep()  # "ready" once each thread is about to enter its call: now each is in it
        calls = status()
        check(len(calls) >= 36, f"only {len(calls)} calls")
        # The default stop: the measured list, nothing more, nothing less.
        got = disturbed("dump")
        check(got == EINTR_CALLS, f"a stop disturbed {sorted(got)}, the manual says {sorted(EINTR_CALLS)}")
        got = disturbed("reset")
        check(got == EINTR_CALLS, f"a reset disturbed {sorted(got)}")
        for command, *args in [("dump", "--no-stop"), ("report", "--no-stop"), ("dump", "--gentle"),
                               ("report", "--gentle"), ("reset", "--gentle"), ("dump", "--gentle", "--reset")]:
            got = disturbed(command, *args)
            check(not got, f"{command} {' '.join(args)} disturbed {sorted(got)}")
        # A thread left asleep that does wake (every 2 ms): each --gentle
        # --reset dump reads again until it slept through, and the dumps plus
        # the exit file hold every tick() since the reset exactly once.
        env.covkit_live("reset", str(p.pid))
        since = int(ask("c"))
        ask("b")
        for i in range(8):
            d = os.path.join(env.work, f"blocking-delta-{i}")
            deltas.append(d)
            # Slowed by a random 0-3 ms (the test-only hook) between its
            # steps, the dump leaves the sleeper time to wake.
            r = env.covkit_live("dump", "--gentle", "--reset", str(p.pid), "-o", d,
                                env=dict(os.environ, COVKIT_TEST_LIVE_STEP_US="3000"))
            woke += "woke during the reset" in r.stderr
            retried += "read again" in r.stdout
            time.sleep(0.03)
        ask("B")
        ticks = int(ask("c")) + 1 - since  # the last `c` ticks after it answers
        last = os.path.join(env.work, "blocking-last")
        env.covkit_live("dump", "--gentle", "--reset", str(p.pid), "-o", last)
        deltas.append(last)
        p.stdin.write("q\n")
        p.stdin.flush()
        p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    merged = os.path.join(env.work, "blocking-merged")
    shutil.rmtree(merged, ignore_errors=True)
    env.run([env.covkit, "merge", "-o", merged, own] + deltas)
    files = tree_files(merged)
    check(len(files) == 1, f"merged: {sorted(files)}")
    summary, funcs = read_gcda(list(files.values())[0])
    counted = max(v for arrays in funcs.values() for _, c in arrays for v in c)
    print(f"blocking_calls: {len(calls)} calls; a stop makes {len(EINTR_CALLS)} return EINTR, --gentle none; "
          f"{ticks} ticks while a sleeper woke every 2 ms, {retried} of 8 gentle dumps read again, {woke} "
          "overlapped a wake-up")
    if woke:
        # The named instant: a wake-up inside the reset's write, said by the dump.
        check(abs(counted - ticks) <= woke, f"tick() counted {counted} times, ran {ticks} times")
        return
    check(counted == ticks, f"tick() counted {counted} times, ran {ticks} times since the reset")
    check(retried > 0, "no --gentle dump had to read again, though a thread left asleep woke every 2 ms")


def scenario_refusals(env, cc="gcc-12"):
    b = Build(env, cc)
    out = os.path.join(env.work, "refused")
    # No coverage data.
    p = subprocess.Popen(["sleep", "30"])
    try:
        r = env.covkit_live("dump", str(p.pid), "-o", out, ok=False)
        check(r.returncode == 1 and "no coverage data" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
    finally:
        p.kill()
        p.wait()
    check(not os.path.exists(out), "a refused dump wrote files")
    # No such process.
    r = env.covkit_live("dump", "999999999", "-o", out, ok=False)
    check(r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr)
    # Another user: the server runs as 65534, covkit as 65533.
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # The other user must reach the program and its libraries: the work
        # directory may lie below one only root can enter (a 0700 home or
        # mktemp -d), so this server is built in a directory of its own in /tmp.
        scratch = tempfile.mkdtemp(prefix="covkit-live-other-")
        os.chmod(scratch, 0o755)
        other = Build(env, cc, base=scratch)
        for d in [other.root, other.obj]:
            os.chmod(d, 0o777)
        s = Server(env, other, uid=65534)
        try:
            tmp = env.dir("other-user")
            os.chmod(tmp, 0o777)
            r = env.run(["setpriv", "--reuid=65533", "--regid=65533", "--clear-groups", env.covkit, "live", "dump",
                         str(s.pid), "-o", os.path.join(tmp, "x")], ok=False)
            check(r.returncode == 1 and "belongs to user" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
            check(not os.path.exists(os.path.join(tmp, "x")), "files written for another user's process")
            # root without CAP_SYS_PTRACE (a container's default) may not: the
            # line says which capability and why, not "only root may".
            r = env.run(["setpriv", "--bounding-set=-sys_ptrace", env.covkit, "live", "dump", str(s.pid), "-o",
                         os.path.join(tmp, "z")], ok=False)
            check(r.returncode == 1 and "covkit runs as root but without the CAP_SYS_PTRACE capability" in r.stderr
                  and "belongs to user" in r.stderr and "only root" not in r.stderr
                  and r.stderr.count("\n") == 1, r.stderr)
            check(not os.path.exists(os.path.join(tmp, "z")), "files written without CAP_SYS_PTRACE")
            # root may; into the program's own files they are written as its
            # user, so that its own exit can still add to them.
            env.covkit_live("dump", str(s.pid), "-o", os.path.join(tmp, "y"))
            env.covkit_live("dump", "--reset", str(s.pid))
            owners = {os.stat(other.gcda(n)).st_uid for n in ["server", "liblive"]}
            check(owners == {65534}, f"own files owned by {owners}, not the program's user")
        finally:
            s.kill()
            shutil.rmtree(scratch, ignore_errors=True)
    # An unknown layout: the version word of the server's records turned
    # into GCC 13's, in the running process.
    s = Server(env, b)
    try:
        r = env.covkit_live("dump", "-v", str(s.pid), "-o", os.path.join(env.work, "ok-first"))
        patch_version(s.pid, b.exe, 0x4233312A)  # "B31*"
        r = env.covkit_live("dump", str(s.pid), "-o", out, ok=False)
        check(r.returncode == 1 and "GCC 13.1" in r.stderr and "unknown" in r.stderr, r.stderr)
        check(not os.path.exists(out), "a refused dump wrote files")
    finally:
        s.kill()
    # A symbolic link planted under -o DIR is never written through.
    s = Server(env, b)
    try:
        trap, victim = env.dir("trap"), env.dir("victim")
        first = b.obj.strip("/").split("/")[0]
        os.symlink(victim, os.path.join(trap, first))
        r = env.covkit_live("dump", str(s.pid), "-o", trap, ok=False)
        check(not any(True for _ in os.scandir(victim)), "written through a symbolic link")
        check(r.returncode == 1 and "symbolic link" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
        check(os.path.islink(os.path.join(trap, first)), "the planted link was touched")
    finally:
        s.kill()
    # A --reset dump that cannot be written is not lost: it goes under $TMPDIR.
    s = Server(env, b)
    try:
        blocker = os.path.join(env.work, "a-file")
        open(blocker, "w").close()
        rescue_root = env.dir("rescue")
        r = env.covkit_live("dump", "--reset", str(s.pid), "-o", os.path.join(blocker, "sub"), ok=False,
                            env=dict(os.environ, TMPDIR=rescue_root))
        check(r.returncode == 1 and "written under" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
        saved = [os.path.join(rescue_root, d) for d in os.listdir(rescue_root)]
        check(len(saved) == 1 and len(tree_files(saved[0])) == 2, f"rescued: {saved}")
        # Not a name another user could plant beforehand (PID and time, it
        # was): a fresh directory of covkit's own, named as the error says.
        check(re.match(r"covkit-live-rescue-%d-[A-Za-z0-9]{6}$" % s.pid, os.path.basename(saved[0])) is not None
              and stat.S_IMODE(os.stat(saved[0]).st_mode) == 0o700 and saved[0] in r.stderr, f"rescued: {saved}")
    finally:
        s.kill()
    # --reset --no-stop is refused.
    r = env.covkit_live("dump", "--reset", "--no-stop", "1", "-o", out, ok=False)
    check(r.returncode == 1 and "--no-stop" in r.stderr, r.stderr)


def value_profile(env, cc):
    """-fprofile-generate: top-N, indirect-call and time-profile counters too, byte for byte."""
    if not shutil.which(cc):
        raise Skip(f"{cc} not found")
    root = env.dir("vp-" + cc)
    exe = os.path.join(root, "vp")
    env.run([cc, "-O2", "-c", os.path.join(PROGS, "valueprof_wait.c"), "-o", os.path.join(root, "wait.o")])
    env.run([cc, "-O2", "-fprofile-generate", "-c", os.path.join(PROGS, "valueprof.c"),
             "-o", os.path.join(root, "valueprof.o")])
    env.run([cc, "-fprofile-generate", "-o", exe, os.path.join(root, "valueprof.o"), os.path.join(root, "wait.o")])
    own, snap = env.dir("vp-own"), os.path.join(env.work, "vp-snap")
    shutil.rmtree(snap, ignore_errors=True)
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ, GCOV_PREFIX=own))
    try:
        # Until its loop is done and it waits in read(0, ...) (system call 0, fd 0).
        wait_until(lambda: open(f"/proc/{p.pid}/syscall").read().startswith("0 0x0 "),
                   "the program did not get to its read of standard input")
        env.covkit_live("dump", str(p.pid), "-o", snap)
        p.stdin.write(b"x")
        p.stdin.close()
        p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    same_trees(snap, own, f"{cc} -fprofile-generate")
    _, funcs = read_gcda(list(tree_files(snap).values())[0])
    kinds = {tag for arrays in funcs.values() for tag, _ in arrays}
    # arcs, top-N values, indirect calls, time profile
    want = {0x01a10000, 0x01a70000, 0x01a90000, 0x01af0000}
    check(want <= kinds, f"counter kinds {sorted(hex(k) for k in kinds)}, want {sorted(hex(k) for k in want)}")


def scenario_exits(env, cc="gcc-12"):
    """A process killed at any moment of a dump: one line and no partial file, or a complete dump."""
    b = Build(env, cc)
    outcomes = {}
    for i in range(40):
        s = Server(env, b)
        s.cmd("w 200")
        out = os.path.join(env.work, f"exit{i}")
        shutil.rmtree(out, ignore_errors=True)
        dumper = subprocess.Popen([env.covkit, "live", "dump", str(s.pid), "-o", out], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        time.sleep((i % 10) * 0.002)
        s.p.kill()
        s.p.wait()
        _, err = dumper.communicate(timeout=60)
        if dumper.returncode == 0:
            check(len(tree_files(out)) == 2, f"a complete dump has {len(tree_files(out))} files")
            valid_for_gcov(env, b, out)
            outcomes["complete"] = outcomes.get("complete", 0) + 1
        else:
            check(err.count("\n") == 1, f"not one line: {err!r}")
            check(not os.path.exists(out), f"a failed dump left {out}")
            key = "exited during the dump" if "exited during the dump" in err else \
                "no process" if "no process" in err else None
            check(key, f"a dying process gave: {err.strip()}")
            outcomes[key] = outcomes.get(key, 0) + 1
    print("exits:", outcomes)

def scenario_main_thread_exited(env, cc="gcc-12"):
    """A process whose main thread ended with pthread_exit runs on: dumped and reset like any other."""
    b = Build(env, cc)
    own = env.dir("own-main-exited")
    snap = os.path.join(env.work, "snap-main-exited")
    s = Server(env, b, prefix=own)
    try:
        s.cmd("w 300")
        s.cmd("X")
        # The main thread's exit follows its answer.
        wait_until(lambda: gone_or_zombie(s.pid), f"the main thread did not end: state {process_state(s.pid)}")
        check(process_state(s.pid) == "Z", f"the main thread did not end: state {process_state(s.pid)}")
        s.cmd("w 200")
        env.covkit_live("dump", str(s.pid), "-o", snap)
        s.cmd("d")
        same_trees(snap, own, "main thread exited")
        r = env.covkit_live("reset", str(s.pid))
        check("objects reset" in r.stdout, r.stdout)
        zero = snap + "-reset"
        env.covkit_live("dump", str(s.pid), "-o", zero)
        files = tree_files(zero)
        check(len(files) == 2, f"after the reset {len(files)} files")
        for p in files.values():
            check(all(v == 0 for f in read_gcda(p)[1].values() for _, c in f for v in c), f"{p} not reset")
    finally:
        s.kill()
    # Killed now: the whole process is gone.
    r = env.covkit_live("dump", str(s.pid), "-o", snap + "-dead", ok=False)
    check(r.returncode != 0 and "no process" in r.stderr, f"a dead process gave: {r.returncode} {r.stderr!r}")


def churn(env, cc="gcc-12"):
    """progs/churn.c, built with --coverage."""
    if not shutil.which(cc):
        raise Skip(f"{cc} not found")
    root = env.dir("churn-" + cc)
    exe = os.path.join(root, "churn")
    env.run([cc, "--coverage", "-O1", "-pthread", "-o", exe, os.path.join(PROGS, "churn.c"), "-ldl"], cwd=root)
    return exe


def dump_repeatedly(env, pid, times, allowed=()):
    """`live dump` `times` times, each within 20 s: the outcomes, counted. Any
    failure but the `allowed` one-line errors (an end in between, say) fails."""
    out = os.path.join(env.work, "churn-snap")
    outcomes = {}
    for i in range(times):
        shutil.rmtree(out, ignore_errors=True)
        try:
            r = env.covkit_live("dump", str(pid), "-o", out, ok=False, timeout=20)
        except subprocess.TimeoutExpired:
            raise Failure(f"dump {i + 1} of a process that never holds still hung")
        if r.returncode == 0:
            check(len(tree_files(out)) >= 1, f"dump {i + 1}: no file")
            key = "written"
        else:
            err = r.stderr.strip()
            check(r.stderr.count("\n") == 1, f"dump {i + 1}: not one line: {r.stderr!r}")
            key = next((a for a in allowed if a in err), None)
            check(key is not None, f"dump {i + 1}: {err}")
            check(not os.path.exists(out), f"dump {i + 1} failed but left {out}")
        outcomes[key] = outcomes.get(key, 0) + 1
    return outcomes


def dump_churning(env, argv, started, times=150):
    """Every one of `times` dumps of the process `argv` starts is written, and it runs on.
    The dumps begin once `started(pid)` says its main() churns."""
    p = subprocess.Popen(argv, cwd=os.path.dirname(argv[0]))
    try:
        wait_until(lambda: p.poll() is not None or started(p.pid), f"{argv[1]}: main() did not start")
        outcomes = dump_repeatedly(env, p.pid, times)
        check(outcomes == {"written": times}, f"{argv[1]}: {outcomes}")
        check(p.poll() is None, f"{argv[1]}: the process ended")
    finally:
        p.kill()
        p.wait()


def scenario_threads_come_and_go(env, cc="gcc-12"):
    """Threads that start and end all the time: a thread that ended while
    covkit seized it (a zombie, which the kernel refuses with EPERM) is no
    refusal, every dump is written."""
    dump_churning(env, [churn(env, cc), "threads", "3"], lambda pid: len(os.listdir(f"/proc/{pid}/task")) > 1)


def scenario_plugin_reloaded(env, cc="gcc-12"):
    """A plugin loaded and unloaded in a loop: a module that came or went
    while its records were read (a read that fails, a record half gone) is
    found again in the stop, every dump is written."""
    plugin = Build(env, cc).plugin
    dump_churning(env, [churn(env, cc), "reload", plugin],
                  lambda pid: os.path.realpath(plugin) in open(f"/proc/{pid}/maps").read())


class OutputNotes:
    """The lines a child writes to its standard output, read as they come
    (a thread), for a test to wait on the one it expects."""

    def __init__(self, stream):
        self.lines, self.ended = [], False
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._cv:
                self.lines.append(line.decode(errors="replace").strip())
                self._cv.notify_all()
        with self._cv:
            self.ended = True
            self._cv.notify_all()

    def count(self):
        with self._cv:
            return len(self.lines)

    def wait_for(self, line, what, timeout=20):
        with self._cv:
            if not self._cv.wait_for(lambda: line in self.lines or self.ended, timeout):
                raise Failure(what)
            check(line in self.lines, f"{what} (its output ended: {self.lines[-5:]})")


def whole_gcda(path):
    """The function idents of a .gcda file that holds every record it
    announces, up to its last byte (a half-written file does not)."""
    data = open(path, "rb").read()
    check(len(data) >= 12 and len(data) % 4 == 0, f"{path}: {len(data)} bytes, not a whole .gcda file")
    words = struct.unpack("<%dI" % (len(data) // 4), data)
    check(words[0] == 0x67636461, f"{path}: not a .gcda file")
    version = words[1]
    major = (((version >> 24) & 0xFF) - ord("A")) * 10 + ((version >> 16) & 0xFF) - ord("0")
    pos, idents = (4 if major >= 12 else 3), []
    while pos < len(words) and words[pos] != 0:
        check(pos + 2 <= len(words), f"{path}: a record header cut at word {pos}")
        length = words[pos + 1]
        n_words = 0 if length & 0x80000000 else (length // 4 if major >= 12 else length)
        check(pos + 2 + n_words <= len(words), f"{path}: the record at word {pos} runs past the end")
        if words[pos] == 0x01000000 and n_words:
            idents.append(words[pos + 2])
        pos += 2 + n_words
    check(pos >= len(words) - 1, f"{path}: {len(words) - pos} words after its end record")
    return sorted(idents)


def process_end(returncode):
    if returncode is None:
        return "still running"
    return f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit {returncode}"


def scenario_exec_during_dump(env, cc="gcc-12"):
    """A process whose threads start and end all the time and that executes
    itself again, dumped 300 times in turn: with no exec (every dump must be
    written), with an exec asked at a random instant of the dump, and with
    an exec under way at a known point: covkit stopped (a test-only hook,
    COVKIT_TEST_LIVE_STOP_AT) once it found the process and before it stops
    it, then let go once the exec began. No dump hangs (an exec waits for
    the threads covkit seized to be reaped); each one that met an exec
    writes its files or says in one line why not, and why not is the exec,
    never an exit, even when the dump caught the process inside its exec
    (its memory and threads gone, its main thread a zombie for a moment: as
    if it had ended); or the new program's counters not registered yet.
    Whatever is written is whole and the program's (the same functions in
    every dump), and the process goes on. The churn program tells the test
    when its main() runs and when an exec comes (progs/churn.c), so which
    dumps met an exec is known, not guessed from the machine's speed."""
    import random
    exe = churn(env, cc)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    out = os.path.join(env.work, "churn-snap")
    allowed = ("executed another program", "no coverage data")
    p = subprocess.Popen([exe, "exec", "3", "0"], cwd=os.path.dirname(exe), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    notes = OutputNotes(p.stdout)
    gen, durations, functions, asked_during = 0, [], None, 0
    outcomes = {"no exec": {}, "exec at random": {}, "exec under way": {}}

    def judge(i, r, ok):
        nonlocal functions
        if r.returncode == 0:
            files = tree_files(out)
            check(files, f"dump {i + 1}: no file")
            for rel, path in files.items():
                idents = whole_gcda(path)
                functions = functions or idents
                check(idents == functions, f"dump {i + 1}: {rel} holds functions {idents}, not {functions}")
            return "written"
        err = r.stderr.strip()
        check(r.stderr.count("\n") == 1, f"dump {i + 1}: not one line: {r.stderr!r}")
        key = next((a for a in ok if a in err), None)
        check(key is not None, f"dump {i + 1}: {err}")
        check(not os.path.exists(out), f"dump {i + 1} failed but left {out}")
        return key

    def exec_now():
        try:
            p.stdin.write(b"x")
            p.stdin.flush()
        except BrokenPipeError:
            raise Failure(f"the process ended: {process_end(p.wait())}")

    try:
        notes.wait_for("0", "churn: main() did not start")
        for i in range(300):
            shutil.rmtree(out, ignore_errors=True)
            kind = ("no exec", "exec at random", "exec under way")[i % 3]
            argv = [env.covkit, "live", "dump", str(p.pid), "-o", out]
            if kind == "no exec":
                before = notes.count()
                t = time.monotonic()
                try:
                    r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
                except subprocess.TimeoutExpired:
                    raise Failure(f"dump {i + 1} of a process that never holds still hung")
                durations.append(time.monotonic() - t)
                check(notes.count() == before, f"dump {i + 1}: an exec that was not asked for: {notes.lines[-3:]}")
                key = judge(i, r, ())
            else:
                denv = dict(os.environ, COVKIT_TEST_LIVE_STOP_AT="1") if kind == "exec under way" else None
                d = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=denv)
                try:
                    if kind == "exec at random":
                        # The instant is chance; what is asserted is not.
                        time.sleep(rng.uniform(0, 1.3 * sorted(durations)[len(durations) // 2]))
                        asked_during += d.poll() is None
                        exec_now()
                    else:
                        # covkit stopped at its first step (or ended before it: a failure).
                        info = os.waitid(os.P_PID, d.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)
                        if info.si_code != os.CLD_STOPPED:
                            raise Failure(f"dump {i + 1}: covkit ended before its first step: {d.communicate()}")
                        exec_now()
                        notes.wait_for(f"exec {gen}", f"dump {i + 1}: the exec did not begin")
                        asked_during += 1
                        d.send_signal(signal.SIGCONT)
                    o, e = d.communicate(timeout=20)
                except subprocess.TimeoutExpired:
                    raise Failure(f"dump {i + 1} of a process inside an exec hung")
                finally:
                    if d.poll() is None:
                        d.kill()
                        d.wait()
                key = judge(i, subprocess.CompletedProcess(argv, d.returncode, o, e), allowed)
                gen += 1
                notes.wait_for(str(gen), f"dump {i + 1}: the process did not come out of its exec {gen}")
            outcomes[kind][key] = outcomes[kind].get(key, 0) + 1
            env.log(f"dump {i + 1} ({kind}): {key}")
            check(p.poll() is None, f"dump {i + 1}: the process ended: {process_end(p.returncode)}")
    finally:
        p.kill()
        p.wait()
    check(outcomes["no exec"] == {"written": 100}, f"dumps that met no exec failed: {outcomes}")
    print(f"exec_during_dump (seed {seed}): {outcomes}; {gen} execs, {asked_during} asked while covkit ran")


def lcov_of(env, build, *roots):
    """`covkit report`'s lcov tracefile of .gcda trees paired with the build's notes."""
    out = os.path.join(env.work, f"lcov-{len(os.listdir(env.work))}.info")
    env.run([env.covkit, "report", "-q", "--root", PROGS, "--lcov", out, build.obj, *roots])
    return open(out).read()


def scenario_report(env, cc="gcc-12"):
    """live report == live dump + covkit report on the files, for every output; nothing in the process changes."""
    b = Build(env, cc)
    snap, again = os.path.join(env.work, "report-snap"), os.path.join(env.work, "report-again")
    s = Server(env, b)
    try:
        for c in ["w 300", "l", "w 7"]:
            s.cmd(c)
        live = os.path.join(env.work, "live.info")
        js, html = os.path.join(env.work, "live.json"), os.path.join(env.work, "html")
        r = env.covkit_live("report", str(s.pid), "--root", PROGS, "--lcov", live, "--json", js, "--html", html,
                            "--print-summary")
        check("TOTAL" in r.stdout or "Total" in r.stdout or "total" in r.stdout.lower(), f"no summary: {r.stdout!r}")
        check(os.path.isfile(os.path.join(html, "index.html")), "--html wrote no index.html")
        check(os.path.getsize(js) > 0, "--json wrote nothing")
        # The report left the counters as they were: a dump now is the same
        # as a dump after a second report.
        env.covkit_live("dump", str(s.pid), "-o", snap)
        env.covkit_live("report", str(s.pid), "--root", PROGS, "--lcov", os.path.join(env.work, "second.info"))
        env.covkit_live("dump", str(s.pid), "-o", again)
        same_trees(snap, again, "a dump before and after live report")
        from_files = lcov_of(env, b, snap)
        check(open(live).read() == from_files, "live report's lcov differs from covkit report on the dumped files")
        check("FNDA:1,main" in from_files and "liblive.c" in from_files and "plugin.c" in from_files,
              "the lcov misses the executable's, the library's or the plugin's counters")
        # --children adds the processes as libgcov adds runs: as dump --children --merge.
        child = int(s.cmd("f"))
        s.cmd("w 11")
        merged = os.path.join(env.work, "report-merged")
        env.covkit_live("dump", "--children", "--merge", str(s.pid), "-o", merged)
        both = os.path.join(env.work, "children.info")
        env.covkit_live("report", "--children", str(s.pid), "--root", PROGS, "--lcov", both)
        check(open(both).read() == lcov_of(env, b, merged), "live report --children differs from dump --children --merge")
        os.kill(child, signal.SIGKILL)
        # Gates and refusals are covkit report's and covkit live's.
        r = env.covkit_live("report", str(s.pid), "--root", PROGS, "--fail-under-line", "100", ok=False)
        check(r.returncode == 2, f"a failed gate exits 2, not {r.returncode}: {r.stderr}")
    finally:
        s.kill()
    r = env.covkit_live("report", str(s.pid), ok=False)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "covkit live report" in r.stderr,
          f"a gone process: one line and exit 1, got {r.returncode}: {r.stderr!r}")
    check(not os.path.exists(os.path.join(env.work, "gone.info")), "a file was written for a gone process")


def fnda(text, name):
    """The count of FNDA:<count>,<name> in an lcov tracefile (None when absent)."""
    m = re.search(rf"^FNDA:(\d+),{re.escape(name)}$", text, re.M)
    return int(m.group(1)) if m else None


def scenario_snapshots_in_build_tree(env, cc="gcc-12"):
    """Issue 35, trap 1: `live dump --reset PID -o snap`, `-o d1`, `-o d2` inside
    the build tree, then `covkit report --lcov d2.info d2 .` gives d2's counts
    (not snap + d1 + d2), says which files it left out; --add adds them all;
    none named is refused; `covkit report snap` alone finds the notes."""
    b = Build(env, cc)
    s = Server(env, b)
    try:
        for n, d in ((21, "snap"), (378, "d1"), (10, "d2")):
            s.cmd(f"w {n}")
            env.covkit_live("dump", "--reset", str(s.pid), "-o", os.path.join(b.root, d))
    finally:
        s.kill()
    report = [env.covkit, "report", "--root", PROGS]
    r = env.run(report + ["--lcov", "d2.info", "d2", "."], cwd=b.root)
    d2 = open(os.path.join(b.root, "d2.info")).read()
    check(fnda(d2, "job") == 10 and fnda(d2, "lib_touch") == 1,
          f"report d2 .: job {fnda(d2, 'job')} (want 10: d2's, not snap + d1 + d2), lib_touch {fnda(d2, 'lib_touch')}")
    check("left out" in r.stderr and "/snap" in r.stderr and "/d1" in r.stderr and "--add" in r.stderr,
          f"report d2 .: the files left out are not named: {r.stderr!r}")
    # --add: all of them, as asked (main's 10 jobs before the first dump are snap's).
    env.run(report + ["-q", "--add", "--lcov", "all.info", "d2", "."], cwd=b.root)
    check(fnda(open(os.path.join(b.root, "all.info")).read(), "job") == 10 + 21 + 378 + 10, "report --add")
    # Naming two of them adds those two.
    env.run(report + ["-q", "--lcov", "two.info", "d1", "d2", "."], cwd=b.root)
    check(fnda(open(os.path.join(b.root, "two.info")).read(), "job") == 378 + 10, "report d1 d2 .")
    # None named, none beside the notes: the choice is the user's.
    r = env.run(report + ["--lcov", "none.info", "."], cwd=b.root, ok=False)
    check(r.returncode == 1 and "several places" in r.stderr and "--add" in r.stderr
          and not os.path.exists(os.path.join(b.root, "none.info")), f"report . with three snapshots: {r.stderr!r}")
    # A snapshot alone: the notes are where it says its files belong.
    out = os.path.join(env.work, "snap-alone.info")
    env.run(report + ["--lcov", out, os.path.join(b.root, "snap")], cwd=env.work)
    check(fnda(open(out).read(), "job") == 10 + 21, "report snap/ alone")


def scenario_report_watch(env, cc="gcc-12"):
    """--watch reports again until the process exits; the last report equals the program's own files at exit."""
    b = Build(env, cc)
    exited = env.dir("watch-exited")
    s = Server(env, b, prefix=exited)
    out = os.path.join(env.work, "watch.info")
    w = subprocess.Popen([env.covkit, "live", "report", str(s.pid), "--watch", "0.2", "--root", PROGS,
                          "--lcov", out, "--print-summary"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        s.cmd("w 100")
        time.sleep(0.5)
        s.cmd("l")
        s.cmd("w 33")
        # Reports after the last work: the file then holds the final counts.
        # Three new versions of the file (each report renames a new one over
        # it): the first may come of a snapshot taken before the work, the
        # later ones of snapshots taken after it. Counted, not timed: under
        # the sanitizers on a loaded machine one report takes longer than a
        # fixed 0.9 s (and the watch makes no report once the process exits).
        def version():
            try:
                st = os.stat(out)
            except FileNotFoundError:
                return None
            return st.st_ino, st.st_mtime_ns, st.st_size
        versions = [version()]

        def three_new():
            now = version()
            if now != versions[-1]:
                versions.append(now)
            return len(versions) > 3 or w.poll() is not None
        wait_until(three_new, "--watch wrote no 3 reports in 120 s after the last work")
        check(w.poll() is None, f"--watch ended early: {w.returncode}")
        s.quit()
        stdout, stderr = w.communicate(timeout=30)
    finally:
        s.kill()
        if w.poll() is None:
            w.kill()
            w.wait()
    env.log(stdout, stderr)
    check(w.returncode == 0, f"--watch ended with {w.returncode}: {stderr}")
    check(stdout.count(f"pid {s.pid} at ") >= 3, f"fewer than 3 reports: {stdout!r}")
    check(f"pid {s.pid} has exited" in stdout, f"the end is not said: {stdout!r}")
    check(open(out).read() == lcov_of(env, b, exited),
          "the last --watch report differs from the program's own .gcda files at exit")


def scenario_report_watch_interrupted(env, cc="gcc-12"):
    """Ctrl-C ends a --watch with the last report's status: a failing gate stays failed (2), not 130."""
    b = Build(env, cc)
    s = Server(env, b)
    try:
        s.cmd("w 10")
        for gate, want in ((["--fail-under-line", "100"], 2), ([], 0)):
            w = subprocess.Popen([env.covkit, "live", "report", str(s.pid), "--watch", "0.2", "--root", PROGS, *gate],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                deadline = time.time() + 120
                out = ""
                while time.time() < deadline and out.count(f"pid {s.pid} at ") < 2:
                    out += w.stdout.readline()
                check(out.count(f"pid {s.pid} at ") >= 2, f"--watch made fewer than 2 reports: {out!r}")
                w.send_signal(signal.SIGINT)
                rest, err = w.communicate(timeout=30)
            finally:
                if w.poll() is None:
                    w.kill()
                    w.wait()
            check(w.returncode == want, f"--watch {gate} stopped by Ctrl-C exited {w.returncode}, want {want}: {err!r}")
            check(s.cmd("w 1") != "", "the process did not survive the interrupted watch")
    finally:
        s.kill()


def scenario_cli(env):
    """Bare `covkit live` lists its commands; a mistyped one gets a suggestion; every one has --help."""
    r = env.covkit_live(ok=False)
    check(r.returncode == 1 and all(c in r.stderr for c in ["dump", "reset", "report", "unpack"]),
          f"bare covkit live: {r.returncode} {r.stderr!r}")
    r = env.covkit_live("dunp", ok=False)
    check(r.returncode == 1 and "did you mean 'dump'" in r.stderr and r.stderr.count("\n") == 1,
          f"covkit live dunp: {r.stderr!r}")
    for sub in ["dump", "reset", "report", "unpack"]:
        r = env.covkit_live(sub, "--help")
        check(f"covkit live {sub}" in r.stdout and "docs/covkit-live.md" in r.stdout, f"{sub} --help: {r.stdout!r}")
    # A kernel thread is said to be one (it has no maps, which looked like a
    # process exiting during the dump).
    r = env.covkit_live("dump", "2", "-o", os.path.join(env.work, "kthread"), ok=False)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and "kernel thread (kthreadd)" in r.stderr
          and "exited" not in r.stderr, f"covkit live dump 2: {r.stderr!r}")
    # "--" ends the options, as everywhere.
    b = Build(env, "gcc-12")
    s = Server(env, b)
    try:
        out = os.path.join(env.work, "after-dashes")
        for argv in (["dump", "-o", out, "--", str(s.pid)], ["report", "--", str(s.pid)], ["reset", "--", str(s.pid)]):
            r = env.covkit_live(*argv, ok=False)
            check(r.returncode == 0, f"covkit live {' '.join(argv)}: exit {r.returncode}: {r.stderr!r}")
        check(tree_files(out), "dump -- PID wrote nothing")
        r = env.covkit_live("dump", "-o", out, "--", ok=False)
        check(r.returncode == 1 and "unknown option" not in r.stderr and "PID" in r.stderr,
              f"dump -o DIR -- (no PID): {r.stderr!r}")
        stream = os.path.join(env.work, "empty-stream.bin")
        open(stream, "wb").close()
        r = env.covkit_live("unpack", "-o", os.path.join(env.work, "unpacked"), "--", stream, ok=False)
        check("unknown" not in r.stderr and "--" not in r.stderr.split(":")[-1], f"unpack -- STREAM: {r.stderr!r}")
    finally:
        s.kill()


def patch_version(pid, exe, word):
    """Overwrites every gcov_info version word of the executable's list."""
    nm = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
    root = int(re.search(r"^([0-9a-f]+) \w __gcov_root$", nm, re.M).group(1), 16)
    base = 0
    for line in open(f"/proc/{pid}/maps"):
        if line.split()[-1] == exe and int(line.split()[2], 16) == 0:
            base = int(line.split("-")[0], 16)
            break
    kind = open(exe, "rb").read(18)[16]
    if kind == 2:  # ET_EXEC: addresses are absolute
        base = 0
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:
        mem.seek(base + root)
        info = struct.unpack("<Q", mem.read(8))[0]
        while info:
            mem.seek(info)
            mem.write(struct.pack("<I", word))
            mem.seek(info + 8)
            info = struct.unpack("<Q", mem.read(8))[0]


SCENARIOS = {
    "oracle_gcc11_pie": lambda e: oracle(e, "gcc-11", True),
    "oracle_gcc11_nopie": lambda e: oracle(e, "gcc-11", False),
    "oracle_gcc12_pie": lambda e: oracle(e, "gcc-12", True),
    "oracle_gcc12_nopie": lambda e: oracle(e, "gcc-12", False),
    "stripped_master": lambda e: oracle(e, "gcc-12", True, strip=True, expect_source="dynsym __gcov_master"),
    "stripped_scan_gcc11": lambda e: oracle(e, "gcc-11", False, strip=True, solo=True, expect_source="by scan"),
    "stripped_scan_gcc12": lambda e: oracle(e, "gcc-12", True, strip=True, solo=True, expect_source="by scan"),
    "gcov_equal": scenario_gcov_equal,
    "reset": scenario_reset,
    "deltas": scenario_deltas,
    "spare_files": scenario_spare_files,
    "children": scenario_children,
    "children_without_coverage": scenario_children_without_coverage,
    "children_all_or_nothing": scenario_children_all_or_nothing,
    "children_wrapper": scenario_children_wrapper,
    "load": scenario_load,
    "kill_at_random": scenario_kill_at_random,
    "journal_told_at_once": scenario_journal_told_at_once,
    "blocking_calls": scenario_blocking_calls,
    "refusals": scenario_refusals,
    "exits": scenario_exits,
    "main_thread_exited": scenario_main_thread_exited,
    "threads_come_and_go": scenario_threads_come_and_go,
    "plugin_reloaded": scenario_plugin_reloaded,
    "exec_during_dump": scenario_exec_during_dump,
    "value_profile_gcc11": lambda e: value_profile(e, "gcc-11"),
    "value_profile_gcc12": lambda e: value_profile(e, "gcc-12"),
    "report": scenario_report,
    "report_watch": scenario_report_watch,
    "snapshots_in_build_tree": scenario_snapshots_in_build_tree,
    "report_watch_interrupted": scenario_report_watch_interrupted,
    "cli": scenario_cli,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", default="build/covkit")
    ap.add_argument("--work", default="/tmp/covkit-live-tests")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    names = list(SCENARIOS) if args.scenarios in ([], ["all"]) else args.scenarios
    status = 0
    for name in names:
        env = Env(args)
        env.work = os.path.join(os.path.abspath(args.work), name)
        shutil.rmtree(env.work, ignore_errors=True)
        os.makedirs(env.work)
        # covkit's journals (a --reset dump's) stay in the scenario's work
        # directory, not in the machine's /var/lib/covkit.
        os.environ["COVKIT_STATE_DIR"] = os.path.join(env.work, "state")
        try:
            SCENARIOS[name](env)
            print(f"PASS {name}")
            if not args.keep:
                shutil.rmtree(env.work, ignore_errors=True)
        except Skip as s:
            print(f"SKIP {name}: {s}")
            status = status or 77
        except Failure as f:
            print(f"FAIL {name}: {f}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
