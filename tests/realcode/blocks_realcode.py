#!/usr/bin/env python3
"""covkit blocks on real code nobody here wrote: Debian 12's bzip2 1.0.8 (or
Lua 5.4, its VM by computed goto) built with gcc-12 -O0 -g twice from one
script (build_sample_package.sh), with --coverage (the truth, gcov's) and
with -fsanitize-coverage=trace-pc linked with libcovkit-blocks. Every file
at -O0: Lua's upstream build makes llex.c, lparser.c and lcode.c -Os, which
this comparison overrides (the target is the mapping of -O0 code, where
gcov's lines follow the source; -Os code in both builds would measure how
two -Os builds' line tables differ). One workload runs on both; `covkit
blocks report` of the block files is compared with `covkit report` of the
.gcda files, line by line (files by name, the trees differ): recall and
precision of covered lines (precision over the lines the truth lists) are
printed and held to floors, the program's output must not change, nothing
may be dropped.

  blocks_realcode.py COVKIT BUILD_DIR PKG CACHE      PKG: bzip2, lua

The source comes from fetch_and_build.sh (cached in CACHE,
$COVKIT_REALCODE_CACHE when set; its -O2 tree is the one covkit sample's
tests build too); both builds are made in a temporary directory (the hooked
one links this build's runtime). Exit 77 when the source cannot be fetched."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from lcov_lines import lcov_lines  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Measured at -O0 (docs/covkit-blocks.md): the floors leave room for a
# compiler update, not for a regression.
FLOORS = {"bzip2": (0.995, 0.995), "lua": (0.99, 0.99)}


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=1800, **kw)


def program(pkg, tree):
    return os.path.join(tree, "src", "lua") if pkg.startswith("lua") else os.path.join(tree, "bzip2")


def workload(pkg, exe, tree):
    if pkg.startswith("lua"):
        return [exe, os.path.join(HERE, "workloads", "lua_workload.lua"), "1"]
    return ["/bin/sh", os.path.join(HERE, "workloads", "bzip2_workload.sh"), exe, tree]


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    covkit, build, pkg, cache = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4]
    cache = os.path.abspath(os.environ.get("COVKIT_REALCODE_CACHE") or cache)
    if not os.path.exists(os.path.join(build, "libcovkit-blocks.so")):
        print("libcovkit-blocks.so missing: skipped")
        return 77
    p = subprocess.run([os.path.join(HERE, "fetch_and_build.sh"), pkg, cache, "12", "O2"])
    if p.returncode != 0:
        return p.returncode  # 77: skip
    tmp = tempfile.mkdtemp(prefix=f"covkit-blocks-{pkg}-")
    try:
        srcpkg = "lua5.4" if pkg.startswith("lua") else "bzip2"
        root = os.path.join(cache, "src", srcpkg)
        unpacked = [d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))]
        check(unpacked, f"no unpacked source in {root}")
        trees = {}
        for kind, flags, link in (("truth", "--coverage", "--coverage"),
                                  ("hooked", "-fsanitize-coverage=trace-pc",
                                   f"-L{build} -Wl,-rpath,{build} -Wl,--no-as-needed -lcovkit-blocks")):
            tree = trees[kind] = os.path.join(tmp, kind, pkg)
            shutil.copytree(os.path.join(root, unpacked[0]), tree, symlinks=True)
            env = dict(os.environ, CC="gcc-12", CFLAGS=f"-O0 -g {flags}", LDFLAGS=link, LUA_SIZE_CFLAGS="")
            b = run([os.path.join(HERE, "build_sample_package.sh"), pkg, tree], env=env)
            check(b.returncode == 0, f"the {kind} build of {pkg} failed: {b.stderr[-2000:]}")
        truth, tree = trees["truth"], trees["hooked"]
        expected = run(workload(pkg, program(pkg, truth), truth))
        check(expected.returncode == 0, f"the workload failed on the --coverage build: {expected.stderr}")
        r = run([covkit, "report", "-q", "--lcov", "-", truth])
        check(r.returncode == 0, f"covkit report of the truth: {r.stderr}")
        truth_lines = lcov_lines(r.stdout)
        blocks_dir = os.path.join(tmp, "blocks")
        os.makedirs(blocks_dir)
        got = run(workload(pkg, program(pkg, tree), tree),
                  env=dict(os.environ, COVKIT_BLOCKS_FILE=os.path.join(blocks_dir, "b.%p")))
        check(got.stdout == expected.stdout, f"the output changed under the hooks: {got.stdout!r} vs {expected.stdout!r}")
        files = sorted(os.path.join(blocks_dir, f) for f in os.listdir(blocks_dir))
        check(files, "no block file written")
        for f in files:
            dropped = [line for line in open(f) if line.startswith("dropped ")]
            check(dropped == ["dropped 0 0 0 0 0 0\n"], f"{f}: {dropped}")
        r = run([covkit, "blocks", "report", "-q", "--lcov", "-"] + files)
        check(r.returncode == 0, f"blocks report: {r.stderr}")
        ours = lcov_lines(r.stdout)
        truth_cov = {k for k, c in truth_lines.items() if c > 0}
        ours_cov = {k for k, c in ours.items() if c > 0}
        hit = len(truth_cov & ours_cov)
        listed = ours_cov & truth_lines.keys()
        recall = hit / len(truth_cov) if truth_cov else 0.0
        precision = hit / len(listed) if listed else 0.0
        missed = sorted(truth_cov - ours_cov)
        extra = sorted(listed - truth_cov)
        print(f"{pkg} -O0 gcc trace-pc: {len(files)} block files, recall {recall:.4f} ({hit}/{len(truth_cov)}), "
              f"precision {precision:.4f} ({hit}/{len(listed)})")
        print(f"  missed {missed[:12]}\n  extra {extra[:12]}")
        floor_recall, floor_precision = FLOORS.get(pkg, (0.97, 0.99))
        check(len(truth_cov) > 500, f"only {len(truth_cov)} covered lines in the truth")
        check(recall >= floor_recall, f"recall {recall:.4f} < {floor_recall}")
        check(precision >= floor_precision, f"precision {precision:.4f} < {floor_precision}")
    except Failure as e:
        print(f"FAIL blocks {pkg}: {e} (kept {tmp})", file=sys.stderr)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"ok blocks {pkg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
