#!/usr/bin/env python3
"""covkit blocks report on shared libraries: a program built with gcc
-fsanitize-coverage=trace-pc, linked with one instrumented library and
dlopen'ing another, run with libcovkit-blocks:

  lines     each library's blocks become lines of its own sources through
            its own DWARF (its load bias taken off): the covered lines of
            all three sources are gcc --coverage's (precision over the
            lines gcov lists), and its functions that ran are listed
  labels    label and case lines (no line-table row: gcov takes them from
            its notes) get the count of the line they lead to, gcov's count
  dlclose   a library unloaded before exit: its blocks cannot be placed
            (no module holds their addresses at exit); they are counted in
            the block file and said by blocks report, never dropped silently

  run_blocks_shared.py COVKIT BUILD_DIR     (exit 0 pass, 1 fail, 77 skip)
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_checks import check, finish, run  # noqa: E402

SOURCES = {
    "lib.c": """int lib_work(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    if (i & 1)
      s += i;
    else
      s -= 1;
  return s;
}

int lib_never(int n)
{
  return n * 7;
}
""",
    "plug.c": """int plug_run(int n)
{
  if (n > 100)
    return 1;
  return n + 2;
}
""",
    "main.c": """#include <dlfcn.h>
#include <stdio.h>

int lib_work(int n);

int main(int argc, char **argv)
{
  int s = lib_work(10);
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\\n", dlerror());
    return 1;
  }
  int (*run)(int) = (int (*)(int))dlsym(h, "plug_run");
  s += run(argc);
  if (argc > 2)
    dlclose(h);
  printf("%d\\n", s);
  return 0;
}
""",
}


def lcov(text):
    lines, functions, cur = {}, set(), None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = os.path.basename(line[3:])
        elif line.startswith("DA:") and cur:
            n, c = line[3:].split(",")[:2]
            lines[(cur, int(n))] = max(lines.get((cur, int(n)), 0), int(c))
        elif line.startswith("FNDA:"):
            count, name = line[5:].split(",", 1)
            if int(count) > 0:
                functions.add(name)
    return lines, functions


def build(d, flags, link):
    os.makedirs(d)
    for name, text in SOURCES.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    steps = [["gcc", "-O0", "-g", "-fPIC", "-shared"] + flags + ["lib.c", "-o", "liblib.so"] + link,
             ["gcc", "-O0", "-g", "-fPIC", "-shared"] + flags + ["plug.c", "-o", "plug.so"] + link,
             ["gcc", "-O0", "-g"] + flags + ["main.c", "-o", "prog", "-L.", "-llib", "-Wl,-rpath," + d] + link + ["-ldl"]]
    for cmd in steps:
        r = run(cmd, cwd=d)
        check(r.returncode == 0, f"{' '.join(cmd)}: {r.stderr}")


LABELS = """int main(int argc, char **argv)
{
  int s = argc;
  switch (s) {
  case 1:
    s += 2;
    break;
  case 2:
    s += 3;
    break;
  }
  if (s > 1000)
    goto out;
  s++;
out:
  return s == 0;
}
"""


def labels(covkit, build_dir, tmp):
    d = os.path.join(tmp, "labels")
    os.makedirs(d)
    with open(os.path.join(d, "l.c"), "w") as f:
        f.write(LABELS)
    r1 = run(["gcc", "--coverage", "-O0", "l.c", "-o", "truth"], cwd=d)
    r2 = run(["gcc", "-O0", "-g", "-fsanitize-coverage=trace-pc", "l.c", "-o", "hooked", "-L" + build_dir,
              "-Wl,-rpath," + build_dir, "-lcovkit-blocks"], cwd=d)
    check(r1.returncode == 0 and r2.returncode == 0, f"labels: build: {r1.stderr} {r2.stderr}")
    run(["./truth"], cwd=d)
    run(["./hooked"], cwd=d, env=dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(d, "b")))
    truth, _ = lcov(run([covkit, "report", "-q", "--lcov", "-", "."], cwd=d).stdout)
    ours, _ = lcov(run([covkit, "blocks", "report", "-q", "--lcov", "-", "b"], cwd=d).stdout)
    lines = LABELS.split("\n")
    wanted = [n for n, text in enumerate(lines, 1) if text.strip() in ("case 1:", "case 2:", "out:")]
    got = {n: ours.get(("l.c", n)) for n in wanted}
    want = {n: truth.get(("l.c", n)) for n in wanted}
    check(got == want and want == {wanted[0]: 1, wanted[1]: 0, wanted[2]: 1},
          f"labels: blocks {got}, gcov {want}")


def main():
    covkit, build_dir = (os.path.abspath(a) for a in sys.argv[1:3])
    if not os.path.exists(os.path.join(build_dir, "libcovkit-blocks.so")) or not shutil.which("gcc"):
        print("libcovkit-blocks.so or gcc missing: skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="covkit-blocks-shared-")
    try:
        truth_dir, hooked = os.path.join(tmp, "truth"), os.path.join(tmp, "hooked")
        build(truth_dir, ["--coverage"], [])
        build(hooked, ["-fsanitize-coverage=trace-pc"],
              ["-L" + build_dir, "-Wl,-rpath," + build_dir, "-lcovkit-blocks"])
        r = run(["./prog", os.path.join(truth_dir, "plug.so")], cwd=truth_dir)
        check(r.returncode == 0, f"truth run: {r.stderr}")
        truth, truth_functions = lcov(run([covkit, "report", "-q", "--lcov", "-", "."], cwd=truth_dir).stdout)
        env = dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(hooked, "kept.%p"))
        r = run(["./prog", os.path.join(hooked, "plug.so")], cwd=hooked, env=env)
        check(r.returncode == 0, f"hooked run: {r.stderr}")
        files = [f for f in os.listdir(hooked) if f.startswith("kept.")]
        r = run([covkit, "blocks", "report", "--lcov", "-"] + files, cwd=hooked)
        check(r.returncode == 0 and "warning" not in r.stderr, f"blocks report: {r.returncode} {r.stderr}")
        ours, functions = lcov(r.stdout)
        ran = {k for k, c in ours.items() if c and k in truth}
        truth_ran = {k for k, c in truth.items() if c}
        check(ran == truth_ran, f"lines: only blocks {sorted(ran - truth_ran)}, only gcov {sorted(truth_ran - ran)}")
        check({f for f, _ in ran} == {"lib.c", "plug.c", "main.c"}, f"sources with lines run: {sorted(ran)}")
        check(functions == truth_functions == {"main", "lib_work", "plug_run"},
              f"functions run: {functions} vs gcov {truth_functions}")
        labels(covkit, build_dir, tmp)
        # dlclose: plug.so's blocks are counted as unmapped and said.
        env = dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(hooked, "closed.%p"))
        r = run(["./prog", os.path.join(hooked, "plug.so"), "close"], cwd=hooked, env=env)
        files = [f for f in os.listdir(hooked) if f.startswith("closed.")]
        dropped = [line.split()[1:] for f in files for line in open(os.path.join(hooked, f))
                   if line.startswith("dropped ")]
        check(r.returncode == 0 and dropped and int(dropped[0][5]) >= 2, f"dlclose: dropped line {dropped}")
        r = run([covkit, "blocks", "report", "--lcov", "-"] + files, cwd=hooked)
        check(r.returncode == 0 and "unloaded before the program exited" in r.stderr,
              f"dlclose: blocks report does not say so: {r.stderr}")
    finally:
        status = finish(tmp)
    return status


if __name__ == "__main__":
    sys.exit(main())
