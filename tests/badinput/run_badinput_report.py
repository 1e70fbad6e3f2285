#!/usr/bin/env python3
"""Hostile-input test of `covkit report` and `covkit merge`.

Four parts; every covkit run is under a timeout, runs go in parallel:

  objects     A build tree with a good object (ref_object.c) beside one
              damaged .gcno/.gcda pair: a stratified sample of the variants
              run_badinput.py makes (truncations, bit flips, word overwrites,
              lying lengths, fields out of range, empty files, directories),
              plus the saved crashers of both tests.  `covkit report --lcov
              --cobertura --json --html .` must exit 0, print only one-line
              "covkit report: " diagnostics naming a file, give the good
              object the lcov record and JSON entry of a clean run, and leave
              every output complete.
  tracefiles  Hostile lcov tracefiles and covkit JSON files: truncations at
              and inside every line, seeded line mutations, huge, negative and
              out-of-range numbers, line numbers past 2^23, no SF, no
              end_of_record, binary garbage, an empty file, a directory,
              /dev/zero, a FIFO, deep nesting, every member of a covkit JSON
              file with the wrong type.  `report --add-tracefile` and `merge
              -o` must exit 0 or 1; on 1 print exactly one line naming the
              file and the problem (with its line number for a tracefile) and
              leave the outputs as they were (absent, or the earlier files
              untouched); on 0 write complete, well-formed outputs.
  trees       `covkit merge -o OUT run1 run2` with a damaged .gcda in one tree
              (truncations, flips, targeted fields, stamp and version
              mismatches, a directory or FIFO in place of the file) and with
              things in OUT's way: on exit 1 one line naming the file, and OUT
              untouched (same listing and hashes, or still absent).
  full-disk   Outputs written to /dev/full: report exits 3 with one line per
              lost output naming /dev/full and "No space left on device", and
              still writes its other outputs; merge exits 1 with one line.

Plus every saved reproducer in crashers_report/ (see its README).  Not run
by default: --sparse-gib N adds a sparse tracefile of N GiB (a regular file
that is endless in practice, as /dev/zero is for a device).

Run by hand: run_badinput_report.py --covkit build/covkit --workdir /tmp/w
[--parts objects,tracefiles,trees,full-disk] [--only REGEX] [--keep-going];
the directories of failing cases stay in the workdir.
Exit status: 0 all good, 1 failures (listed), 77 no compiler available.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import math
import os
import random
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_badinput as rb  # noqa: E402  (its main() runs only as a script)

NOTES, DATA = rb.NOTES, rb.DATA  # the damaged pair: prog-p.gcno, prog-p.gcda
REF_C = r"""/* The good object beside every damaged one. */
static int clamp(int v, int lo, int hi)
{
  if (v < lo)
    return lo;
  if (v > hi)
    return hi;
  return v;
}

