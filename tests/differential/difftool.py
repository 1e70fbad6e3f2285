#!/usr/bin/env python3
"""Comparison half of the differential harness (called by run_case.sh).

For every option set in optsets.txt (and every mode: all objects on one
command line / one invocation per object) it makes a fresh copy of the
pristine build tree, runs the reference gcov in it, moves it away, makes
another fresh copy at the *same path*, runs `covkit gcov` there, and compares:

  * exit status, stdout and stderr of every invocation (byte-identical)
  * the set of files created / removed / modified in the tree
  * every created or modified file: byte-identical, except *.json.gz which
    are decompressed and compared as JSON data (key order ignored)

One python process per (case, compiler); everything else is fork/exec of
cp, gcov and covkit.
"""

import argparse
import difflib
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import zlib

DIFF_LINES = 60
RUN_TIMEOUT = 60


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--gccver", required=True)
    ap.add_argument("--gcov", required=True)
    ap.add_argument("--covkit", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--objects", required=True)
    ap.add_argument("--optsets", required=True)
    ap.add_argument("--rerun", default="")
    return ap.parse_args()


class OptSet:
    def __init__(self, name, opts, style, modes, lineno, check="exact"):
        self.check = check
        self.name = name
        self.opts = opts
        self.style = style
        self.modes = modes
        self.lineno = lineno


STYLES = {"gcda", "gcno", "obj", "stem", "src-o", "src-oobj", "cdbuild",
          "abs", "bogus", "none"}


def load_optsets(path):
    sets = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) not in (4, 5):
                sys.exit("%s:%d: expected 'name | options | style | modes [| check]'" % (path, n))
            check = parts[4] if len(parts) == 5 else "exact"
            if check not in ("exact", "status"):
                sys.exit("%s:%d: unknown check %r" % (path, n, check))
            name, opts, style, modes = parts[:4]
            if style not in STYLES:
                sys.exit("%s:%d: unknown style %r" % (path, n, style))
            modes = modes.split()
            for m in modes:
                if m not in ("all", "per"):
                    sys.exit("%s:%d: unknown mode %r" % (path, n, m))
            sets.append(OptSet(name, opts, style, modes, n, check))
    return sets


def strip_ext(p):
    d, b = os.path.split(p)
    if "." in b:
        b = b[: b.rindex(".")]
    return os.path.join(d, b) if d else b


def invocations(optset, mode, objects, build_abs, work_abs):
    """Return list of (cwd relative to work tree, argv-after-tool) or None
    when this (style, mode) combination does not apply to the case."""
    opts = shlex.split(optset.opts.replace("@B@", build_abs).replace("@W@", work_abs))
    style = optset.style
    stems = [strip_ext(o) for _, o in objects]

    def one(files, cwd="."):
        return [(cwd, opts + files)]

    if style == "none":
        return one([]) if mode == "all" else None

    per_obj = []  # list of (cwd, files) for each object
    for (src, obj), stem in zip(objects, stems):
        if style == "gcda":
            per_obj.append((".", [stem + ".gcda"]))
        elif style == "gcno":
            per_obj.append((".", [stem + ".gcno"]))
        elif style == "obj":
            per_obj.append((".", [obj]))
        elif style == "stem":
            per_obj.append((".", [stem]))
        elif style == "abs":
            per_obj.append((".", [os.path.join(work_abs, stem + ".gcda")]))
        elif style == "cdbuild":
            per_obj.append(("build", [os.path.relpath(stem, "build") + ".gcda"]))
        elif style == "bogus":
            per_obj.append((".", [stem + ".gcda"]))
        elif style == "src-o":
            per_obj.append((".", ["-o", os.path.dirname(obj), src]))
        elif style == "src-oobj":
            per_obj.append((".", ["-o", obj, src]))

    if mode == "per":
        if style == "bogus":
            return None
        return [(cwd, opts + files) for cwd, files in per_obj]

    # mode == "all": every object on one command line
    if style == "src-oobj":
        return None
    if style == "src-o":
        dirs = {os.path.dirname(o) for _, o in objects}
        if len(dirs) != 1:
            return None
        return one(["-o", dirs.pop()] + [s for s, _ in objects])
    files = [f for _, fs in per_obj for f in fs]
    cwd = per_obj[0][0]
    if style == "bogus":
        files = files[:1] + ["build/no_such_object.gcda"] + files[1:] + ["no_such_source.c"]
    return one(files, cwd)


def snapshot(root):
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in filenames:
            p = os.path.join(dirpath, fn)
            st = os.lstat(p)
            snap[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns, st.st_mode)
    return snap


