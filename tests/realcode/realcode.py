#!/usr/bin/env python3
"""Differential gcov-vs-covkit testing on a real coverage build tree.

Used by compare.sh and bench/gcov_vs_covkit.sh; not meant to be run by hand
(but `realcode.py --help` works).

A *tree* is a directory built by fetch_and_build.sh (it contains the marker
file .covkit-realcode-tree with the absolute path it was built at, `root=`).
Its .gcno files are grouped by (compile directory, object directory): the
compile directory is read from the .gcno (`gcov-dump -l`, line `cwd:`) and is
where gcov has to run, because gcov resolves the relative source names in a
.gcno against its own working directory.

`compare` makes a fresh copy of the tree for each tool, always at the same
path (so that absolute paths appearing in arguments or outputs are identical),
runs every mode in it, moves each invocation's new files out to
OUT/<tool>/<tree>/<mode>/<group>/<invocation>/, and finally compares the
reference tool's outputs with each candidate's.
"""

import argparse
import concurrent.futures
import difflib
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

MARKER = ".covkit-realcode-tree"

# name -> (kind, options). kinds:
#   all    one invocation per group:   TOOL OPTS gcno...            (cwd = compile dir)
#   osrc   one invocation per group:   TOOL OPTS -o OBJDIR stem.c ...
#   each   one invocation per object:  TOOL OPTS gcno
#   lcov   one invocation per .gcda:   TOOL /abs/x.gcda -o /abs/objdir OPTS   (as lcov 1.16's geninfo)
#   gcovr  one invocation per .gcda:   TOOL /abs/x.gcda OPTS --object-directory /abs/objdir (as gcovr 5.2)
MODES = {
    "plain":  ("all",   []),
    "bc":     ("all",   ["-b", "-c"]),
    "abu":    ("all",   ["-a", "-b", "-u"]),
    "jb":     ("all",   ["-j", "-b"]),
    "lpb":    ("all",   ["-l", "-p", "-b"]),
    "perobj": ("each",  ["-b", "-c"]),
    "nfr":    ("all",   ["-n", "-f", "-r"]),
    "tkqh":   ("all",   ["-t", "-k", "-q", "-H", "-b", "-c"]),
    "xwdm":   ("all",   ["-x", "-w", "-d", "-m", "-c"]),
    "psl":    ("all",   ["-p", "-s", "..", "-l", "-a"]),
    "osrc":   ("osrc",  ["-b", "-c"]),
    "lcov":   ("lcov",  ["-b", "-c", "-x", "-i"]),
    "gcovr":  ("gcovr", ["--branch-counts", "--branch-probabilities",
                         "--demangled-names", "--hash-filenames"]),
}
DEFAULT_MODES = ["plain", "bc", "abu", "jb", "lpb", "perobj", "nfr", "tkqh",
                 "xwdm", "psl", "osrc", "lcov", "gcovr"]
# modes in which a candidate that takes --threads is also run with --threads 2
MULTI_OBJECT_KINDS = ("all", "osrc")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# trees and groups
# ---------------------------------------------------------------------------

def read_marker(tree):
    info = {}
    with open(os.path.join(tree, MARKER)) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                info[k] = v
    return info


def find_trees(workdir, gccver):
    workdir = os.path.abspath(workdir)
    if os.path.isfile(os.path.join(workdir, MARKER)):
        return [workdir]
    trees = []
    for name in sorted(os.listdir(workdir)):
        p = os.path.join(workdir, name)
        if os.path.isfile(os.path.join(p, MARKER)):
            info = read_marker(p)
            if gccver is None or info.get("gccver") == str(gccver):
                trees.append(p)
    return trees