int main(void)
{
  int s = 0;
  for (int i = -5; i < 20; i++)
    s += clamp(i, 0, 9);
  return s == 0;
}
"""
REF_SOURCE = "ref_object.c"
REF_NOTES = "refprog-ref_object.gcno"
REF_DATA = "refprog-ref_object.gcda"

# An lcov 2 record appended to the good tracefile: FNL/FNA, exception
# branches, an end line in FN, checksums, VER, a comment.
EXTRA_RECORD = """TN:extra
SF:/nonexistent/src/extra.c
VER:abc123
# a comment
FNL:0,3,9
FNA:0,5,alias_one
FNA:0,5,alias_two
FN:12,14,other
FNDA:2,other
FNF:3
FNH:3
BRDA:4,e0,0,3
BRDA:4,0,1,-
BRF:2
BRH:1
DA:3,5,8d4a5e3b
DA:4,5
DA:12,2
LF:3
LH:3
end_of_record
"""

SANITIZER_MARKERS = rb.SANITIZER_MARKERS
MAX_RSS_MB = rb.MAX_RSS_MB
INT64_MAX = (1 << 63) - 1
LINE_LIMIT = 1 << 23  # the largest line number covkit accepts
SENTINEL = b"earlier output, must stay as it is\n"
TMP_MARK = ".covkit-tmp."  # in the names of atomic writes' temporary files and of HTML staging directories
HTML_MARKER = b"covkit html report: the files covkit wrote (it replaces them as a whole)\n"


# --------------------------------------------------------------------------
# Running covkit


class Result:
    def __init__(self, cmd, cwd, rc, stdout, stderr, elapsed, timed_out, rss_mb):
        self.cmd, self.cwd, self.rc, self.stdout = cmd, cwd, rc, stdout
        self.stderr = stderr.decode("utf-8", "replace")
        self.lines = self.stderr.splitlines()
        self.elapsed, self.timed_out, self.rss_mb = elapsed, timed_out, rss_mb

    def shown(self):
        return "cd %s && %s" % (shlex.quote(self.cwd), " ".join(shlex.quote(a) for a in ["covkit"] + self.cmd[1:]))


class Runner:
    def __init__(self, covkit, timeout):
        self.covkit, self.timeout = covkit, timeout

    def __call__(self, args, cwd):
        cmd = [self.covkit] + args
        rc, out, err, elapsed, timed_out, rss = rb.run_limited(cmd, cwd, self.timeout)
        return Result(cmd, cwd, rc, out, err, elapsed, timed_out, rss)


def fatal_problems(r):
    """Hangs, crashes, sanitizer reports, memory: nothing else is checked then."""
    if r.timed_out:
        return ["hang: no exit within %.0fs" % r.elapsed]
    marker = next((ln.strip() for ln in r.lines if any(m in ln for m in SANITIZER_MARKERS)), None)
    if r.rc < 0:
        why = marker or next((ln.strip() for ln in r.lines if "what()" in ln), "")
        return ["crash: killed by signal %d %s" % (-r.rc, why[:300])]
    if marker:
        return ["sanitizer: %s" % marker[:300]]
    if r.rss_mb > MAX_RSS_MB:
        return ["memory: used %d MB (limit %d MB)" % (r.rss_mb, MAX_RSS_MB)]
    return []


class Failures:
    def __init__(self):
        self.items = []  # (part, case, command, problem, stderr)
        self.runs = 0
        self.status = collections.Counter()  # (part, exit status) -> runs
        self.slowest = (0.0, "")

    def ran(self, part, r):
        self.runs += 1
        self.status[(part, "hang" if r.timed_out else r.rc)] += 1
        self.slowest = max(self.slowest, (r.elapsed, r.shown()))

    def add(self, part, case, r, problems):
        for p in problems:
            self.items.append((part, case, r.shown() if r else "", p, r.stderr[-800:] if r else ""))

    def merge(self, other):
        self.items += other.items
        self.runs += other.runs
        self.status.update(other.status)
        self.slowest = max(self.slowest, other.slowest)


# --------------------------------------------------------------------------
# Outputs: complete and well-formed, or untouched


LCOV_LINE = re.compile(r"^(TN|SF|FN|FNDA|FNF|FNH|BRDA|BRF|BRH|DA|LF|LH):(.*)$")
LCOV_ORDER = {"FN": 0, "FNDA": 1, "FNF": 2, "FNH": 3, "BRDA": 4, "BRF": 5, "BRH": 6, "DA": 7, "LF": 8, "LH": 9}


def lcov_problem(data):
    """Whether `data` is a complete tracefile as covkit writes it: each record
    TN, SF, FN*, FNDA*, FNF, FNH, [BRDA*, BRF, BRH], DA*, LF, LH, end_of_record,
    with totals matching the entries and every number in range."""
    if not data:
        return None
    if not data.endswith(b"end_of_record\n"):
        return "does not end with end_of_record and a newline (%r)" % data[-40:]
    try:
        text = data.decode("utf-8", "surrogateescape")
    except UnicodeDecodeError:
        return "cannot be decoded"
    state, last, counts = "start", -1, None
    for n, line in enumerate(text[:-1].split("\n"), 1):
        def bad(why):
            return "line %d %r: %s" % (n, line[:80], why)
        if line == "end_of_record":
            if state != "body" or last != LCOV_ORDER["LH"]:
                return bad("record ends before its LF/LH totals")
            state = "start"
            continue
        m = LCOV_LINE.match(line)
        if not m:
            return bad("not a line covkit writes")
        key, value = m.groups()
        if key == "TN":
            if state != "start":
                return bad("TN inside a record")
            state = "tn"
            continue
        if key == "SF":
            if state != "tn" or not value:
                return bad("SF not right after TN")
            state, last = "body", -1
            counts = collections.Counter()
            continue
        if state != "body":
            return bad("%s outside a record" % key)
        order = LCOV_ORDER[key]
        if order < last or (order == last and key not in ("FN", "FNDA", "BRDA", "DA")):
            return bad("%s out of order" % key)
        last = order
        fields = value.split(",")
        if key == "FN":
            if not re.match(r"^\d+$", fields[0]) or len(fields) < 2 or int(fields[0]) > LINE_LIMIT:
                return bad("bad FN")
            counts["fn"] += 1
        elif key == "FNDA":
            if not re.match(r"^\d+$", fields[0]) or len(fields) < 2 or int(fields[0]) > INT64_MAX:
                return bad("bad FNDA count")
            counts["fnda"] += 1
            counts["fnh"] += int(fields[0]) > 0
        elif key == "BRDA":
            if len(fields) != 4 or not all(re.match(r"^\d+$", f) for f in fields[:3]) or \
                    not re.match(r"^(\d+|-)$", fields[3]):
                return bad("bad BRDA")
            if not 1 <= int(fields[0]) <= LINE_LIMIT or (fields[3] != "-" and int(fields[3]) > INT64_MAX):
                return bad("BRDA number out of range")
            counts["br"] += 1
            counts["brh"] += fields[3] != "-" and int(fields[3]) > 0
        elif key == "DA":
            if len(fields) != 2 or not all(re.match(r"^\d+$", f) for f in fields):
                return bad("bad DA")
            if not 1 <= int(fields[0]) <= LINE_LIMIT or int(fields[1]) > INT64_MAX:
                return bad("DA number out of range")
            counts["da"] += 1
            counts["lh"] += int(fields[1]) > 0
        else:
            if not re.match(r"^\d+$", value):
                return bad("bad total")
            want = {"FNF": counts["fnda"], "FNH": counts["fnh"], "BRF": counts["br"], "BRH": counts["brh"],
                    "LF": counts["da"], "LH": counts["lh"]}[key]
            if int(value) != want:
                return bad("%s says %s, the record has %d" % (key, value, want))
            if key == "FNF" and counts["fn"] > counts["fnda"]:
                return bad("more FN than FNDA lines")
    return None if state == "start" else "ends inside a record"


def output_problems(cwd, outputs):
    """outputs: (kind, relative path) that a successful run must have written
    completely. kind: lcov, xml, json, html, text."""
    problems = []
    for kind, rel in outputs:
        path = os.path.join(cwd, rel)
        if kind == "html":
            index = os.path.join(path, "index.html")
            if not os.path.isfile(index):
                problems.append("output %s/index.html missing" % rel)
                continue
            for name in sorted(os.listdir(path)):
                if name.endswith(".html"):
                    data = open(os.path.join(path, name), "rb").read()
                    if not data.rstrip().endswith(b"</html>"):
                        problems.append("output %s/%s does not end with </html>" % (rel, name))
            continue
        if not os.path.isfile(path):
            problems.append("output %s missing" % rel)
            continue
        data = open(path, "rb").read()
        if kind == "lcov":
            why = lcov_problem(data)
            if why:
                problems.append("output %s is not a complete tracefile: %s" % (rel, why))
        elif kind == "xml":
            try:
                root = ET.fromstring(data)
                neg = next((e for e in root.iter() if any(v.startswith("-") for k, v in e.attrib.items()
                                                          if k in ("hits", "number", "covered", "count"))), None)
                if neg is not None:
                    problems.append("output %s has a negative count: <%s %s>" % (rel, neg.tag, neg.attrib))
            except ET.ParseError as e:
                problems.append("output %s is not well-formed XML: %s" % (rel, e))
        elif kind == "json":
            try:
                doc = json.loads(data)
                if not isinstance(doc, dict):
                    raise ValueError("not an object")
                neg = next((v for _, v in json_paths(doc) if type(v) is int and v < 0), None)
                if neg is not None:
                    problems.append("output %s has a negative number: %d" % (rel, neg))
            except ValueError as e:
                problems.append("output %s is not complete JSON: %s" % (rel, str(e)[:200]))
        elif kind == "text" and data and not data.endswith(b"\n"):
            problems.append("output %s does not end with a newline" % rel)
    return problems


def leftover_problems(cwd):
    """Temporary files of an atomic write must never stay behind."""
    out = []
    for root, dirs, files in os.walk(cwd):
        for n in dirs + files:
            if TMP_MARK in n:
                out.append("temporary file left behind: %s" % os.path.relpath(os.path.join(root, n), cwd))
    return out


def snapshot(path):
    """A comparable picture of a file or tree: names, types, contents (hashes)."""
    if not os.path.lexists(path):
        return None
    pic = {}

    def one(p, rel):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            pic[rel] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            pic[rel] = ("file", hashlib.sha256(open(p, "rb").read()).hexdigest())
        elif stat.S_ISDIR(st.st_mode):
            pic[rel] = ("dir",)
            for n in sorted(os.listdir(p)):
                one(os.path.join(p, n), rel + "/" + n)
        else:
            pic[rel] = ("special", stat.S_IFMT(st.st_mode))
    one(path, ".")
    return pic


def snapshot_diff(before, after):
    if before == after:
        return None
    if before is None:
        return "was absent, now exists (%s)" % ", ".join(sorted(after)[:4])
    if after is None:
        return "was removed"
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return "changed: %s" % ", ".join(changed[:6])


def write(path, data):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def lcov_records(data):
    """SF path -> the record's text from SF to end_of_record."""
    out = {}
    for rec in data.decode("utf-8", "replace").split("end_of_record\n"):
        m = re.search(r"^SF:(.*)$", rec, re.M)
        if m:
            out[m.group(1)] = rec[m.start():] + "end_of_record\n"
    return out


def json_entry(data, suffix):
    try:
        doc = json.loads(data)
        return next((f for f in doc.get("files", []) if f.get("absolute_path", f.get("path", "")).endswith(suffix)),
                    None)
    except (ValueError, AttributeError):
        return None


# --------------------------------------------------------------------------
# Part 1: report over a tree with damaged objects


def variant_key(v):
    def b(x):
        return x if isinstance(x, str) or x is None else bytes(x)
    return (b(v.gcno), b(v.gcda))


def category(name):
    tag, rest = name.split("-", 1)
    m = re.match(r"(gcno|gcda)-(trunc|flip|word)", rest) or re.match(r"[a-z]+", rest)
    return tag + "-" + (m.group(0) if m else rest)