def run_tool(prefix, invs, build, work, dest):
    if os.path.lexists(work):
        shutil.rmtree(work)
    subprocess.run(["cp", "-a", build, work], check=True)
    results = []
    for cwd, args in invs:
        try:
            p = subprocess.run(prefix + args, cwd=os.path.join(work, cwd),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
            results.append((p.returncode, p.stdout, p.stderr))
        except subprocess.TimeoutExpired as e:
            results.append(("TIMEOUT after %ds" % RUN_TIMEOUT, e.stdout or b"", e.stderr or b""))
        except OSError as e:
            results.append(("EXEC-ERROR %s" % e, b"", b""))
    os.rename(work, dest)
    return results


def vis(b):
    """bytes -> printable text lines (escape ESC / CR so diffs are readable)"""
    t = b.decode("utf-8", errors="replace")
    t = t.replace("\x1b", "^[").replace("\r", "^M")
    return t.splitlines(keepends=True)


def udiff(a_lines, b_lines, a_name, b_name):
    out = []
    for ln in difflib.unified_diff(a_lines, b_lines, a_name, b_name, n=3):
        if not ln.endswith("\n"):
            ln += "\n\\ No newline at end of file\n"
        out.append(ln)
        if len(out) >= DIFF_LINES:
            out.append("... (diff truncated at %d lines)\n" % DIFF_LINES)
            break
    return "".join(out)


def json_pretty(obj):
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False).splitlines(keepends=True)


def parse_json_stream(b):
    """gcov -t -j prints one JSON document per line; return list or None."""
    try:
        t = b.decode("utf-8")
        docs = [json.loads(ln) for ln in t.splitlines() if ln.strip()]
        return docs
    except (UnicodeDecodeError, ValueError):
        return None