def gcno_cwd(dump, path):
    """The compile directory recorded in a .gcno (via gcov-dump -l)."""
    r = subprocess.run([dump, "-l", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    for line in r.stdout.decode("utf-8", "surrogateescape").splitlines()[:8]:
        i = line.find(":cwd: ")
        if i >= 0:
            v = line[i + 6:]
            return None if v == "(null)" else v
    return None


def compute_groups(tree, dump):
    """List of groups: dict(cwd=rel-to-tree, objdir=rel-to-tree,
    objs=[gcno paths relative to tree]) sorted deterministically."""
    tree = os.path.abspath(tree)
    root = read_marker(tree).get("root", tree)
    gcnos = []
    for d, dirs, files in os.walk(tree):
        # never descend into a nested tree or a compare scratch directory
        dirs[:] = sorted(x for x in dirs
                         if not os.path.exists(os.path.join(d, x, MARKER))
                         and not x.startswith("compare."))
        for f in sorted(files):
            if f.endswith(".gcno"):
                gcnos.append(os.path.join(d, f))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        cwds = list(ex.map(lambda p: gcno_cwd(dump, p), gcnos))
    groups = {}
    for g, cwd in zip(gcnos, cwds):
        objdir = os.path.dirname(g)
        if cwd and (cwd == root or cwd.startswith(root + "/")):
            cwd_abs = tree + cwd[len(root):]
        elif cwd and (cwd == tree or cwd.startswith(tree + "/")):
            cwd_abs = cwd
        else:
            log(f"warning: {g}: compile directory {cwd!r} is not inside the tree; using the object directory")
            cwd_abs = objdir
        key = (os.path.relpath(cwd_abs, tree), os.path.relpath(objdir, tree))
        groups.setdefault(key, []).append(os.path.relpath(g, tree))
    return [dict(cwd=k[0], objdir=k[1], objs=sorted(v)) for k, v in sorted(groups.items())]


def group_id(g):
    s = g["cwd"] + "@" + g["objdir"]
    return s.replace("/", "_").replace(".", "-") or "root"


def invocations(mode, g, tree):
    """Yield (label, argv-tail, cwd_abs) for one group in one mode."""
    kind, opts = MODES[mode]
    cwd = os.path.normpath(os.path.join(tree, g["cwd"]))
    rel = [os.path.relpath(os.path.join(tree, o), cwd) for o in g["objs"]]
    objdir_rel = os.path.relpath(os.path.join(tree, g["objdir"]), cwd)
    objdir_abs = os.path.normpath(os.path.join(tree, g["objdir"]))
    if kind == "all":
        yield "all", opts + rel, cwd
    elif kind == "osrc":
        stems = [os.path.basename(o)[:-5] + ".c" for o in g["objs"]]
        yield "all", opts + ["-o", objdir_rel] + stems, cwd
    else:
        for o, r in zip(g["objs"], rel):
            stem = os.path.basename(o)[:-5]
            gcda = os.path.join(tree, o[:-5] + ".gcda")
            if kind in ("lcov", "gcovr") and not os.path.exists(gcda):
                continue  # lcov and gcovr run gcov once per .gcda file found
            data = gcda
            if kind == "each":
                yield stem, opts + [r], cwd
            elif kind == "lcov":
                yield stem, [data, "-o", objdir_abs] + opts, cwd
            elif kind == "gcovr":
                yield stem, [data] + opts + ["--object-directory", objdir_abs], cwd


# ---------------------------------------------------------------------------
# running a tool over a tree copy
# ---------------------------------------------------------------------------

def snapshot(tree):
    st = {}
    for d, dirs, files in os.walk(tree):
        for f in files:
            p = os.path.join(d, f)
            try:
                s = os.lstat(p)
            except FileNotFoundError:
                continue
            st[os.path.relpath(p, tree)] = (s.st_size, s.st_mtime_ns)
    return st


def fresh_copy(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    subprocess.run(["cp", "-a", src, dst], check=True)


def run_tool(tool_argv, tree_src, copy, out, groups, modes, timeout):
    """Run tool in a fresh copy of tree_src at `copy`; outputs to `out`.
    Returns number of invocations and a list of problems (stray files...)."""
    fresh_copy(tree_src, copy)
    before = snapshot(copy)
    problems = []
    n = 0
    for mode in modes:
        for g in groups:
            gid = group_id(g)
            for label, args, cwd in invocations(mode, g, copy):
                n += 1
                inv = os.path.join(out, mode, gid, label)
                os.makedirs(os.path.join(inv, "out"), exist_ok=True)
                pre = set(os.listdir(cwd))
                argv = tool_argv + args
                with open(os.path.join(inv, "cmd"), "w") as f:
                    f.write("cd %s && %s\n" % (shlex.quote(cwd), shlex.join(argv)))
                try:
                    r = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       timeout=timeout, check=False)
                    rc, so, se = r.returncode, r.stdout, r.stderr
                except subprocess.TimeoutExpired as e:
                    rc, so, se = "timeout", e.stdout or b"", e.stderr or b""
                except OSError as e:
                    rc, so, se = "exec-error", b"", str(e).encode()
                with open(os.path.join(inv, "stdout"), "wb") as f:
                    f.write(so)
                with open(os.path.join(inv, "stderr"), "wb") as f:
                    f.write(se)
                with open(os.path.join(inv, "rc"), "w") as f:
                    f.write(f"{rc}\n")
                for name in sorted(set(os.listdir(cwd)) - pre):
                    shutil.move(os.path.join(cwd, name), os.path.join(inv, "out", name))
    after = snapshot(copy)
    for p in sorted(set(after) - set(before)):
        problems.append(f"stray file written outside the working directory: {p}")
    for p in sorted(set(before) - set(after)):
        problems.append(f"file deleted from the tree: {p}")
    for p in sorted(set(before) & set(after)):
        if before[p] != after[p]:
            problems.append(f"file modified in the tree: {p}")
    shutil.rmtree(copy)
    return n, problems


# ---------------------------------------------------------------------------
# comparing outputs
# ---------------------------------------------------------------------------

def list_files(d):
    res = set()
    for dd, dirs, files in os.walk(d):
        for f in files:
            res.add(os.path.relpath(os.path.join(dd, f), d))
    return res


def json_first_diff(a, b, path="$"):
    if type(a) != type(b):
        return f"{path}: {type(a).__name__} {a!r:.80} != {type(b).__name__} {b!r:.80}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                return f"{path}.{k}: missing in reference"
            if k not in b:
                return f"{path}.{k}: missing in candidate"
            d = json_first_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = json_first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        return None
    return None if a == b else f"{path}: {a!r:.120} != {b!r:.120}"


def text_diff(a, b, name, maxlines=40):
    la = a.decode("utf-8", "replace").splitlines(keepends=True)
    lb = b.decode("utf-8", "replace").splitlines(keepends=True)
    d = list(difflib.unified_diff(la, lb, "reference/" + name, "candidate/" + name, n=2))
    if not d:
        return "    (files differ only in bytes not visible as text, e.g. a missing final newline)\n"
    more = len(d) - maxlines
    s = "".join("    " + l if l.endswith("\n") else "    " + l + "\n" for l in d[:maxlines])
    if more > 0:
        s += f"    ... ({more} more diff lines)\n"
    return s


def compare_dirs(ref, cand, ignore_stderr=False, strict_json=False, maxreport=20):
    """Compare two output directories. Returns (stats, failures, notes)."""
    fa, fb = list_files(ref), list_files(cand)
    stats = dict(gcov=0, json=0, stdout=0, other=0)
    failures, notes = [], []

    def fail(msg):
        failures.append(msg)

    for p in sorted(fa - fb):
        if p.endswith("/cmd"):
            continue
        fail(f"MISSING in candidate: {p}")
    for p in sorted(fb - fa):
        if p.endswith("/cmd"):
            continue
        fail(f"EXTRA in candidate (not produced by the reference): {p}")
    for p in sorted(fa & fb):
        base = os.path.basename(p)
        if base == "cmd":
            continue
        with open(os.path.join(ref, p), "rb") as f:
            a = f.read()
        with open(os.path.join(cand, p), "rb") as f:
            b = f.read()
        cmd = ""
        cmdfile = os.path.join(ref, os.path.dirname(p), "cmd")
        if "/out/" in p:
            cmdfile = os.path.join(ref, p.split("/out/")[0], "cmd")
        if os.path.exists(cmdfile):
            with open(cmdfile) as f:
                c = f.read().rstrip("\n")
            if len(c) > 400:
                c = c[:400] + f" ... [{len(c)} chars, see {cmdfile}]"
            cmd = "    reference command: " + c + "\n"
        if p.endswith(".json.gz"):
            stats["json"] += 1
            try:
                ja, jb = gzip.decompress(a), gzip.decompress(b)
            except Exception as e:  # noqa: BLE001
                fail(f"JSON {p}: cannot gunzip: {e}\n{cmd}")
                continue
            if ja == jb:
                continue
            try:
                oa, ob = json.loads(ja), json.loads(jb)
            except Exception as e:  # noqa: BLE001
                fail(f"JSON {p}: cannot parse: {e}\n{cmd}")
                continue
            if oa != ob:
                fail(f"JSON DIFFERS {p}: {json_first_diff(oa, ob)}\n{cmd}")
            elif strict_json:
                fail(f"JSON TEXT DIFFERS (parses equal) {p}\n{cmd}" + text_diff(ja, jb, p, 10))
            else:
                notes.append(f"json text differs but parses equal: {p}")
            continue
        if base.endswith(".gcov"):
            stats["gcov"] += 1
        elif base == "stdout":
            stats["stdout"] += 1
        else:
            stats["other"] += 1
        if a == b:
            continue
        if base == "stderr" and ignore_stderr:
            notes.append(f"stderr differs (ignored): {p}")
            continue
        what = {"stdout": "STDOUT", "stderr": "STDERR", "rc": "EXIT STATUS"}.get(base, "FILE")
        fail(f"{what} DIFFERS {p}\n{cmd}" + text_diff(a, b, p))
    return stats, failures, notes


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------

def cmd_groups(args):
    for tree in args.trees:
        groups = compute_groups(tree, args.gcov_dump)
        print(json.dumps(dict(tree=os.path.abspath(tree), groups=groups)))


def cmd_trees(args):
    for t in find_trees(args.workdir, args.gccver):
        print(t)


def cmd_compare(args):
    modes = args.modes.split(",") if args.modes else DEFAULT_MODES
    for m in modes:
        if m not in MODES:
            sys.exit(f"unknown mode {m!r}; known: {','.join(MODES)}")
    trees = find_trees(args.workdir, args.gccver)
    if not trees:
        sys.exit(f"no built trees (with {MARKER}) for gcc-{args.gccver} in {args.workdir}")
    scratch = os.path.abspath(args.scratch)
    os.makedirs(scratch, exist_ok=True)
    ref_argv = shlex.split(args.reference)
    tools = [("covkit", shlex.split(args.candidate), modes)]
    if args.threads:
        tmodes = [m for m in modes if MODES[m][0] in MULTI_OBJECT_KINDS]
        for t in args.threads.split(","):
            argv = shlex.split(args.candidate)
            tools.append((f"covkit-threads{t}", argv + ["--threads", t], tmodes))
    total = dict(gcov=0, json=0, stdout=0, other=0)
    nfail = 0
    t0 = time.time()
    for tree in trees:
        tname = os.path.basename(tree)
        groups = compute_groups(tree, args.gcov_dump)
        nobj = sum(len(g["objs"]) for g in groups)
        log(f"[{tname}] {nobj} objects in {len(groups)} groups (compile dir @ object dir):")
        for g in groups:
            log(f"    {g['cwd']:<12} @ {g['objdir']:<45} {len(g['objs']):4d} objects")
        copy = os.path.join(scratch, "tree")
        outs = {}
        for name, argv, tmodes in [("gcov", ref_argv, modes)] + tools:
            out = os.path.join(scratch, "out", tname, name)
            if os.path.exists(out):
                shutil.rmtree(out)
            t1 = time.time()
            n, problems = run_tool(argv, tree, copy, out, groups, tmodes, args.timeout)
            log(f"[{tname}] {name}: {n} invocations in {time.time() - t1:.1f}s ({shlex.join(argv)})")
            for p in problems:
                log(f"FAIL [{tname}] {name}: {p}")
                nfail += 1
            outs[name] = (out, tmodes)
        ref_out = outs["gcov"][0]
        for name, _argv, tmodes in tools:
            out = outs[name][0]
            for m in tmodes:
                stats, failures, notes = compare_dirs(
                    os.path.join(ref_out, m), os.path.join(out, m),
                    ignore_stderr=args.ignore_stderr, strict_json=args.strict_json)
                for k in total:
                    total[k] += stats[k]
                status = "ok" if not failures else f"{len(failures)} DIFFERENCES"
                log(f"[{tname}] {name} mode {m:<7} {MODES[m][1]}: {stats['gcov']} .gcov, "
                    f"{stats['json']} .json.gz, {stats['stdout']} stdout: {status}")
                for f in failures[:args.max_report]:
                    log(f"FAIL [{tname}] {name} {m}: {f.rstrip()}")
                if len(failures) > args.max_report:
                    log(f"  ... and {len(failures) - args.max_report} more differences in this mode")
                if notes:
                    log(f"  note: {len(notes)} notes, first: {notes[0]}")
                nfail += len(failures)
    print(f"realcode compare: {len(trees)} tree(s), {total['gcov']} .gcov files, "
          f"{total['json']} .gcov.json.gz files, {total['stdout']} stdout captures compared; "
          f"{nfail} difference(s) [{time.time() - t0:.0f}s]")
    if nfail:
        print(f"outputs kept in {scratch}/out (reference: gcov, candidate: covkit*; each "
              f"invocation dir has cmd, stdout, stderr, rc, out/)")
        return 1
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def cmd_script(args):
    """Emit a bash script that runs TOOL OPTS over every group (the way a user
    would: one invocation per object directory with all its objects), or with
    --json the same commands as a list of {"cwd", "argv"} (for a driver that
    times the tool's processes without a shell around them)."""
    groups = compute_groups(args.tree, args.gcov_dump)
    tree = os.path.abspath(args.run_in or args.tree)
    opts = shlex.split(args.opts)
    tool = shlex.split(args.tool)
    commands = []
    for g in groups:
        cwd = os.path.normpath(os.path.join(tree, g["cwd"]))
        rel = [os.path.relpath(os.path.join(tree, o), cwd) for o in g["objs"]]
        commands.append({"cwd": cwd, "argv": tool + opts + rel})
    if args.json:
        json.dump(commands, sys.stdout, indent=1)
        print()
        return
    lines = ["#!/bin/bash", "# generated by realcode.py script", "set -e"]
    for c in commands:
        lines.append(f"cd {shlex.quote(c['cwd'])} && {shlex.join(c['argv'])} >/dev/null 2>&1")
    print("\n".join(lines))


def cmd_cmpdirs(args):
    stats, failures, notes = compare_dirs(args.ref, args.cand, args.ignore_stderr, args.strict_json)
    for f in failures[:args.max_report]:
        print("FAIL " + f)
    print(f"{stats['gcov']} .gcov, {stats['json']} .json.gz compared; {len(failures)} difference(s)")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("compare")
    p.add_argument("--reference", required=True, help="reference command, e.g. gcov-12")
    p.add_argument("--candidate", required=True, help="candidate command, e.g. 'covkit gcov'")
    p.add_argument("--gcov-dump", required=True)
    p.add_argument("--gccver", required=True)
    p.add_argument("--scratch", required=True)
    p.add_argument("--modes", default="", help="comma separated; default: " + ",".join(DEFAULT_MODES))
    p.add_argument("--threads", default="", help="also run the candidate with --threads N (comma list) in multi-object modes")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--ignore-stderr", action="store_true")
    p.add_argument("--strict-json", action="store_true")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--max-report", type=int, default=10)
    p.add_argument("workdir")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("groups")
    p.add_argument("--gcov-dump", required=True)
    p.add_argument("trees", nargs="+")
    p.set_defaults(func=cmd_groups)

    p = sub.add_parser("trees")
    p.add_argument("--gccver")
    p.add_argument("workdir")
    p.set_defaults(func=cmd_trees)

    p = sub.add_parser("script")
    p.add_argument("--gcov-dump", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--opts", default="")
    p.add_argument("--run-in", help="path of the copy of the tree the script will run in")
    p.add_argument("--json", action="store_true", help="print the commands as JSON instead of a bash script")
    p.add_argument("tree")
    p.set_defaults(func=cmd_script)

    p = sub.add_parser("cmpdirs")
    p.add_argument("--ignore-stderr", action="store_true")
    p.add_argument("--strict-json", action="store_true")
    p.add_argument("--max-report", type=int, default=20)
    p.add_argument("ref")
    p.add_argument("cand")
    p.set_defaults(func=cmd_cmpdirs)

    args = ap.parse_args()
    sys.exit(args.func(args) or 0)


if __name__ == "__main__":
    main()
