#!/usr/bin/env python3
"""covkit report against llvm-cov on real code: a Debian 12 source package
(tests/realcode/fetch_and_build.sh) built with clang-N
-fprofile-instr-generate -fcoverage-mapping and its tests run; then its
tree reported by covkit (profiles and binaries found there) and by
llvm-profdata-N merge + llvm-cov-N export over the same binaries in the same
order. Compared as in run_clang_diff.py: identical lcov records and region
totals, file by file; covkit merge through llvm-cov too.

  run_clang_realcode.py COVKIT VERSION PKG CACHE    (exit 0 pass, 1 fail, 77 skip)

CACHE is the realcode cache (fetch_and_build.sh's WORKDIR);
$COVKIT_REALCODE_CACHE, when set, is used instead (one tree shared by the
normal and the sanitized run, as the realcode tests share theirs).
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_clang_diff as diff  # noqa: E402


def instrumented_binaries(tree):
    """Executables and shared libraries holding a __llvm_covmap section, in
    the order covkit's search finds them (names sorted, depth first)."""
    found = []

    def walk(d):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            st = os.lstat(p)
            if stat.S_ISDIR(st.st_mode):
                if not name.startswith("."):
                    walk(p)
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if not (st.st_mode & stat.S_IXUSR or name.endswith(".so") or ".so." in name):
                continue
            with open(p, "rb") as f:
                head = f.read(18)
            if head[:4] != b"\x7fELF" or len(head) < 18:
                continue
            etype = int.from_bytes(head[16:18], "little" if head[5] == 1 else "big")
            if etype not in (2, 3):
                continue
            r = subprocess.run(["readelf", "-SW", p], capture_output=True, text=True)
            if "__llvm_covmap" in r.stdout:
                found.append(p)

    walk(tree)
    return found


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    covkit, version, pkg = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    cache = os.environ.get("COVKIT_REALCODE_CACHE") or sys.argv[4]
    cov, profdata = diff.tool("llvm-cov", version), diff.tool("llvm-profdata", version)
    if not cov or not profdata:
        print(f"SKIP: llvm-cov-{version} or llvm-profdata-{version} missing")
        return 77
    here = os.path.dirname(os.path.abspath(__file__))
    gccver = f"clang{version}-source"
    r = subprocess.run([os.path.join(here, "..", "realcode", "fetch_and_build.sh"), pkg, cache, gccver, "O0"])
    if r.returncode != 0:
        return r.returncode
    tree = os.path.join(cache, f"{pkg}-gcc{gccver}-O0")
    prof = os.path.join(tree, "prof")
    profiles = sorted(os.path.join(prof, p) for p in os.listdir(prof))
    binaries = instrumented_binaries(tree)
    print(f"{pkg}, clang-{version}: {len(binaries)} instrumented binaries, {len(profiles)} profiles")
    tmp = tempfile.mkdtemp(prefix=f"covkit-clang-realcode-{pkg}-")
    fails = []
    try:
        ref_profdata = os.path.join(tmp, "ref.profdata")
        r = diff.run([profdata, "merge", "-o", ref_profdata] + profiles, timeout=900)
        if r.returncode != 0:
            print("FAIL: llvm-profdata merge:", r.stderr[-1000:])
            return 1
        objs = [binaries[0]] + [x for b in binaries[1:] for x in ("-object", b)]
        ref = {}
        for fmt in ("lcov", "text"):
            r = diff.run([cov, "export", f"-format={fmt}", "-instr-profile", ref_profdata] + objs, cwd=tree,
                         timeout=900)
            if r.returncode != 0:
                print("FAIL: llvm-cov export:", r.stderr[-1000:])
                return 1
            ref[fmt] = r.stdout
        cov_info = os.path.join(tmp, "cov.info")
        r = diff.run([covkit, "report", "-q", "--keep-system-headers", "--no-exclusion-markers", "--color", "never",
                      "--lcov", cov_info, "-s", "."], cwd=tree, timeout=900)
        if r.returncode != 0:
            print(f"FAIL: covkit report exited {r.returncode}: {r.stderr[-1500:]}")
            return 1
        with open(cov_info) as f:
            got = diff.parse_lcov(f.read())
        fails, notes = diff.compare(diff.parse_lcov(ref["lcov"]), got, json.loads(ref["text"]),
                                    diff.parse_region_table(r.stdout, tree), tree)
        files = len(got)
        lines = sum(len(v["records"]["DA"]) for v in got.values())
        if not fails:
            mine = os.path.join(tmp, "covkit.profdata")
            m = diff.run([covkit, "merge", "-o", mine] + profiles, timeout=900)
            mr = diff.run([cov, "export", "-format=lcov", "-instr-profile", mine] + objs, cwd=tree, timeout=900)
            if m.returncode != 0 or mr.returncode != 0 or mr.stdout != ref["lcov"]:
                fails.append("  llvm-cov's tracefile from covkit merge's .profdata differs from the one from "
                             f"llvm-profdata's ({m.stderr[-300:]}{mr.stderr[-300:]})")
        for line in fails[:60]:
            print(line)
        counted = {}
        for n in notes:
            counted[n] = counted.get(n, 0) + 1
        print(f"{pkg}, clang-{version}: {files} source files, {lines} lines: "
              + ("identical" if not fails else f"{len(fails)} differences"))
        if counted:
            print("  where llvm-cov is known wrong, counted, not compared: "
                  + "; ".join(f"{k}: {v}" for k, v in sorted(counted.items())))
        return 1 if fails else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
