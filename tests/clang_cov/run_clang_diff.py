#!/usr/bin/env python3
"""covkit's reading of clang's source-based coverage against llvm-cov's own.

For one clang version (13 to 16), every case of the corpus (tests/corpus and
tests/clang_cov/cases) is built once with clang-N -fprofile-instr-generate
-fcoverage-mapping, run, and then reported twice:

  oracle:  llvm-profdata-N merge, llvm-cov-N export -format=lcov and
           -format=text over the case's binaries;
  covkit:  covkit report --lcov --json -s over the case's directory (the
           .profraw files and binaries found there, no merge step).

Compared, per source file:
  * the lcov records DA, BRDA, FN and FNDA: identical;
  * region totals (llvm-cov's JSON summary "regions" count and covered)
    against covkit's terminal table: identical;
  * covkit's LF/LH/BRF/BRH/FNF/FNH: the counts of the records above, which
    is what lcov and genhtml compute from llvm-cov's tracefile. llvm-cov's
    own summary lines can disagree with its own records (see
    docs/covkit-clang.md, "Where llvm-cov's numbers are not its records'");
    they are counted and printed, not compared.
Then `covkit merge` of the case's .profraw files must give, through
llvm-cov-N, the tracefile that llvm-profdata-N's merge gives.

  run_clang_diff.py COVKIT VERSION CASE_DIR...   (exit 0 pass, 1 fail, 77 skip)

Environment: CLANG_DIFF_ONLY=case,case  CLANG_DIFF_KEEP=1  DIFF_TMPDIR=dir
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def say(*a):
    print(*a, flush=True)


def tool(name, version):
    path = shutil.which(f"{name}-{version}")
    if not path:
        for d in (f"/usr/lib/llvm-{version}/bin",):
            if os.path.exists(os.path.join(d, name)):
                return os.path.join(d, name)
    return path


def load_case(case_dir):
    """The case's settings (case.sh, sourced by bash), with defaults."""
    script = ('SOURCES=""; NOLINK=""; LANG_KIND=c; CFLAGS_EXTRA=""; CXXFLAGS_EXTRA=""; LDFLAGS_EXTRA=""; '
              'RUNS=""; CLANG=yes; BUILD=""; BINARIES=prog; CLANG_MIN_VERSION=0; '
              f'source {case_dir}/case.sh; '
              'for v in SOURCES NOLINK LANG_KIND CFLAGS_EXTRA CXXFLAGS_EXTRA LDFLAGS_EXTRA RUNS CLANG BUILD BINARIES '
              'CLANG_MIN_VERSION; '
              'do printf "%s=%s\\0" "$v" "${!v}"; done')
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout.decode()
    return dict(kv.split("=", 1) for kv in out.split("\0") if kv)


def run(cmd, cwd=None, env=None, timeout=300):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def build_case(case, s, b, cc, cxx):
    """Compiles and links the case in b; returns an error text or None."""
    flags = ["-fprofile-instr-generate", "-fcoverage-mapping"]
    env = dict(os.environ, CC=cc, CXX=cxx, COVFLAGS=" ".join(flags))
    if s["BUILD"]:
        r = run(["bash", "-e", "-o", "pipefail", "-c", s["BUILD"]], cwd=b, env=env)
        return None if r.returncode == 0 else f"BUILD failed: {r.stderr[-2000:]}"
    objs = []
    for src in s["SOURCES"].split():
        comp = cc if src.endswith(".c") else cxx
        extra = s["CFLAGS_EXTRA"].split() + (s["CXXFLAGS_EXTRA"].split() if comp == cxx else [])
        obj = "build/" + os.path.splitext(src)[0] + ".o"
        os.makedirs(os.path.join(b, os.path.dirname(obj)), exist_ok=True)
        r = run([comp] + flags + extra + ["-c", src, "-o", obj], cwd=b)
        if r.returncode != 0:
            return f"compiling {src} failed: {r.stderr[-2000:]}"
        objs.append(obj)
    linker = cxx if s["LANG_KIND"] == "cxx" else cc
    r = run([linker, "-fprofile-instr-generate"] + objs + ["-o", "prog"] + s["LDFLAGS_EXTRA"].split(), cwd=b)
    return None if r.returncode == 0 else f"link failed: {r.stderr[-2000:]}"