def gunzip_json(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        data = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as e:
        return None, "not a valid gzip file (%s)" % e
    try:
        return json.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as e:
        return None, "gzip content is not valid JSON (%s)" % e


def compare_stream(what, a, b, ref_name, cov_name, problems):
    if a == b:
        return
    msg = "%s differs" % what
    da, db = parse_json_stream(a), parse_json_stream(b)
    if da is not None and db is not None and a.strip().startswith(b"{"):
        if da == db:
            msg += " (JSON data equal, only the bytes differ: key order / spacing / number format)"
            body = udiff(vis(a.replace(b", ", b",\n")), vis(b.replace(b", ", b",\n")),
                         ref_name, cov_name)
        else:
            msg += " (JSON data differs; showing pretty-printed, keys sorted)"
            body = udiff(json_pretty(da), json_pretty(db), ref_name, cov_name)
    else:
        body = udiff(vis(a), vis(b), ref_name, cov_name)
    problems.append((msg, body))


def compare_trees(pristine, ref_dir, cov_dir, ref_label, cov_label, problems):
    ref = snapshot(ref_dir)
    cov = snapshot(cov_dir)

    def changes(s):
        created = {p for p in s if p not in pristine}
        removed = {p for p in pristine if p not in s}
        modified = {p for p in s if p in pristine and s[p] != pristine[p]}
        return created, removed, modified

    rc, rr, rm = changes(ref)
    cc, cr, cm = changes(cov)
    for kind, a, b in (("created", rc, cc), ("removed", rr, cr), ("modified", rm, cm)):
        if a != b:
            lines = []
            for p in sorted(a - b):
                lines.append("  only %s %s: %s\n" % (ref_label, kind, p))
            for p in sorted(b - a):
                lines.append("  only %s %s: %s\n" % (cov_label, kind, p))
            problems.append(("set of %s files differs" % kind, "".join(lines[:DIFF_LINES])))

    for p in sorted((rc | rm) & (cc | cm)):
        pa, pb = os.path.join(ref_dir, p), os.path.join(cov_dir, p)
        if p.endswith(".json.gz"):
            ja, ea = gunzip_json(pa)
            jb, eb = gunzip_json(pb)
            if ea:
                problems.append(("file %s: reference output is broken: %s" % (p, ea), ""))
            elif eb:
                problems.append(("file %s: %s" % (p, eb), ""))
            elif ja != jb:
                problems.append(("file %s: JSON data differs (pretty-printed, keys sorted)" % p,
                                 udiff(json_pretty(ja), json_pretty(jb),
                                       "%s/%s" % (ref_label, p), "%s/%s" % (cov_label, p))))
            continue
        with open(pa, "rb") as f:
            a = f.read()
        with open(pb, "rb") as f:
            b = f.read()
        if a != b:
            problems.append(("file %s differs" % p,
                             udiff(vis(a), vis(b), "%s/%s" % (ref_label, p),
                                   "%s/%s" % (cov_label, p))))


def main():
    args = parse_args()
    objects = []
    with open(args.objects) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln:
                src, obj = ln.split("\t")
                objects.append((src, obj))

    optsets = load_optsets(args.optsets)
    # DIFF_ONLY_GCC<N> narrows one compiler's runs (test.sh: gcov 11's in the
    # plain pass), else DIFF_ONLY narrows all.
    only = os.environ.get("DIFF_ONLY_GCC%s" % args.gccver) or os.environ.get("DIFF_ONLY")
    if only:
        wanted = set(only.split(","))
        optsets = [o for o in optsets if o.name in wanted]
    fail_fast = os.environ.get("DIFF_FAIL_FAST") == "1"
    verbose = os.environ.get("DIFF_VERBOSE") == "1"
    max_items = int(os.environ.get("DIFF_MAX_FAILS", "3"))

    build = os.path.abspath(args.build)
    tmp = os.path.abspath(args.tmp)
    work = os.path.join(tmp, "w")
    pristine = snapshot(build)
    ref_prefix = [args.gcov]
    cov_prefix = [args.covkit, "gcov"]
    # Which gcov covkit imitates when no notes file tells it (e.g. none found).
    os.environ["COVKIT_GCOV_VERSION"] = str(args.gccver)
    ref_label = args.gcov
    cov_label = "covkit"
    test = "diff.gcc%s.%s" % (args.gccver, args.case)

    failed = []
    ran = 0
    for os_ in optsets:
        seen = []
        for mode in os_.modes:
            invs = invocations(os_, mode, objects, build, work)
            if invs is None or invs in seen:
                continue    # not applicable, or identical to the other mode
            seen.append(invs)
            ran += 1
            ref_dir = os.path.join(tmp, "ref")
            cov_dir = os.path.join(tmp, "cov")
            for d in (ref_dir, cov_dir):
                if os.path.lexists(d):
                    shutil.rmtree(d)
            ref_res = run_tool(ref_prefix, invs, build, work, ref_dir)
            cov_res = run_tool(cov_prefix, invs, build, work, cov_dir)

            problems = []
            for i, ((ra, oa, ea), (rb, ob, eb)) in enumerate(zip(ref_res, cov_res)):
                tag = "" if len(invs) == 1 else " of invocation %d" % (i + 1)
                if ra != rb:
                    problems.append(("exit status%s differs: %s=%s covkit=%s"
                                     % (tag, ref_label, ra, rb), ""))
                if os_.check == "status":
                    # Texts that name the program (version, usage) may differ;
                    # which stream carries text must not.
                    for what, x, y in (("stdout", oa, ob), ("stderr", ea, eb)):
                        if bool(x) != bool(y):
                            problems.append(("%s%s is empty for one tool only" % (what, tag),
                                             udiff(vis(x), vis(y), ref_label, "covkit")))
                    continue
                compare_stream("stdout" + tag, oa, ob, ref_label + "/stdout",
                               "covkit/stdout", problems)
                compare_stream("stderr" + tag, ea, eb, ref_label + "/stderr",
                               "covkit/stderr", problems)
            compare_trees(pristine, ref_dir, cov_dir, ref_label, cov_label, problems)

            if problems:
                first = not failed
                failed.append((os_.name, mode))
                cmds = []
                for cwd, a in invs:
                    c = " ".join(shlex.quote(x) for x in ["gcov"] + a)
                    cmds.append("    (cd %s && %s)" % ("<tree>" if cwd == "." else "<tree>/" + cwd, c))
                sys.stdout.write("FAIL %s: option set '%s' [%s] mode=%s (%s:%d)\n"
                                 % (test, os_.name, os_.opts, mode, os.path.basename(args.optsets), os_.lineno))
                if first or verbose:
                    sys.stdout.write("  case=%s compiler=gcc-%s\n  commands (gcov = %s vs %s gcov):\n%s\n"
                                     % (args.case, args.gccver, args.gcov, args.covkit,
                                        "\n".join(cmds)))
                    for msg, body in problems[:max_items]:
                        sys.stdout.write("  * %s\n" % msg)
                        if body:
                            sys.stdout.write(body if body.endswith("\n") else body + "\n")
                    if len(problems) > max_items:
                        sys.stdout.write("  ... and %d more differences (DIFF_MAX_FAILS)\n"
                                         % (len(problems) - max_items))
                else:
                    sys.stdout.write("  * %s (%d differences; DIFF_VERBOSE=1 for details)\n"
                                     % (problems[0][0], len(problems)))
                sys.stdout.flush()
                if os.environ.get("DIFF_KEEP") == "1":
                    keep = os.path.join(tmp, "fail.%s.%s" % (os_.name, mode))
                    os.rename(ref_dir, keep + ".ref")
                    os.rename(cov_dir, keep + ".covkit")
                if fail_fast:
                    break
            for d in (ref_dir, cov_dir):
                if os.path.lexists(d):
                    shutil.rmtree(d)
        if failed and fail_fast:
            break

    if failed:
        sys.stdout.write("FAILED %s: %d of %d option-set runs differ: %s\n"
                         % (test, len(failed), ran,
                            " ".join("%s/%s" % f for f in failed)))
        if args.rerun:
            sys.stdout.write("  reproduce (keeps both trees under the printed temp dir):\n"
                             "    DIFF_KEEP=1 DIFF_VERBOSE=1 DIFF_ONLY=%s %s\n"
                             % (",".join(sorted({f[0] for f in failed})), args.rerun))
        return 1
    sys.stdout.write("PASS %s: %d option-set runs identical\n" % (test, ran))
    return 0


if __name__ == "__main__":
    sys.exit(main())
