#!/usr/bin/env python3
"""`covkit merge -o OUT OUT RUN2` killed with SIGKILL at random moments: OUT
must always hold either its old tree or the complete new one (never a mix,
never a half-written file), the other input must be untouched, and the next
run must finish and leave no staging directory behind.

Usage: run_merge_kill_test.py COVKIT WORKDIR   (exit 77: gcc-12 missing)
"""
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time

COPIES = 300    # object directories per tree: a merge long enough to be hit
KILLS = 30


def tree_state(root):
    """{relative path: sha1} of every file (links as 'link:target')."""
    state = {}
    for d, dirs, files in os.walk(root):
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                state[rel] = "link:" + os.readlink(p)
            else:
                with open(p, "rb") as f:
                    state[rel] = hashlib.sha1(f.read()).hexdigest()
    return state


def main():
    covkit, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not shutil.which("gcc-12"):
        print("SKIP: gcc-12 is not installed")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(work, "src")
    os.makedirs(src)
    with open(os.path.join(src, "p.c"), "w") as f:
        f.write("int f(int x) { return x % 3 ? x : -x; }\n"
                "int main(int argc, char **argv) { int s = 0; for (int i = 0; i < argc * 7; i++) s += f(i);"
                " return s == 99; }\n")
    subprocess.run(["gcc-12", "--coverage", "-O0", "-o", "p", "p.c"], cwd=src, check=True)
    strip = str(src.count("/"))
    for tree, args in (("run1", []), ("run2", ["a", "b"])):
        env = dict(os.environ, GCOV_PREFIX=os.path.join(work, tree), GCOV_PREFIX_STRIP=strip)
        subprocess.run(["./p"] + args, cwd=src, env=env)
        data = os.path.join(work, tree, "p.gcda")
        for i in range(COPIES):
            os.makedirs(os.path.join(work, tree, "d%04d" % i))
            shutil.copy(data, os.path.join(work, tree, "d%04d" % i, "p.gcda"))
    # OUT starts as run1 plus files merge must keep.
    old = os.path.join(work, "old")
    shutil.copytree(os.path.join(work, "run1"), old, symlinks=True)
    with open(os.path.join(old, "keep.txt"), "w") as f:
        f.write("not coverage data\n")
    os.symlink("keep.txt", os.path.join(old, "keep.link"))
    old_state = tree_state(old)
    run2_state = tree_state(os.path.join(work, "run2"))

    out = os.path.join(work, "out")
    shutil.copytree(old, out, symlinks=True)
    t0 = time.monotonic()
    r = subprocess.run([covkit, "merge", "-o", out, out, os.path.join(work, "run2")], capture_output=True, text=True)
    duration = time.monotonic() - t0
    if r.returncode != 0:
        print("FAIL: the merge itself failed: %s" % r.stderr)
        return 1
    new_state = tree_state(out)
    if new_state == old_state or "keep.txt" not in new_state or "keep.link" not in new_state:
        print("FAIL: the merge did not change OUT as expected (or lost its other files)")
        return 1
    # The kills below fall within the quickest of three merges: one slowed by
    # a moment of load on a shared machine would put most of them after the
    # swap, and none before it ("the test did not test anything").
    for _ in range(2):
        shutil.rmtree(out)
        shutil.copytree(old, out, symlinks=True, copy_function=os.link)
        t0 = time.monotonic()
        subprocess.run([covkit, "merge", "-o", out, out, os.path.join(work, "run2")], capture_output=True)
        duration = min(duration, time.monotonic() - t0)

    failures, outcomes = 0, {"old": 0, "new": 0}
    rnd = random.Random(1234)
    for i in range(KILLS):
        shutil.rmtree(out)
        # Hard links are enough: merge writes new files, never into old ones.
        shutil.copytree(old, out, symlinks=True, copy_function=os.link)
        p = subprocess.Popen([covkit, "merge", "-o", out, out, os.path.join(work, "run2")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0, duration * 1.1))
        p.send_signal(signal.SIGKILL)
        p.wait()
        state = tree_state(out)
        if state == old_state:
            outcomes["old"] += 1
        elif state == new_state:
            outcomes["new"] += 1
        else:
            failures += 1
            diff = sorted(k for k in set(state) | set(new_state) if state.get(k) != new_state.get(k))[:5]
            print("FAIL: kill %d left OUT neither old nor new; differs from new at %s" % (i, diff))
        if tree_state(os.path.join(work, "run2")) != run2_state:
            failures += 1
            print("FAIL: kill %d changed the input run2" % i)
    # The next run completes and removes what killed runs left.
    r = subprocess.run([covkit, "merge", "-o", out, out, os.path.join(work, "run2")], capture_output=True, text=True)
    leftovers = [n for n in os.listdir(work) if ".covkit-staging-" in n]
    if r.returncode != 0 or leftovers:
        failures += 1
        print("FAIL: the run after the kills: status %d, leftovers %s, %s" % (r.returncode, leftovers, r.stderr))
    print("merge of %d files took %.2fs; %d kills left the old tree, %d the new one, %d something else" %
          (2 * COPIES, duration, outcomes["old"], outcomes["new"], failures))
    if outcomes["old"] == 0:
        failures += 1
        print("FAIL: no kill landed before the swap; the test did not test anything")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