LCOV_RECORDS = ("DA", "BRDA", "FN", "FNDA")
LCOV_SUMMARY = ("LF", "LH", "BRF", "BRH", "FNF", "FNH")


def parse_lcov(text):
    """file -> {'records': {key: sorted lines}, 'summary': {key: int}}"""
    files, cur = {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = files.setdefault(line[3:], {"records": {k: [] for k in LCOV_RECORDS}, "summary": {}})
        elif line == "end_of_record" or cur is None:
            continue
        else:
            key, _, value = line.partition(":")
            if key in LCOV_RECORDS:
                cur["records"][key].append(value)
                if key in ("FN", "FNDA"):
                    cur.setdefault("order", {}).setdefault(key, []).append(value)
            elif key in LCOV_SUMMARY:
                cur["summary"][key] = int(value)
    for f in files.values():
        for k in LCOV_RECORDS:
            f["records"][k].sort()
    return files


def llvm_cov_wrongs(ref, got, notes, order=None):
    """llvm-cov's records rewritten where llvm-cov is known wrong, each
    counted in notes (docs/covkit-clang.md lists them): a count below zero
    prints as 2^64 - n (covkit: 0, as lcov reads negative counts); a branch
    count is cut to 32 bits (covkit: all 64); a function built several ways
    (several records of one name at one place of a file) is listed once per
    build (covkit: once, its counts added, as lcov reads llvm-cov's
    tracefile)."""
    out = dict(ref)
    if order and len(order.get("FN", [])) == len(order.get("FNDA", [])):
        # FN and FNDA list the records in one order: a record is (name, line, count).
        merged = {}
        for fn, fnda in zip(order["FN"], order["FNDA"]):
            line, name = fn.split(",", 1)
            count, name2 = fnda.split(",", 1)
            key = (name, line)
            merged[key] = merged.get(key, 0) + int(count)
        if len(merged) != len(order["FN"]):
            notes.append("a function built several ways, listed once per build")
        out["FN"] = sorted(f"{line},{name}" for name, line in merged)
        out["FNDA"] = sorted(f"{count},{name}" for (name, line), count in merged.items())
    da = []
    for v in ref["DA"]:
        line, count = v.split(",")
        if int(count) >= 1 << 63:
            notes.append("a line count below zero (2^64 - n)")
            count = "0"
        da.append(f"{line},{count}")
    out["DA"] = sorted(da)
    have = {",".join(v.split(",")[:3]): v.split(",")[3] for v in got["BRDA"]}
    brda = []
    for v in ref["BRDA"]:
        key, count = ",".join(v.split(",")[:3]), v.split(",")[3]
        mine = have.get(key)
        if mine is not None and count != "-" and mine != "-" and count != mine:
            if int(mine) == 0 and int(count) >= 1 << 31:
                notes.append("a branch count below zero (2^32 - n)")
                count = mine
            elif int(mine) >= 1 << 32 and int(mine) % (1 << 32) == int(count):
                notes.append("a branch count cut to 32 bits")
                count = mine
        brda.append(f"{key},{count}")
    out["BRDA"] = sorted(brda)
    return out


def record_counts(rec):
    """LF/LH/BRF/BRH/FNF/FNH as lcov and genhtml compute them from records."""
    da = [int(v.split(",")[1]) for v in rec["DA"]]
    br = [v.split(",")[3] for v in rec["BRDA"]]
    fn = [int(v.split(",")[0]) for v in rec["FNDA"]]
    return {"LF": len(da), "LH": sum(1 for c in da if c > 0), "BRF": len(br),
            "BRH": sum(1 for c in br if c not in ("-", "0")), "FNF": len(fn), "FNH": sum(1 for c in fn if c > 0)}


def parse_region_table(text, base):
    """covkit's terminal table: file -> (regions total, covered)."""
    out = {}
    lines = text.splitlines()
    if len(lines) < 2 or "Regions" not in lines[0]:
        return out
    for line in lines[3:]:
        if line.startswith("---") or line.startswith("TOTAL"):
            continue
        fields = line.split()
        # The Missing column (uncovered lines, "1-4,7") ends a row when there are any.
        if fields and not (fields[-1].endswith("%") or fields[-1] == "-"):
            fields = fields[:-1]
        if len(fields) < 13:
            continue
        name = " ".join(fields[:-12])
        total, covered = int(fields[-3]), int(fields[-2])
        out[name if name.startswith("/") else os.path.normpath(os.path.join(base, name))] = (total, covered)
    return out


def diff_lists(what, ref, got, limit=6):
    ref_only = sorted(set(ref) - set(got))
    got_only = sorted(set(got) - set(ref))
    msg = []
    for v in ref_only[:limit]:
        msg.append(f"    {what} only llvm-cov: {v}")
    for v in got_only[:limit]:
        msg.append(f"    {what} only covkit:   {v}")
    extra = len(ref_only) + len(got_only) - min(limit, len(ref_only)) - min(limit, len(got_only))
    if extra > 0:
        msg.append(f"    ... and {extra} more")
    return msg


def compare(ref_lcov, cov_lcov, ref_json, cov_table, b):
    """Differences (list of lines) and notes on llvm-cov's summary lines."""
    failures, notes = [], []
    ref = {f: v for f, v in ref_lcov.items() if v["records"]["DA"]}
    got = cov_lcov
    for f in sorted(set(ref) | set(got)):
        if f not in got:
            failures.append(f"  {f}: only in llvm-cov's tracefile")
            continue
        if f not in ref:
            failures.append(f"  {f}: only in covkit's tracefile")
            continue
        want_records = llvm_cov_wrongs(ref[f]["records"], got[f]["records"], notes, ref[f].get("order"))
        for k in LCOV_RECORDS:
            if want_records[k] != got[f]["records"][k]:
                failures.append(f"  {f}: {k} differs")
                failures += diff_lists(k, want_records[k], got[f]["records"][k])
        want = record_counts(got[f]["records"])
        for k, v in want.items():
            if got[f]["summary"].get(k, 0) != v:
                failures.append(f"  {f}: covkit's {k} is {got[f]['summary'].get(k, 0)}, its records count {v}")
            if ref[f]["summary"].get(k, 0) != record_counts(ref[f]["records"])[k]:
                notes.append(f"{k} (llvm-cov's summary line against its records)")
    for entry in ref_json["data"][0]["files"]:
        f = entry["filename"]
        if f not in ref:
            continue
        want = (entry["summary"]["regions"]["count"], entry["summary"]["regions"]["covered"])
        have = cov_table.get(f, (0, 0))
        if want != have:
            failures.append(f"  {f}: regions {have[0]}/{have[1]} (total/covered), llvm-cov {want[0]}/{want[1]}")
    return failures, notes


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    covkit, version, case_roots = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    cc, cxx = tool("clang", version), tool("clang++", version)
    cov, profdata = tool("llvm-cov", version), tool("llvm-profdata", version)
    if not all((cc, cxx, cov, profdata)):
        say(f"SKIP: clang-{version}, clang++-{version}, llvm-cov-{version} or llvm-profdata-{version} is missing")
        return 77
    only = [c for c in os.environ.get("CLANG_DIFF_ONLY", "").split(",") if c]
    base = os.environ.get("DIFF_TMPDIR") or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    tmp = tempfile.mkdtemp(prefix=f"covkit-clang{version}-", dir=base)
    cases = []
    for root in case_roots:
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if os.path.isfile(os.path.join(d, "case.sh")) and (not only or name in only):
                cases.append((name, d))
    failed, passed, skipped = [], 0, []
    summary_notes = {}
    for name, d in cases:
        s = load_case(d)
        if s["CLANG"] == "no" or "-fopenmp" in s["CFLAGS_EXTRA"] or int(version) < int(s["CLANG_MIN_VERSION"]):
            skipped.append(name)
            continue
        # The build is what covkit reads; the oracle's files stay beside it.
        b = os.path.join(tmp, name, "build")
        o = os.path.join(tmp, name, "oracle")
        shutil.copytree(d, b)
        os.makedirs(o)
        err = build_case(name, s, b, cc, cxx)
        if err:
            failed.append(name)
            say(f"FAIL {name}: {err}")
            continue
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(b, "prof", "%p.profraw"), CC=cc, CXX=cxx,
                   COVFLAGS="-fprofile-instr-generate -fcoverage-mapping")
        if s["RUNS"]:
            r = run(["timeout", "120", "bash", "-e", "-o", "pipefail", "-c", s["RUNS"]], cwd=b, env=env)
            if r.returncode != 0:
                failed.append(name)
                say(f"FAIL {name}: RUNS failed: {r.stdout[-500:]}{r.stderr[-1500:]}")
                continue
        profiles = sorted(os.path.join(b, "prof", p) for p in os.listdir(os.path.join(b, "prof"))) \
            if os.path.isdir(os.path.join(b, "prof")) else []
        if not profiles:
            skipped.append(name + " (no profile written)")
            continue
        binaries = s["BINARIES"].split()
        r = run([profdata, "merge", "-o", os.path.join(o, "ref.profdata")] + profiles)
        if r.returncode != 0:
            failed.append(name)
            say(f"FAIL {name}: llvm-profdata merge failed: {r.stderr[-1000:]}")
            continue
        objs = [binaries[0]] + [x for o in binaries[1:] for x in ("-object", o)]
        ref = {}
        for fmt in ("lcov", "text"):
            r = run([cov, "export", f"-format={fmt}", "-instr-profile", os.path.join(o, "ref.profdata")] + objs,
                    cwd=b)
            if r.returncode != 0:
                break
            ref[fmt] = r.stdout
        if len(ref) != 2:
            failed.append(name)
            say(f"FAIL {name}: llvm-cov export failed: {r.stderr[-1000:]}")
            continue
        # covkit reads the case's directory as it is: profiles and binaries found there.
        r = run([covkit, "report", "-q", "--keep-system-headers", "--no-exclusion-markers", "--color", "never",
                 "--lcov", os.path.join(o, "cov.info"), "--json", os.path.join(o, "cov.json"), "-s", "."], cwd=b)
        if r.returncode != 0:
            failed.append(name)
            say(f"FAIL {name}: covkit report exited {r.returncode}: {r.stderr[-1500:]}")
            continue
        with open(os.path.join(o, "cov.info")) as f:
            cov_lcov = parse_lcov(f.read())
        fails, notes = compare(parse_lcov(ref["lcov"]), cov_lcov, json.loads(ref["text"]),
                               parse_region_table(r.stdout, b), b)
        for n in notes:
            summary_notes[n] = summary_notes.get(n, 0) + 1
        # covkit merge: the same tracefile through llvm-cov as llvm-profdata's merge gives.
        if not fails:
            m = run([covkit, "merge", "-o", os.path.join(o, "covkit.profdata")] + profiles)
            if m.returncode != 0:
                fails.append(f"  covkit merge exited {m.returncode}: {m.stderr[-800:]}")
            else:
                mr = run([cov, "export", "-format=lcov", "-instr-profile", os.path.join(o, "covkit.profdata")] + objs,
                         cwd=b)
                if mr.returncode != 0:
                    fails.append(f"  llvm-cov cannot read covkit's .profdata: {mr.stderr[-800:]}")
                elif mr.stdout != ref["lcov"]:
                    fails.append("  llvm-cov's tracefile from covkit's .profdata differs from the one from "
                                 "llvm-profdata's")
        if fails:
            failed.append(name)
            say(f"FAIL {name}:")
            for line in fails[:40]:
                say(line)
        else:
            passed += 1
            if not os.environ.get("CLANG_DIFF_KEEP"):
                shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
    say(f"clang-{version}: {passed} cases identical, {len(failed)} failed, {len(skipped)} skipped"
        + (f" ({', '.join(skipped)})" if skipped else ""))
    if summary_notes:
        say("  where llvm-cov is known wrong (docs/covkit-clang.md), counted, not compared: "
            + "; ".join(f"{k}: {v}" for k, v in sorted(summary_notes.items())))
    if not os.environ.get("CLANG_DIFF_KEEP"):
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        say(f"kept {tmp}")
    if failed:
        say(f"failed: {' '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
