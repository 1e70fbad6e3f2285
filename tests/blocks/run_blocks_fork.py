#!/usr/bin/env python3
"""A forked child's block file holds what the child ran, not what its
parent ran before the fork (GCC's fork wrapper resets libgcov's counters in
the child the same way): the parent's and the child's files add up to
gcc --coverage's counts, the lines before the fork counted once.

One program forks: before() runs twice before the fork, in_child() three
times in the child, in_parent() five times in the parent. Built each way
the runtime takes (gcc trace-pc; clang trace-pc-guard and
inline-8bit-counters + pc-table when clang is here), run with
libcovkit-blocks, reported from both block files; each function's body
line must have gcov's count (2, 3, 5) and the child's file alone no count
of before().

  run_blocks_fork.py COVKIT BUILD_DIR     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from lcov_lines import lcov_lines  # noqa: E402
from script_checks import check, finish, run  # noqa: E402

PROGRAM = """#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int before(int x)
{
  return x + 1;
}

static int in_child(int x)
{
  return x * 2;
}

static int in_parent(int x)
{
  return x - 1;
}

int main(void)
{
  int s = 0;
  for (int i = 0; i < 2; i++)
    s += before(i);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 3; i++)
      s += in_child(i);
    return s == 12345;
  }
  for (int i = 0; i < 5; i++)
    s += in_parent(i);
  waitpid(pid, NULL, 0);
  return s == 12345;
}
"""
BODY = {"return x + 1;": 2, "return x * 2;": 3, "return x - 1;": 5}
# clang's own sanitizer runtime (its weak hooks) stays out, as in run_blocks.py.
CLANG_LINK = ["-fno-sanitize-link-runtime"]
WAYS = [("gcc", ["-fsanitize-coverage=trace-pc"], []),
        ("clang-14", ["-fsanitize-coverage=trace-pc-guard"], CLANG_LINK),
        ("clang-14", ["-fsanitize-coverage=inline-8bit-counters,pc-table"], CLANG_LINK)]


def body_counts(lcov_text):
    lines = {n: c for (f, n), c in lcov_lines(lcov_text).items() if f == "fork.c"}
    numbered = {text.strip(): n for n, text in enumerate(PROGRAM.split("\n"), 1)}
    return {text: lines.get(numbered[text]) for text in BODY}


def main():
    covkit, build_dir = (os.path.abspath(a) for a in sys.argv[1:3])
    if not os.path.exists(os.path.join(build_dir, "libcovkit-blocks.so")) or not shutil.which("gcc"):
        print("libcovkit-blocks.so or gcc missing: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="covkit-blocks-fork-")
    try:
        with open(os.path.join(tmp, "fork.c"), "w") as f:
            f.write(PROGRAM)
        r = run(["gcc", "--coverage", "-O0", "fork.c", "-o", "truth"], cwd=tmp)
        check(r.returncode == 0, f"truth build: {r.stderr}")
        run(["./truth"], cwd=tmp)
        truth = body_counts(run([covkit, "report", "-q", "--lcov", "-", "."], cwd=tmp).stdout)
        check(truth == BODY, f"gcov's counts {truth}, expected {BODY}")
        for k, (cc, flags, link) in enumerate(WAYS):
            if not shutil.which(cc):
                print(f"{cc} missing: {' '.join(flags)} not tried")
                continue
            way = f"{cc} {' '.join(flags)}"
            d = os.path.join(tmp, f"way{k}")
            os.makedirs(d)
            shutil.copy(os.path.join(tmp, "fork.c"), d)
            r = run([cc, "-O0", "-g"] + flags + ["fork.c", "-o", "hooked", "-L" + build_dir,
                                                 "-Wl,-rpath," + build_dir, "-lcovkit-blocks"] + link, cwd=d)
            check(r.returncode == 0, f"{way}: build: {r.stderr}")
            r = run(["./hooked"], cwd=d, env=dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, "b.%p")))
            files = sorted(f for f in os.listdir(d) if f.startswith("b."))
            check(len(files) == 2, f"{way}: block files {files}")
            r = run([covkit, "blocks", "report", "-q", "--lcov", "-"] + files, cwd=d)
            check(r.returncode == 0, f"{way}: blocks report: {r.stderr}")
            got = body_counts(r.stdout)
            check(got == BODY, f"{way}: counts {got}, gcov's {BODY}")
            # The child's own file: nothing of before() (it ran in the parent).
            pids = {f: open(os.path.join(d, f)).read().split("\n")[1] for f in files}
            for f in files:
                r = run([covkit, "blocks", "report", "-q", "--lcov", "-", f], cwd=d)
                counts = body_counts(r.stdout)
                if counts["return x * 2;"]:
                    check(not counts["return x + 1;"],
                          f"{way}: the child's file ({pids[f]}) counts before(): {counts}")
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