def stratified(items, key, target):
    """About `target` items: from each group the same share (at least one),
    evenly spaced, in the original order."""
    groups = collections.OrderedDict()
    for it in items:
        groups.setdefault(key(it), []).append(it)
    lo, hi = 0.0, 1.0
    for _ in range(40):
        f = (lo + hi) / 2
        if sum(min(len(v), max(1, math.ceil(len(v) * f))) for v in groups.values()) > target:
            hi = f
        else:
            lo = f
    chosen = set()
    for v in groups.values():
        k = min(len(v), max(1, math.ceil(len(v) * lo)))
        for i in range(k):
            chosen.add(id(v[(i * len(v)) // k]))
    return [it for it in items if id(it) in chosen]


REPORT_SETS = [
    (["--lcov", "o.info", "--cobertura", "o.xml", "--json", "o.json", "--html", "h"],
     [("lcov", "o.info"), ("xml", "o.xml"), ("json", "o.json"), ("html", "h")]),
    (["--lcov", "o.info", "--cobertura", "o.xml", "--json", "o.json", "--html", "h", "--sonarqube", "o.sq.xml",
      "--coveralls", "o.cov.json", "--markdown", "o.md", "--show-instantiations", "-j", "1"],
     [("lcov", "o.info"), ("xml", "o.xml"), ("json", "o.json"), ("html", "h"), ("xml", "o.sq.xml"),
      ("json", "o.cov.json"), ("text", "o.md")]),
]


def materialize_objects(vdir, gcno, gcda, ref):
    os.makedirs(vdir, exist_ok=True)
    for name, content in ((NOTES, gcno), (DATA, gcda)):
        path = os.path.join(vdir, name)
        if content == "dir":
            os.makedirs(path, exist_ok=True)
        elif content is not None:
            write(path, content)
    write(os.path.join(vdir, REF_NOTES), ref[0])
    write(os.path.join(vdir, REF_DATA), ref[1])


def clean_reference(run, vdir, gcno, gcda, ref, ref_source, set_index):
    """The good object's lcov record and JSON entry in a clean run."""
    materialize_objects(vdir, gcno, gcda, ref)
    args, outputs = REPORT_SETS[set_index]
    r = run(["report"] + args + ["."], vdir)
    problems = fatal_problems(r) or output_problems(vdir, outputs)
    if r.rc != 0 or r.lines or problems:
        raise SystemExit("clean report run failed (status %d): %s\n%s" % (r.rc, problems, r.stderr))
    record = lcov_records(open(os.path.join(vdir, "o.info"), "rb").read()).get(ref_source)
    entry = json_entry(open(os.path.join(vdir, "o.json"), "rb").read(), "/" + REF_SOURCE)
    if record is None or entry is None:
        raise SystemExit("clean report run has no record for %s" % ref_source)
    shutil.rmtree(vdir)
    return record, entry


def object_message_problems(lines):
    """Every line "covkit report: ..." naming a file; none about the good object."""
    problems = []
    names = [NOTES, DATA]
    for ln in lines:
        if not ln.startswith("covkit report: "):
            problems.append("stderr line without the 'covkit report: ' prefix (multi-line message?): %r" % ln[:200])
        elif REF_NOTES in ln or REF_DATA in ln or REF_SOURCE in ln:
            problems.append("message about the good object: %r" % ln[:200])
        elif (not any(n in ln for n in names) and not re.match(r"^covkit report: /.*?: source not readable \(", ln)
              and not re.match(r"^covkit report: \d+ of \d+ objects (has|have) damaged or unreadable inputs", ln)):
            problems.append("message names no file: %r" % ln[:200])
    return problems


def run_object_variant(run, v, vdir, ref, ref_source, refs, set_index):
    fails = Failures()
    materialize_objects(vdir, v.gcno, v.gcda, ref)
    args, outputs = REPORT_SETS[set_index]
    r = run(["report"] + args + ["."], vdir)
    fails.ran("objects", r)
    problems = fatal_problems(r)
    if not problems:
        problems += object_message_problems(r.lines)
        if r.rc != 0:
            problems.append("exit status %d; the good object was read, so the report must complete (0)" % r.rc)
        problems += output_problems(vdir, outputs)
        problems += leftover_problems(vdir)
        info = os.path.join(vdir, "o.info")
        if os.path.isfile(info):
            record = lcov_records(open(info, "rb").read()).get(ref_source)
            if record != refs[set_index][0]:
                problems.append("the good object's lcov record differs from a clean run's" if record else
                                "the good object's lcov record is missing")
        js = os.path.join(vdir, "o.json")
        if os.path.isfile(js) and json_entry(open(js, "rb").read(), "/" + REF_SOURCE) != refs[set_index][1]:
            problems.append("the good object's JSON entry differs from a clean run's")
    fails.add("objects", v.name, r, problems)
    if not fails.items:
        shutil.rmtree(vdir, ignore_errors=True)
    return fails


# --------------------------------------------------------------------------
# Part 2: hostile tracefiles and covkit JSON


class TraceCase:
    """content: bytes, or a special: ("dir",), ("fifo",), ("path", "/dev/zero"),
    ("symlink", target), ("missing",), ("sparse", size).
    kind: "lcov" (errors must carry a line number), "json", or "other".
    expect: None (0 or 1), 0 or 1. min_line: the first line that differs
    from the good file (errors cannot be reported earlier). html: the report
    run always writes HTML too (else one case in four does)."""

    def __init__(self, name, content, kind="lcov", expect=None, min_line=1, runs=("report", "merge"), extra=None,
                 html=False):
        self.name, self.content, self.kind, self.expect, self.min_line = name, content, kind, expect, min_line
        self.runs = runs
        self.html = html
        self.extra = extra  # (relative path, bytes or ("fifo",)) created beside the input


def text_lines(data):
    """Lines as covkit counts them: split at \\n; a last piece without one counts."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def lcov_cases(good, rnd, mutations):
    cases = []
    lines = good.split(b"\n")[:-1]
    n = len(lines)
    cases.append(TraceCase("lcov-good", good, expect=0))
    # Truncations at every line boundary (every prefix of a good tracefile is
    # a good tracefile: an open record counts, as lcov has it), and inside
    # every line (the cut line may be an error, reported at its number).
    for k in range(n + 1):
        cases.append(TraceCase("lcov-trunc-line-%d" % k, b"".join(ln + b"\n" for ln in lines[:k]), expect=0))
    for k in range(n):
        ln = lines[k]
        for cut in sorted({max(1, len(ln) // 2), len(ln) - 1}):
            if 0 < cut < len(ln):
                cases.append(TraceCase("lcov-trunc-in-line-%d-at-%d" % (k + 1, cut),
                                       b"".join(x + b"\n" for x in lines[:k]) + ln[:cut], min_line=k + 1))
    # Seeded mutations of one line.
    numbers = ["", "-1", "-0", "0", "+1", " 1", "1 ", "01", "0x10", "1e3", "1.5", str(LINE_LIMIT), str(LINE_LIMIT + 1),
               str(1 << 31), str(1 << 32), str((1 << 32) + 1), str(INT64_MAX), str(INT64_MAX + 1), str(1 << 64),
               str((1 << 64) + 1), "9" * 40, "\u0661".encode().decode(), "1\x00", "NaN"]
    keys = ["SF", "DA", "BRDA", "FN", "FNDA", "FNL", "FNA", "FNF", "TN", "VER", "end_of_record", "da", "X-Y", "",
            "DA:DA", "SF:"]
    inserts = [b"\0", b"\r", b"\x1b[31m", b"\xff\xfe", b",", b":", b"\n", b"#", b" ", b",,", b"\t"]
    for i in range(mutations):
        k = rnd.randrange(n)
        ln = lines[k]
        new = list(lines)
        op = rnd.choice(["number", "number", "number", "key", "drop-field", "insert", "insert", "dup", "delete",
                         "swap", "cut", "garbage", "long-name"])
        first = k + 1
        if op == "number":
            parts = re.split(rb"([:,])", ln)
            idx = [j for j, p in enumerate(parts) if re.match(rb"^\d+$", p)]
            if not idx:
                op = "insert"
            else:
                j = rnd.choice(idx)
                parts[j] = rnd.choice(numbers).encode()
                new[k] = b"".join(parts)
        if op == "key":
            rest = ln.split(b":", 1)[1] if b":" in ln else ln
            key = rnd.choice(keys)
            new[k] = key.encode() + (b"" if key in ("end_of_record",) else b":" + rest)
        elif op == "drop-field":
            parts = ln.split(b",")
            if len(parts) > 1:
                del parts[rnd.randrange(len(parts))]
            new[k] = b",".join(parts)
        elif op == "insert":
            at = rnd.randrange(len(ln) + 1)
            new[k] = ln[:at] + rnd.choice(inserts) + ln[at:]
        elif op == "dup":
            new.insert(k, ln)
        elif op == "delete":
            del new[k]
        elif op == "swap":
            j = rnd.randrange(n)
            new[k], new[j] = new[j], new[k]
            first = min(k, j) + 1
        elif op == "cut":
            new[k] = ln[:rnd.randrange(len(ln) + 1)]
        elif op == "garbage":
            new[k] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 40))).replace(b"\n", b"")
        elif op == "long-name":
            head = ln.split(b",")[0] if b"," in ln else ln.split(b":")[0] + b":"
            new[k] = head + (b"," if b"," in ln else b"") + b"x" * rnd.choice([4096, 1 << 20])
        cases.append(TraceCase("lcov-mutate-%d-%s-line-%d" % (i, op, k + 1), b"\n".join(new) + b"\n",
                               min_line=first))

    def rec(*body, sf=b"/tmp/hostile.c"):
        return b"TN:\nSF:" + sf + b"\n" + b"".join(x + b"\n" for x in body) + b"end_of_record\n"

    # Numbers: huge, negative, past the line limit (line 3 is the bad one).
    big = str(INT64_MAX).encode()
    cases.append(TraceCase("lcov-counts-int64-max-added", rec(b"FN:1,f", b"FNDA:" + big + b",f", b"FNDA:" + big + b",f",
                                                               b"BRDA:1,0,0," + big, b"DA:1," + big, b"DA:1," + big),
                           expect=0))
    for label, line in (("count-2^63", b"DA:1," + str(INT64_MAX + 1).encode()),
                        ("count-2^64", b"DA:1," + str(1 << 64).encode()),
                        ("count-40-digits", b"DA:1," + b"9" * 40),
                        ("fnda-2^63", b"FNDA:" + str(INT64_MAX + 1).encode() + b",f"),
                        ("brda-2^64", b"BRDA:1,0,0," + str(1 << 64).encode()),
                        ("negative-line", b"DA:-1,1"),
                        ("negative-brda-block", b"BRDA:1,-1,0,1"), ("negative-fn-line", b"FN:-4,f"),
                        ("negative-fnl-index", b"FNL:-1,3"),
                        ("line-2^23+1", b"DA:%d,1" % (LINE_LIMIT + 1)), ("line-2^32+1", b"DA:%d,1" % ((1 << 32) + 1)),
                        ("line-2^64+1", b"DA:%d,1" % ((1 << 64) + 1)),
                        ("fn-line-2^23+1", b"FN:%d,f" % (LINE_LIMIT + 1)),
                        ("fn-end-2^23+1", b"FN:1,%d,f" % (LINE_LIMIT + 1)),
                        ("brda-line-2^32", b"BRDA:%d,0,0,1" % (1 << 32)),
                        ("fnl-line-2^23+1", b"FNL:0,%d" % (LINE_LIMIT + 1)),
                        ("fna-before-fnl", b"FNA:7,1,f"), ("da-one-field", b"DA:1"), ("brda-two-fields", b"BRDA:1,2"),
                        ("fn-no-name", b"FN:1,"), ("fnda-no-name", b"FNDA:1,"), ("nul-in-line", b"DA:1\0,1"),
                        ("sf-empty-later", b"SF:")):
        cases.append(TraceCase("lcov-" + label, rec(line), expect=1, min_line=3))
    # lcov reads a negative count (a counter that lost racing updates) as
    # not run, with a warning: so does covkit.
    for label, line in (("negative-count", b"DA:1,-5"), ("negative-fnda", b"FNDA:-3,f"),
                        ("negative-brda-taken", b"BRDA:1,0,0,-2")):
        cases.append(TraceCase("lcov-" + label, rec(b"FN:1,f", line), expect=0))
    cases.append(TraceCase("lcov-line-2^23", rec(b"DA:%d,1" % LINE_LIMIT, b"BRDA:%d,0,0,1" % LINE_LIMIT,
                                                 b"FN:%d,%d,f" % (LINE_LIMIT, LINE_LIMIT), b"FNDA:1,f"), expect=0))
    cases.append(TraceCase("lcov-many-lines-near-2^23",
                           rec(*[b"DA:%d,%d" % (LINE_LIMIT - i, i) for i in range(2000)]), expect=0))
    cases.append(TraceCase("lcov-100k-lines", rec(*[b"DA:%d,1" % i for i in range(1, 100001)]), expect=0))
    cases.append(TraceCase("lcov-2k-records", b"".join(rec(b"DA:1,1", sf=b"/tmp/f%d.c" % i) for i in range(2000)),
                           expect=0))
    # Structure.
    cases.append(TraceCase("lcov-da-before-sf", b"TN:\nDA:1,1\nSF:/tmp/a.c\nend_of_record\n", expect=1, min_line=2))
    cases.append(TraceCase("lcov-fn-before-sf", b"FN:1,f\n", expect=1))
    cases.append(TraceCase("lcov-sf-empty", b"SF:\nDA:1,1\n", expect=1))
    cases.append(TraceCase("lcov-no-end-of-record", good.replace(b"end_of_record\n", b""), expect=0))
    cases.append(TraceCase("lcov-only-end-of-record", b"end_of_record\n" * 5, expect=0))
    cases.append(TraceCase("lcov-tn-only", b"TN:x\n", expect=0))
    cases.append(TraceCase("lcov-empty", b""))
    cases.append(TraceCase("lcov-whitespace", b" \n\t\n\r\n\n"))
    cases.append(TraceCase("lcov-blank-lines", b"\n" * 100000))
    cases.append(TraceCase("lcov-crlf", good.replace(b"\n", b"\r\n"), expect=0))
    cases.append(TraceCase("lcov-bom", b"\xef\xbb\xbf" + good))
    cases.append(TraceCase("lcov-no-final-newline", good.rstrip(b"\n"), expect=0))
    cases.append(TraceCase("lcov-lowercase-key", rec(b"da:1,1"), expect=1, min_line=3))
    cases.append(TraceCase("lcov-no-colon", rec(b"DA 1,1"), expect=1, min_line=3))
    cases.append(TraceCase("lcov-good-then-nuls", good + b"\0" * 64, expect=1, min_line=n + 1))
    cases.append(TraceCase("lcov-good-then-garbage", good + bytes(range(256)), expect=1, min_line=n + 1))
    # Long and hostile names (accepted; every output must stay well-formed).
    cases.append(TraceCase("lcov-long-sf", rec(b"DA:1,1", sf=b"/tmp/" + b"d" * (1 << 20)), expect=0))
    # Names are rendered in the HTML (demangled, variants labelled): a 1 MB
    # one overflowed libiberty's stack arrays there.
    cases.append(TraceCase("lcov-long-fn-name", rec(b"FN:1," + b"f" * (1 << 20), b"FNDA:1," + b"f" * (1 << 20)),
                           expect=0, html=True))
    cases.append(TraceCase("lcov-long-mangled-fn-name",
                           rec(b"FN:1,_ZN" + b"f" * (1 << 20) + b"C1Ev", b"FNDA:1,_ZN" + b"f" * (1 << 20) + b"C1Ev"),
                           expect=0, html=True))
    cases.append(TraceCase("lcov-long-number", rec(b"DA:1," + b"1" * (1 << 20)), expect=1, min_line=3))
    cases.append(TraceCase("lcov-control-chars-in-names",
                           rec(b"FN:1,f\x1b[2J\x07\x08", b"FNDA:1,f\x1b[2J\x07\x08", b"DA:1,1",
                               sf=b"/tmp/\x1b[31mred\x07\x01\x7f.c"), expect=0))
    cases.append(TraceCase("lcov-xml-chars-in-names", rec(b"FN:1,<f&\"'>", b"FNDA:1,<f&\"'>", b"DA:1,1",
                                                          sf=b"/tmp/<a&b>\"'.c"), expect=0))
    cases.append(TraceCase("lcov-invalid-utf8-names", rec(b"FN:1,\xff\xc0\x80", b"FNDA:1,\xff\xc0\x80", b"DA:1,1",
                                                          sf=b"/tmp/\xed\xa0\x80\xff.c"), expect=0))
    # Sources that must not be read: devices, a FIFO, a directory.
    for label, sf in (("dev-zero", b"/dev/zero"), ("dev-stdin", b"/dev/stdin"), ("dir", b"/tmp"),
                      ("proc", b"/proc/self/mem"), ("root", b"/"), ("dot", b".")):
        cases.append(TraceCase("lcov-source-is-" + label, rec(b"DA:1,1", b"DA:2,0", sf=sf), expect=0))
    cases.append(TraceCase("lcov-source-is-fifo", None, expect=0, extra=("fifo-source", ("fifo",))))
    # Binary garbage.
    for s in range(3):
        r = random.Random("garbage-%d" % s)
        cases.append(TraceCase("lcov-binary-%d" % s, bytes(r.randrange(256) for _ in range(4096)), expect=1))
    cases.append(TraceCase("lcov-all-nul", b"\0" * 4096, expect=1))
    cases.append(TraceCase("lcov-gcda-bytes", None, expect=1))  # filled in by the caller
    return cases


def json_paths(doc, path=()):
    """(path, value) of every member and array element, depth first."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield path + (k,), v
            yield from json_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield path + (i,), v
            yield from json_paths(v, path + (i,))


def json_set(doc, path, value, delete=False):
    doc = json.loads(json.dumps(doc))
    obj = doc
    for p in path[:-1]:
        obj = obj[p]
    if delete:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return doc


def dumps(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def json_cases(good_json):
    cases = []
    doc = json.loads(good_json)
    cases.append(TraceCase("json-good", good_json, kind="json", expect=0))
    # Truncations of the compact file and of an indented copy at every line.
    for k in sorted({int(len(good_json) * i / 40) for i in range(40)} | {1, len(good_json) - 1}):
        cases.append(TraceCase("json-trunc-%d" % k, good_json[:k], kind="json",
                               expect=None if not k or good_json[:k].strip() == good_json.strip() else 1))
    pretty = json.dumps(doc, indent=1).encode()
    plines = pretty.split(b"\n")
    for k in range(1, len(plines), 3):
        cases.append(TraceCase("json-pretty-trunc-line-%d" % k, b"\n".join(plines[:k]) + b"\n", kind="json", expect=1,
                               runs=("report",) if k % 2 else ("merge",)))
    # Every kind of member with every wrong type (one run each, alternating
    # between report and merge: both use the same reader).
    seen = set()
    values = [None, True, "1", [], {}, 1.5, -1, 1 << 64, INT64_MAX + 1, 0, LINE_LIMIT + 1, "a\nb"]
    i = 0
    for path, _ in json_paths(doc):
        pattern = tuple("*" if isinstance(p, int) else p for p in path)
        if pattern in seen:
            continue
        seen.add(pattern)
        label = ".".join(str(p) for p in path)
        variants = [(repr(v), json_set(doc, path, v)) for v in values]
        if isinstance(path[-1], str):
            variants.append(("deleted", json_set(doc, path, None, delete=True)))
        for vlabel, d in variants:
            cases.append(TraceCase("json-type-%s=%s" % (label, vlabel), dumps(d), kind="json",
                                   runs=("report",) if i % 2 else ("merge",)))
            i += 1
    # Documents that are not covkit files.
    head = b'{"format":"covkit-coverage","format_version":1,"files":'
    for label, text in (("array", b"[]"), ("string", b'"covkit-coverage"'), ("number", b"1"), ("null", b"null"),
                        ("format-wrong", b'{"format":"lcov","format_version":1,"files":[]}'),
                        ("format-missing", b'{"format_version":1,"files":[]}'),
                        ("version-2", b'{"format":"covkit-coverage","format_version":2,"files":[]}'),
                        ("version-float", b'{"format":"covkit-coverage","format_version":1.0,"files":[]}'),
                        ("version-string", b'{"format":"covkit-coverage","format_version":"1","files":[]}'),
                        ("version-huge", b'{"format":"covkit-coverage","format_version":1e400,"files":[]}'),
                        ("nan", b'{"format":"covkit-coverage","format_version":NaN,"files":[]}'),
                        ("trailing-garbage", good_json + b" x"),
                        ("two-documents", good_json + good_json),
                        ("lone-surrogate", head + b'[{"path":"\\ud800"}]}'),
                        ("invalid-utf8", head + b'[{"path":"\xff\xfe"}]}'),
                        ("nul-in-path", head + b'[{"path":"a\\u0000b"}]}'),
                        ("raw-control-in-string", head + b'[{"path":"a\x01b"}]}'),
                        ("unterminated-string", head + b'[{"path":"ab'),
                        ("bom", b"\xef\xbb\xbf" + good_json)):
        cases.append(TraceCase("json-" + label, text, kind="json"))
    # Deep nesting, and brackets inside strings (which are not nesting).
    cases.append(TraceCase("json-deep-arrays", b"[" * 200000, kind="json", expect=1))
    cases.append(TraceCase("json-deep-objects", b'{"a":' * 200000, kind="json", expect=1))
    cases.append(TraceCase("json-deep-in-files", head + b"[" * 100000 + b"]" * 100000 + b"}", kind="json", expect=1))
    cases.append(TraceCase("json-deep-closed", b"{" + b'"x":' + b"[" * 5000 + b"]" * 5000 + b"}", kind="json",
                           expect=1))
    cases.append(TraceCase("json-brackets-in-strings",
                           head + b'[{"path":"/tmp/[[[[{{{{\\"[[[[' + b"[" * 1000 + b'"}]}', kind="json", expect=0))
    cases.append(TraceCase("json-escaped-quote-then-deep",
                           head + b'[{"path":"a\\\\"}],"x":' + b"[" * 100 + b"]" * 100 + b"}", kind="json", expect=1))
    cases.append(TraceCase("json-depth-16",
                           head + b'[{"path":"a","x":' + b"[" * 13 + b"]" * 13 + b"}]}", kind="json"))
    # Accepted documents with hostile strings and numbers: outputs must stay well-formed.
    f0 = {"path": "x.c", "absolute_path": "/tmp/x.c", "lines": [{"line": 1, "count": 1}],
          "functions": [{"name": "f", "start_line": 1, "execution_count": 1}]}

    def one_file(**kw):
        f = json.loads(json.dumps(f0))
        for k, v in kw.items():
            if k.startswith("fn_"):
                f["functions"][0][k[3:]] = v
            else:
                f[k] = v
        return dumps({"format": "covkit-coverage", "format_version": 1, "files": [f]})

    for label, kw in (("newline-in-path", {"path": "a\nDA:99,1\nb.c", "absolute_path": "/tmp/a\nDA:99,1\nb.c"}),
                      ("newline-in-function-name", {"fn_name": "f\nDA:99,7"}),
                      ("newline-in-function-name-end", {"fn_name": "f\nend_of_record\nSF:/etc/passwd"}),
                      ("cr-in-path", {"absolute_path": "/tmp/a\rb.c"}),
                      ("comma-in-function-name", {"fn_name": "f,1"}),
                      ("control-chars", {"absolute_path": "/tmp/\x1b[2J\x07.c", "fn_name": "\x1b]0;x\x07"}),
                      ("empty-function-name", {"fn_name": ""}),
                      ("max-numbers", {"lines": [{"line": LINE_LIMIT, "count": INT64_MAX},
                                                 {"line": LINE_LIMIT, "count": INT64_MAX}],
                                       "fn_execution_count": INT64_MAX, "fn_start_line": LINE_LIMIT}),
                      ("many-branches", {"lines": [{"line": 1, "count": 1,
                                                    "branches": [{"count": i} for i in range(20000)]}]}),
                      ("duplicate-lines", {"lines": [{"line": 5, "count": 2}] * 1000}),
                      ("absolute-path-dev-zero", {"absolute_path": "/dev/zero"})):
        cases.append(TraceCase("json-" + label, one_file(**kw), kind="json", expect=0))
    cases.append(TraceCase("json-duplicate-keys", b'{"format":"covkit-coverage","format":"covkit-coverage",'
                           b'"format_version":1,"files":[],"files":[]}', kind="json"))
    cases.append(TraceCase("json-empty", b"", kind="json"))
    return cases


def special_cases(sparse_size):
    cases = [
        TraceCase("special-directory", ("dir",), kind="other", expect=1),
        TraceCase("special-dev-zero", ("path", "/dev/zero"), kind="other", expect=1),
        TraceCase("special-dev-full", ("path", "/dev/full"), kind="other", expect=1),
        TraceCase("special-fifo", ("fifo",), kind="other", expect=1),
        TraceCase("special-symlink-to-dev-zero", ("symlink", "/dev/zero"), kind="other", expect=1),
        TraceCase("special-dangling-symlink", ("symlink", "/nonexistent/x.info"), kind="other", expect=1),
        TraceCase("special-missing", ("missing",), kind="other", expect=1),
        TraceCase("special-garbage-unknown-extension", ("named", "in.dat", bytes(range(256)) * 4), kind="other"),
    ]
    if sparse_size:
        cases.append(TraceCase("special-sparse-%dGiB" % (sparse_size >> 30), ("sparse", sparse_size), kind="other"))
    return cases


def place_input(case, cdir, ext):
    """Creates the hostile input in cdir; returns the argument naming it."""
    c = case.content
    name = "in" + ext
    path = os.path.join(cdir, name)
    if case.extra:
        rel, what = case.extra
        if what == ("fifo",):
            os.mkfifo(os.path.join(cdir, rel))
    if isinstance(c, bytes):
        write(path, c)
    elif c is None and case.extra and case.extra[1] == ("fifo",):
        write(path, b"TN:\nSF:%s\nDA:1,1\nDA:2,0\nend_of_record\n" % os.path.join(cdir, case.extra[0]).encode())
    elif c[0] == "dir":
        os.makedirs(os.path.join(path, "sub"))
    elif c[0] == "fifo":
        os.mkfifo(path)
    elif c[0] == "symlink":
        os.symlink(c[1], path)
    elif c[0] == "path":
        return c[1]
    elif c[0] == "missing":
        pass
    elif c[0] == "named":
        name = c[1]
        write(os.path.join(cdir, name), c[2])
    elif c[0] == "sparse":
        with open(path, "wb") as f:
            f.truncate(c[1])
    return name


def trace_message_problems(r, tool, arg, case, data):
    """Exit 1: exactly one line naming the input and the problem."""
    if len(r.lines) != 1:
        return ["exit 1 with %d stderr lines (want exactly one): %r" % (len(r.lines), r.stderr[:300])]
    ln = r.lines[0]
    prefix = "covkit %s: " % tool
    if not ln.startswith(prefix):
        return ["message without the %r prefix: %r" % (prefix, ln[:200])]
    if arg not in ln:
        return ["message does not name the file %s: %r" % (arg, ln[:200])]
    if case.kind == "other" or not isinstance(data, bytes):
        return [] if len(ln) > len(prefix + arg) + 4 else ["message names no problem: %r" % ln[:200]]
    m = re.match(r"^%s(.*?): (.+)$" % re.escape(prefix), ln)
    if not m or m.group(1) != arg:
        return ["message does not start with the file name %s: %r" % (arg, ln[:200])]
    # covkit's one rule (format/coverage_file_format.h): '{' is JSON; a first
    # content line "KEY:" is lcov; else the name decides.
    stripped = data.lstrip(b" \t\r\n")
    first_line = next((l.strip(b" \t\r") for l in data.split(b"\n") if l.strip(b" \t\r") and
                       not l.strip(b" \t\r").startswith(b"#")), b"")
    is_json = stripped.startswith(b"{") or (
        stripped != b"" and not re.match(rb"^[A-Z]+:", first_line) and arg.endswith(".json"))
    if is_json:
        return []
    m = re.match(r"^line (\d+): \S", m.group(2))
    if not m:
        return ["tracefile message without 'line N: ': %r" % ln[:200]]
    line = int(m.group(1))
    if not case.min_line <= line <= max(1, text_lines(data)):
        return ["message names line %d; the problem is on line %d or later, and the file has %d lines: %r" %
                (line, case.min_line, text_lines(data), ln[:200])]
    return []


def run_trace_case(run, case, cdir, index, good_lcov, good_json, objects):
    """Runs `which` of case.runs: "report" (every fifth time over a build tree
    too), "merge" (lcov or JSON out, by turns), "merge-lcov", "merge-json"."""
    fails = Failures()
    ext = ".json" if case.kind == "json" else ".info"
    good_name = "good" + ext
    good_data = good_json if case.kind == "json" else good_lcov
    for which in case.runs:
        rdir = os.path.join(cdir, which)
        os.makedirs(rdir)
        arg = place_input(case, rdir, ext)
        data = case.content if isinstance(case.content, bytes) else None
        if case.content is None and case.extra:
            data = open(os.path.join(rdir, arg), "rb").read()
        tool = which.split("-")[0]
        preexisting = (index + (tool == "merge")) % 2 == 0
        if which == "report":
            html = case.html or index % 4 == 0
            tree = index % 5 == 1
            if tree:
                for rel, content in objects.items():
                    write(os.path.join(rdir, rel), content)
            args = ["report", "-a", arg, "--lcov", "out.info", "--json", "out.json", "--cobertura", "out.xml"] + \
                (["--html", "h"] if html else []) + (["."] if tree else [])
            outputs = [("lcov", "out.info"), ("json", "out.json"), ("xml", "out.xml")] + \
                ([("html", "h")] if html else [])
        else:
            write(os.path.join(rdir, good_name), good_data)
            out = "merged.json" if (case.kind == "json") == (index % 3 != 0) else "merged.info"
            if which != "merge":
                out = "merged." + ("json" if which == "merge-json" else "info")
            ins = [good_name, arg] if index % 2 else [arg, good_name]
            args = ["merge", "-o", out] + ins
            outputs = [("json" if out.endswith(".json") else "lcov", out)]
        if preexisting:
            for kind, rel in outputs:
                if kind == "html":  # an earlier covkit site: its marker lists its index
                    write(os.path.join(rdir, rel, "index.html"), SENTINEL)
                    write(os.path.join(rdir, rel, ".covkit-html"), HTML_MARKER + b"index.html\n")
                else:
                    write(os.path.join(rdir, rel), SENTINEL)
        before = {rel: snapshot(os.path.join(rdir, rel)) for _, rel in outputs}
        r = run(args, rdir)
        fails.ran("tracefiles/" + tool, r)
        problems = fatal_problems(r)
        if not problems:
            if r.rc not in (0, 1):
                problems.append("exit status %d (want 0 or 1)" % r.rc)
            elif case.expect is not None and r.rc != case.expect:
                problems.append("exit status %d, want %d" % (r.rc, case.expect))
            if r.rc == 1:
                problems += trace_message_problems(r, tool, arg, case, data)
                for _, rel in outputs:
                    d = snapshot_diff(before[rel], snapshot(os.path.join(rdir, rel)))
                    if d:
                        problems.append("output %s written on error: %s" % (rel, d))
            elif r.rc == 0:
                for ln in r.lines:
                    if not ln.startswith("covkit %s: " % tool):
                        problems.append("stderr line without the prefix (multi-line message?): %r" % ln[:200])
                problems += output_problems(rdir, outputs)
            problems += leftover_problems(rdir)
        fails.add("tracefiles", case.name + "/" + which, r, problems)
    if not fails.items:
        shutil.rmtree(cdir, ignore_errors=True)
    return fails


# --------------------------------------------------------------------------
# Part 3: merging .gcda trees with damaged files


class TreeCase:
    """damaged: the file in run2 at obj/prog-p.gcda (bytes, "dir", ("fifo",),
    ("symlink", target)), None to leave run2's good copy; setup(cdir) makes
    other changes; out_pre: "none", "earlier" (an earlier merge result), or
    a callable making OUT; expect: None, 0 or 1; names: the path the message
    must contain."""

    def __init__(self, name, damaged=None, setup=None, out_pre="earlier", expect=None, names=None, order=0,
                 same_as_input=False):
        self.name, self.damaged, self.setup, self.out_pre = name, damaged, setup, out_pre
        self.expect, self.names, self.order, self.same_as_input = expect, names, order, same_as_input


OBJ_REL = "obj/" + DATA
REF_REL = "ref/" + REF_DATA


def build_tree(root, gcda, ref_gcda):
    write(os.path.join(root, OBJ_REL), gcda)
    write(os.path.join(root, REF_REL), ref_gcda)


def tree_cases(variants, target):
    out = []
    damage = [v for v in variants if v.gcda is not None and (v.gcno is None or not isinstance(v.gcno, str))]
    picked = stratified(damage, lambda v: category(v.name), target)
    for v in picked:
        if v.gcda == "dir":
            continue
        out.append(TreeCase("gcda-" + v.name, damaged=v.gcda, order=len(out) % 2,
                            out_pre="earlier" if len(out) % 3 else "none", names="run2/" + OBJ_REL))
    n = "run2/" + OBJ_REL
    out += [
        TreeCase("dir-as-gcda", damaged="dir", expect=1, names=n),
        TreeCase("dir-as-gcda-no-out", damaged="dir", expect=1, names=n, out_pre="none"),
        TreeCase("fifo-as-gcda", damaged=("fifo",), expect=1, names=n),
        TreeCase("symlink-to-dev-zero-as-gcda", damaged=("symlink", "/dev/zero")),
        TreeCase("dangling-symlink-as-gcda", damaged=("symlink", "/nonexistent.gcda")),
        TreeCase("empty-gcda", damaged=b"", expect=1, names=n),
        TreeCase("empty-gcda-first", damaged=b"", expect=1, names=n, order=1),
        TreeCase("symlink-loop", setup=lambda d: os.symlink("..", os.path.join(d, "run2", "obj", "loop")), expect=0),
        TreeCase("corrupt-only-in-one-tree", setup=lambda d: write(os.path.join(d, "run2", "only", "x.gcda"),
                                                                   b"garbage that is no gcda"), expect=0,
                 same_as_input=True),
        TreeCase("out-is-a-file", out_pre=lambda o: write(o, SENTINEL), expect=1, names="out"),
        TreeCase("out-obj-is-a-file", out_pre=lambda o: write(os.path.join(o, "obj"), SENTINEL), expect=1,
                 names="out/obj"),
        TreeCase("out-ref-is-a-file", out_pre=lambda o: (write(os.path.join(o, OBJ_REL), SENTINEL),
                                                         write(os.path.join(o, "ref"), SENTINEL)),
                 expect=1, names="out/ref"),
        TreeCase("out-ref-gcda-is-a-dir", out_pre=lambda o: (write(os.path.join(o, OBJ_REL), SENTINEL),
                                                             os.makedirs(os.path.join(o, REF_REL, "x"))),
                 expect=1, names="out/" + REF_REL),
        TreeCase("missing-input-tree", setup=lambda d: shutil.rmtree(os.path.join(d, "run2")), expect=1, names="run2"),
        TreeCase("empty-input-trees", setup=empty_trees, expect=1),
    ]
    return out


def empty_trees(cdir):
    for t in ("run1", "run2"):
        shutil.rmtree(os.path.join(cdir, t))
        os.makedirs(os.path.join(cdir, t))


def run_tree_case(run, case, cdir, good, ref_gcda, clean):
    fails = Failures()
    os.makedirs(cdir)
    build_tree(os.path.join(cdir, "run1"), good, ref_gcda)
    build_tree(os.path.join(cdir, "run2"), good, ref_gcda)
    target = os.path.join(cdir, "run2", OBJ_REL)
    d = case.damaged
    if d is not None:
        os.unlink(target)
        if d == "dir":
            os.makedirs(os.path.join(target, "x"))
        elif isinstance(d, tuple) and d[0] == "fifo":
            os.mkfifo(target)
        elif isinstance(d, tuple) and d[0] == "symlink":
            os.symlink(d[1], target)
        else:
            write(target, d)
    if case.setup:
        case.setup(cdir)
    out = os.path.join(cdir, "out")
    if case.out_pre == "earlier":
        for rel, data in clean.items():
            write(os.path.join(out, rel), data + b"earlier")
        write(os.path.join(out, "unrelated.txt"), SENTINEL)
    elif callable(case.out_pre):
        case.out_pre(out)
    before_out = snapshot(out)
    before_in = snapshot(os.path.join(cdir, "run2")) if os.path.isdir(os.path.join(cdir, "run2")) else None
    trees = ["run1", "run2"] if case.order == 0 else ["run2", "run1"]
    r = run(["merge", "-o", "out"] + trees, cdir)
    fails.ran("trees", r)
    problems = fatal_problems(r)
    if not problems:
        if r.rc not in (0, 1):
            problems.append("exit status %d (want 0 or 1)" % r.rc)
        elif case.expect is not None and r.rc != case.expect:
            problems.append("exit status %d, want %d" % (r.rc, case.expect))
        if r.rc == 1:
            if len(r.lines) != 1:
                problems.append("exit 1 with %d stderr lines (want one): %r" % (len(r.lines), r.stderr[:300]))
            elif not r.lines[0].startswith("covkit merge: ") or (case.names and case.names not in r.lines[0]):
                problems.append("message does not name %s: %r" % (case.names or "a file", r.lines[0][:200]))
            diff = snapshot_diff(before_out, snapshot(out))
            if diff:
                problems.append("output directory touched on error: %s" % diff)
        elif r.rc == 0:
            problems += ["stderr on success: %r" % ln[:200] for ln in r.lines]
            ref_out = os.path.join(out, REF_REL)
            if not os.path.isfile(ref_out) or open(ref_out, "rb").read() != clean[REF_REL]:
                problems.append("out/%s differs from the sum of the two good copies" % REF_REL)
            if not os.path.isfile(os.path.join(out, OBJ_REL)):
                problems.append("out/%s missing" % OBJ_REL)
            if case.same_as_input:
                src = os.path.join(cdir, "run2", "only", "x.gcda")
                dst = os.path.join(out, "only", "x.gcda")
                if not os.path.isfile(dst) or open(dst, "rb").read() != open(src, "rb").read():
                    problems.append("a file found in one tree only is not copied as it is")
        if before_in is not None and snapshot(os.path.join(cdir, "run2")) != before_in:
            problems.append("an input tree was changed")
        problems += leftover_problems(cdir)
    fails.add("trees", case.name, r, problems)
    if not fails.items:
        shutil.rmtree(cdir, ignore_errors=True)
    return fails


# --------------------------------------------------------------------------
# Part 4: a full disk


FULL_DISK = [
    # (name, report output options; the failing ones name /dev/full)
    ("lcov", ["--lcov", "/dev/full", "--cobertura", "o.xml", "--json", "o.json", "--html", "h"],
     [("xml", "o.xml"), ("json", "o.json"), ("html", "h")], 1),
    ("cobertura", ["--cobertura", "/dev/full", "--lcov", "o.info", "--json", "o.json"],
     [("lcov", "o.info"), ("json", "o.json")], 1),
    ("json", ["--json", "/dev/full", "--lcov", "o.info", "--markdown", "o.md"],
     [("lcov", "o.info"), ("text", "o.md")], 1),
    ("sonarqube", ["--sonarqube", "/dev/full", "--lcov", "o.info"], [("lcov", "o.info")], 1),
    ("coveralls", ["--coveralls", "/dev/full", "--lcov", "o.info"], [("lcov", "o.info")], 1),
    ("markdown", ["--markdown", "/dev/full", "--json", "o.json"], [("json", "o.json")], 1),
    ("two-outputs", ["--lcov", "/dev/full", "--json", "/dev/full", "--cobertura", "o.xml"], [("xml", "o.xml")], 2),
]


def run_full_disk(run, fdir, objects, good_lcov, good_json):
    fails = Failures()
    if not os.path.exists("/dev/full"):
        return fails
    for name, opts, outputs, nlost in FULL_DISK:
        d = os.path.join(fdir, "report-" + name)
        os.makedirs(d)
        for rel, data in objects.items():
            write(os.path.join(d, rel), data)
        r = run(["report"] + opts + ["."], d)
        fails.ran("full-disk", r)
        problems = fatal_problems(r)
        if not problems:
            if r.rc != 3:
                problems.append("exit status %d, want 3" % r.rc)
            if len(r.lines) != nlost:
                problems.append("%d stderr lines, want %d (one per lost output)" % (len(r.lines), nlost))
            for ln in r.lines:
                if not (ln.startswith("covkit report: ") and "/dev/full" in ln and "No space left on device" in ln):
                    problems.append("message does not name /dev/full and 'No space left on device': %r" % ln[:200])
            problems += output_problems(d, outputs) + leftover_problems(d)
        fails.add("full-disk", "report-" + name, r, problems)
    d = os.path.join(fdir, "report-html")
    os.makedirs(d)
    for rel, data in objects.items():
        write(os.path.join(d, rel), data)
    r = run(["report", "--html", "/dev/full", "--lcov", "o.info", "."], d)
    fails.ran("full-disk", r)
    problems = fatal_problems(r)
    if not problems:
        if r.rc != 3:
            problems.append("exit status %d, want 3" % r.rc)
        if len(r.lines) != 1 or not r.lines[0].startswith("covkit report: ") or "/dev/full" not in r.lines[0]:
            problems.append("want one line naming /dev/full: %r" % r.stderr[:300])
        problems += output_problems(d, [("lcov", "o.info")])
    fails.add("full-disk", "report-html", r, problems)
    for name, ins, fmt_opts in (("lcov", ["a.info", "b.info"], []),
                                ("json", ["a.json", "b.info"], ["--format", "json"])):
        d = os.path.join(fdir, "merge-" + name)
        os.makedirs(d)
        write(os.path.join(d, "a.info"), good_lcov)
        write(os.path.join(d, "b.info"), good_lcov)
        write(os.path.join(d, "a.json"), good_json)
        r = run(["merge", "-o", "/dev/full"] + fmt_opts + ins, d)
        fails.ran("full-disk", r)
        problems = fatal_problems(r)
        if not problems:
            if r.rc != 1:
                problems.append("exit status %d, want 1" % r.rc)
            if len(r.lines) != 1 or not r.lines[0].startswith("covkit merge: /dev/full") or \
                    "No space left on device" not in r.lines[0]:
                problems.append("want one line naming /dev/full and 'No space left on device': %r" % r.stderr[:300])
            problems += leftover_problems(d)
        fails.add("full-disk", "merge-" + name, r, problems)
    return fails


# --------------------------------------------------------------------------


def compile_ref(compiler, workdir):
    d = os.path.join(workdir, "ref-src")
    os.makedirs(d)
    write(os.path.join(d, REF_SOURCE), REF_C)
    p = subprocess.run([compiler, "--coverage", "-O0", "-o", "refprog", REF_SOURCE], cwd=d, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise SystemExit("%s failed on %s: %s" % (compiler, REF_SOURCE, p.stdout.decode(errors="replace")))
    subprocess.run(["./refprog"], cwd=d)
    return d, (open(os.path.join(d, REF_NOTES), "rb").read(), open(os.path.join(d, REF_DATA), "rb").read())


def saved_trace_crashers(crash_dir):
    """The tracefiles of crashers_report/: NAME.info or NAME.lcov (lcov), NAME.json.
    (Its NAME.gcno/NAME.gcda pairs go to the objects part through
    run_badinput.crasher_variants.)"""
    traces = []
    if not os.path.isdir(crash_dir):
        return traces
    for n in sorted(os.listdir(crash_dir)):
        ext = os.path.splitext(n)[1]
        if ext in (".info", ".lcov", ".json"):
            data = open(os.path.join(crash_dir, n), "rb").read()
            traces.append(TraceCase("crasher-" + n, data, kind="json" if ext == ".json" else "lcov",
                                    runs=("report", "merge-lcov", "merge-json")))
    return traces


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", required=True, help="path of the covkit executable")
    ap.add_argument("--workdir", required=True, help="scratch directory (emptied first)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--objects", type=int, default=300, help="damaged object pairs for the report part")
    ap.add_argument("--trees", type=int, default=90, help="damaged .gcda files for the tree-merge part")
    ap.add_argument("--mutations", type=int, default=150, help="seeded tracefile line mutations")
    ap.add_argument("--sparse-gib", type=int, default=0,
                    help="also try a sparse tracefile of this many GiB (0: not)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per covkit run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compilers", default="gcc-12,gcc-11")
    ap.add_argument("--crashers", default=os.path.join(HERE, "crashers_report"))
    ap.add_argument("--parts", default="objects,tracefiles,trees,full-disk")
    ap.add_argument("--only", help="run only the cases whose name matches this regular expression")
    ap.add_argument("--share", type=int, default=1, help="run one case in SHARE (the same ones each time)")
    ap.add_argument("--leak-check-every", type=int, default=1,
                    help="under ASan, look for leaks in one covkit run of every N")
    ap.add_argument("--keep-going", action="store_true", help="list every failure, not the first 40")
    args = ap.parse_args()
    rb.LEAK_CHECK_EVERY = args.leak_check_every

    covkit = os.path.abspath(args.covkit)
    workdir = os.path.abspath(args.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    started = time.monotonic()
    run = Runner(covkit, args.timeout)
    parts = set(args.parts.split(","))

    bases = {}
    for c in args.compilers.split(","):
        res, why = rb.compile_program(c, workdir)
        if res:
            bases[c] = res
        else:
            print("note: %s" % why)
    if not bases:
        print("SKIP: no compiler could build the test program")
        return 77
    compilers = list(bases)
    ref_dir, ref = compile_ref(compilers[0], workdir)
    ref_source = os.path.join(ref_dir, REF_SOURCE)
    first_dir, gcno0, gcda0 = bases[compilers[0]]

    # The variants of run_badinput.py, made the same way, without duplicates.
    rnd = random.Random(args.seed)
    ns = argparse.Namespace(flips=50, words=30)
    variants, seen = [], set()
    per_compiler = {}
    for c in compilers:
        d, gcno, gcda = bases[c]
        other = [bases[o][2] for o in compilers if o != c]
        tag = c.replace("gcc-", "g")
        vs = rb.generate(tag, gcno, gcda, other[0] if other else None, rnd, ns, c == compilers[0])
        per_compiler[c] = vs
        for v in vs:
            k = variant_key(v)
            if k not in seen:
                seen.add(k)
                variants.append(v)
    crash_objs = rb.crasher_variants(os.path.join(HERE, "crashers"), (gcno0, gcda0))
    crash_objs += rb.crasher_variants(args.crashers, (gcno0, gcda0))
    crash_traces = saved_trace_crashers(args.crashers)

    # References: a clean report, its tracefile and JSON as the good inputs.
    refs = [clean_reference(run, os.path.join(workdir, "clean-%d" % i), gcno0, gcda0, ref, ref_source, i)
            for i in range(len(REPORT_SETS))]
    cdir = os.path.join(workdir, "clean")
    materialize_objects(cdir, gcno0, gcda0, ref)
    r = run(["report", "--lcov", "o.info", "--json", "o.json", "."], cdir)
    good_lcov = open(os.path.join(cdir, "o.info"), "rb").read() + EXTRA_RECORD.encode()
    good_json = open(os.path.join(cdir, "o.json"), "rb").read()
    objects = {n: open(os.path.join(cdir, n), "rb").read() for n in (NOTES, DATA, REF_NOTES, REF_DATA)}
    # The sum of two good trees, for the tree part.
    tdir = os.path.join(workdir, "clean-trees")
    build_tree(os.path.join(tdir, "run1"), gcda0, ref[1])
    build_tree(os.path.join(tdir, "run2"), gcda0, ref[1])
    r = run(["merge", "-o", "out", "run1", "run2"], tdir)
    if r.rc != 0:
        raise SystemExit("clean tree merge failed: %s" % r.stderr)
    clean_trees = {rel: open(os.path.join(tdir, "out", rel), "rb").read() for rel in (OBJ_REL, REF_REL)}

    def only(name):
        return (not args.only or re.search(args.only, name)) and rb.in_share(name, args.share)

    jobs = []  # callables returning Failures
    if "objects" in parts:
        sample = stratified(variants, lambda v: category(v.name), args.objects) + crash_objs
        for i, v in enumerate(sample):
            if only(v.name):
                jobs.append(lambda v=v, i=i: run_object_variant(run, v, os.path.join(workdir, "obj", "%05d" % i), ref,
                                                                ref_source, refs, i % len(REPORT_SETS)))
    if "tracefiles" in parts:
        trnd = random.Random(args.seed + 1)
        cases = lcov_cases(good_lcov, trnd, args.mutations) + json_cases(good_json) + \
            special_cases(args.sparse_gib << 30) + crash_traces
        for c in cases:
            if c.name == "lcov-gcda-bytes":
                c.content = gcda0
        for i, c in enumerate(cases):
            if only(c.name):
                jobs.append(lambda c=c, i=i: run_trace_case(run, c, os.path.join(workdir, "trace", "%05d" % i), i,
                                                            good_lcov, good_json, objects))
    if "trees" in parts:
        first_variants = per_compiler[compilers[0]]
        for i, c in enumerate(tree_cases(first_variants, args.trees)):
            if only(c.name):
                jobs.append(lambda c=c, i=i: run_tree_case(run, c, os.path.join(workdir, "tree", "%05d" % i), gcda0,
                                                           ref[1], clean_trees))
    if "full-disk" in parts and (not args.only or re.search(args.only, "full-disk")):  # one case, always run
        jobs.append(lambda: run_full_disk(run, os.path.join(workdir, "full"), objects, good_lcov, good_json))

    total = Failures()
    counts = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for res in pool.map(lambda j: j(), jobs):
            total.merge(res)
    for part, *_ in total.items:
        counts[part] += 1
    elapsed = time.monotonic() - started
    print("badinput_report: %d cases, %d covkit runs, %d failures, %.1fs" %
          (len(jobs), total.runs, len(total.items), elapsed))
    by_part = collections.defaultdict(list)
    for (part, status), n in sorted(total.status.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        by_part[part].append("%s x%d" % (status, n))
    for part, st in sorted(by_part.items()):
        print("  %-18s exit status: %s" % (part, ", ".join(st)))
    print("  slowest run: %.1fs: %s" % total.slowest)
    if not total.items:
        return 0
    by_kind = {}
    for item in total.items:
        problem = item[3]
        key = item[0] + ": " + re.sub(r"\d+", "N", problem.split(":")[0] + ":" + problem.split(":", 1)[-1][:50])
        by_kind.setdefault(key, []).append(item)
    print("\nFailures by kind:")
    for key, items in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        print("  %4d x %s" % (len(items), key))
        print("         e.g. %s: %s" % (items[0][1], items[0][3][:200]))
    print("\nDetails (case directories are kept under %s):" % workdir)
    shown = total.items if args.keep_going else total.items[:40]
    for part, case, cmd, problem, err in shown:
        print("--- %s %s\n    %s\n    %s" % (part, case, cmd, problem))
        for ln in err.strip().splitlines()[-6:]:
            print("    | " + ln[:200])
    if len(shown) < len(total.items):
        print("... %d more (use --keep-going)" % (len(total.items) - len(shown)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
