#!/usr/bin/env python3
"""Hostile-input test of `covkit gcov`.

Compiles a small C program with gcc-12 and gcc-11 --coverage, runs it, and
feeds covkit hundreds of damaged variants of its .gcno/.gcda pair: every
truncation, seeded bit flips and word overwrites, lying record lengths,
impossible block counts, arcs and lines out of range, huge strings, extreme
counters, stamp and version mismatches, empty files, directories instead of
files, a missing source, an unwritable output directory, plus every saved
crasher in crashers/.  Each variant runs under a timeout and must:

  * not die by a signal, not hang, not trip ASan/UBSan (the test also runs
    in a -DCOVKIT_SANITIZE=ON build);
  * print only known diagnostics, each on ONE line naming its file; a corrupt
    body is reported as "<file>:corrupted at byte N: <what>" with N inside
    the file;
  * exit with gcov's status for the last problem reported (1 notes missing,
    2 not a gcov file, 3 version, 4 corrupt, 5 stamp mismatch, 6 output).

Exit status: 0 all good, 1 failures (listed), 77 no compiler available.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gcovfiles as g  # noqa: E402

PROGRAM_C = r"""#include "h.h"
static int never(int x) { return x + 1; }
static int sq(int x) { return x * x; }

int main(int argc, char **argv)
{
  (void)argv;
  int s = 0;
  for (int i = 0; i < 10; i++)
    s += sq(i);
  for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) s++;
  switch (argc) {
  case 1: s += twice(s); break;
  case 2: s--; break;
  default: s += never(s);
  }
  if (argc > 5)
    s += never(s);
  return s == 0;
}
"""
PROGRAM_H = r"""static inline int twice(int v)
{
  return v + v;
}
"""

NOTES = "prog-p.gcno"
DATA = "prog-p.gcda"

# Option sets: plain, JSON, branches, everything the text renderer knows.
OPTION_SETS = [
    [],
    ["-j"],
    ["-b"],
    ["-a", "-b", "-c", "-u", "-f", "-m", "-q", "-k", "-H", "-w", "-t"],
    ["-j", "-b", "-t"],
]

# Variants with a specific expected message run with these.
CHECKED_SETS = [[], ["-j"], ["-b"]]

SANITIZER_MARKERS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                     "terminate called", "MemorySanitizer", "ThreadSanitizer")

# A damaged file of a few KB must not make covkit use more than this.
MAX_RSS_MB = 1536

INT64_MAX = (1 << 63) - 1
INT64_MIN = 1 << 63  # as an unsigned bit pattern


class Variant:
    def __init__(self, name, gcno, gcda, source=True, option_sets=None, expect_rc=None, expect_re=None,
                 cwd_special=None, extra_args=None, same_output_as=None):
        self.name = name
        self.gcno = gcno  # bytes, None (absent) or "dir"
        self.gcda = gcda
        self.source = source
        self.option_sets = option_sets
        self.expect_rc = expect_rc
        self.expect_re = expect_re
        self.cwd_special = cwd_special  # "unwritable": run from a directory covkit cannot write
        self.extra_args = extra_args or []
        self.same_output_as = same_output_as  # (gcno, gcda) whose stdout this pair must reproduce


# --------------------------------------------------------------------------
# Variant generation


def mutate_word(data, off, value, fmt="<I"):
    out = bytearray(data)
    if off + 4 <= len(out):
        struct.pack_into(fmt, out, off, value & 0xFFFFFFFF)
    return bytes(out)


def targeted_notes(gcno, tag):
    """Variants of the notes file that change one field to a hostile value."""
    out = []
    img, records, fields = g.walk_notes(gcno)
    fmt = img.fmt
    by_kind = {}
    for f in fields:
        by_kind.setdefault(f.kind, []).append(f)

    def w(name, off, value, **kw):
        out.append((name, mutate_word(gcno, off, value, fmt), kw))

    # Record lengths: 0, huge, "negative", one more and one less than true.
    seen_tags = set()
    for rec in records:
        if rec.tag in seen_tags:
            continue
        seen_tags.add(rec.tag)
        lf = rec.fields[0]
        for label, v in (("zero", 0), ("huge", 0xFFFFFFFF), ("negative", 0x80000000), ("max", 0x7FFFFFFF),
                         ("plus1", rec.length + 1), ("minus1", rec.length - 1), ("filesize", len(gcno))):
            w("%s-len-%08x-%s@%d" % (tag, rec.tag, label, rec.off), lf.off, v)
    # Block counts.
    for f in by_kind.get("blocks", [])[:2]:
        for v in (0, 1, 2, 0xFFFFFFFF, 0x80000000, len(gcno) // 4 + 2, len(gcno) // 4 + 3):
            w("%s-blocks-%x@%d" % (tag, v, f.off), f.off, v)
    # Arc sources and destinations out of range, odd flags.
    for f in by_kind.get("arc_dst", [])[:3]:
        for v in (0, 1, 17, 18, 0xFFFFFFFF, 0x80000000):
            w("%s-arcdst-%x@%d" % (tag, v, f.off), f.off, v)
    for f in by_kind.get("arc_src", [])[:2]:
        for v in (0, 1, 0xFFFFFFFF):
            w("%s-arcsrc-%x@%d" % (tag, v, f.off), f.off, v)
    for f in by_kind.get("arc_flags", [])[:4]:
        for v in (0, 1, 2, 3, 7, 0xFFFFFFFF):
            w("%s-arcflags-%x@%d" % (tag, v, f.off), f.off, v)
    for f in by_kind.get("lines_block", [])[:2]:
        for v in (0, 1, 0xFFFFFFFF):
            w("%s-linesblock-%x@%d" % (tag, v, f.off), f.off, v)
    # Line numbers 0, 2^31, 2^32-1; function line ranges.
    for f in by_kind.get("line", [])[:3]:
        for v in (0, 1 << 31, 0xFFFFFFFF, 1 << 20):
            w("%s-line-%x@%d" % (tag, v, f.off), f.off, v)
    for k in ("start_line", "end_line", "start_column", "end_column"):
        for f in by_kind.get(k, [])[:2]:
            for v in (0, 1 << 31, 0xFFFFFFFF):
                w("%s-%s-%x@%d" % (tag, k, v, f.off), f.off, v)
    # Per-line tables: several sources or group functions, each with lines
    # near the largest line number a notes file may hold, from a file of 1 KB.
    limit = 1 << 23
    for label, group in (("sources", False), ("groups", True)):
        fns = []
        for i in range(4):
            src = "p.c" if group else "m%d.c" % i
            fns.append({"name": "m%d" % i, "source": src, "ident": 100 + i, "start_line": 1 if group else limit - 1,
                        "end_line": limit - 1, "blocks": 3, "arcs": [(0, 2, 4), (2, 1, 1)],
                        "lines": {2: [(src, [limit - 1])]}})
        notes = g.build_notes(fns, stamp=img.word(8), major=img.major, minor=((img.version >> 8) & 0xFF) - 0x30)
        out.append(("%s-many-%s-at-line-limit" % (tag, label), notes, {}))
    # One function of 300,000 blocks, an ARCS record per block: read in
    # linear time (a duplicate-record check that scanned the earlier records
    # took 15 s here, a hang by this test's timeout; gcov takes 0.1 s).
    chain = 300000
    notes = g.build_notes([{"name": "chain", "source": "chain.c", "ident": 9, "start_line": 1, "end_line": 2,
                            "blocks": chain, "arcs": [(b, b + 1, 0) for b in range(chain - 1)],
                            "lines": {2: [("chain.c", [2])]}}],
                          stamp=img.word(8), major=img.major, minor=((img.version >> 8) & 0xFF) - 0x30)
    out.append(("%s-arcs-record-per-block-%d" % (tag, chain), notes, {}))
    # Functions sharing a first line form a group whose lines gcov keeps per
    # function: give every function the same start line and odd end lines.
    for label, start, end_line in (("huge", 2, 0xFFFFFFF0), ("normal", 2, 3), ("backwards", 5, 1),
                                   ("zero", 0, 0), ("wide", 1, 1 << 20)):
        data = bytearray(gcno)
        for f in by_kind.get("start_line", []):
            struct.pack_into(fmt, data, f.off, start)
        for f in by_kind.get("end_line", []):
            struct.pack_into(fmt, data, f.off, end_line)
        out.append(("%s-group-%s" % (tag, label), bytes(data), {}))
    for f in by_kind.get("artificial", [])[:3]:
        w("%s-artificial@%d" % (tag, f.off), f.off, 1)
    # Strings with huge lengths (cwd, names, sources, and a few LINES file names).
    lines_files = [f.off for f in by_kind.get("string_len", []) if f.extra.get("what") == "lines_file"]
    lines_files_kept = set(lines_files[:2] + lines_files[-1:])
    for f in by_kind.get("string_len", []):
        what = f.extra.get("what")
        if what == "lines_file" and f.off not in lines_files_kept:
            continue
        for v in (0xFFFFFFFF, 0x7FFFFFFF, 0x40000000, 0):
            w("%s-strlen-%s-%x@%d" % (tag, what, v, f.off), f.off, v)
    # Identity fields: idents shared by two functions, changed checksums.
    idents = by_kind.get("ident", [])
    if len(idents) >= 2:
        first = img.word(idents[0].off)
        w("%s-dup-ident" % tag, idents[1].off, first)
    for f in by_kind.get("lineno_checksum", [])[:1]:
        w("%s-lineno-checksum" % tag, f.off, img.word(f.off) ^ 1)
    # Stamp and unexecuted-blocks flag.
    w("%s-stamp" % tag, 8, img.word(8) + 1, expect_rc=5, expect_re=r":stamp mismatch with notes file$")
    for f in by_kind.get("unexecuted", []):
        w("%s-unexec-0" % tag, f.off, 0)
    # Unknown tags in place of known ones.
    for rec in records[:3]:
        for v in (0, 0xFFFFFFFF, 0x01470000, g.TAG_OBJECT_SUMMARY, g.TAG_FUNCTION):
            w("%s-tag-%08x@%d" % (tag, v, rec.off), rec.off, v)
    # A function name with a newline and a corrupt arc: the message must stay one line.
    fn_recs = [r for r in records if r.tag == g.TAG_FUNCTION]
    if fn_recs and fn_recs[0].name_len >= 3:
        data = bytearray(gcno)
        data[fn_recs[0].name_off + 1] = 0x0A
        dst = by_kind["arc_dst"][0]
        struct.pack_into(fmt, data, dst.off, 0xFFFF)
        out.append(("%s-newline-name-bad-arc" % tag, bytes(data),
                    {"expect_rc": 4, "expect_re": r"^%s:corrupted at byte \d+: .*out of range" % re.escape(NOTES)}))
        data = bytearray(gcno)
        data[fn_recs[0].name_off + 1] = 0x1B  # an escape sequence in a name
        out.append(("%s-escape-name" % tag, bytes(data), {}))
    # Version words.
    for label, v, rc in (("gcc7", g.version_word(7, 3), 3), ("gcc15", g.version_word(15, 0), 3),
                         ("garbage", 0xDEADBEEF, 3)):
        out.append(("%s-version-%s" % (tag, label), mutate_word(gcno, 4, v, fmt),
                    {"expect_re": r"^%s:unsupported version" % re.escape(NOTES)}))
    # Swapped magic alone (the rest left in native order).
    out.append(("%s-magic-swapped-only" % tag, mutate_word(gcno, 0, g.NOTES_MAGIC, ">I"), {}))
    return out


def targeted_data(gcda, tag, other_version_gcda):
    out = []
    img, records, fields = g.walk_data(gcda)
    fmt = img.fmt
    by_kind = {}
    for f in fields:
        by_kind.setdefault(f.kind, []).append(f)

    def w(name, off, value, **kw):
        out.append((name, mutate_word(gcda, off, value, fmt), kw))

    counters = by_kind.get("counter", [])
    # Extreme counter values, all at once and one at a time.
    for label, vals in (("max", [INT64_MAX]), ("min", [INT64_MIN]), ("minus1", [(1 << 64) - 1]),
                        ("mixed", [INT64_MAX, INT64_MIN, (1 << 64) - 1, 1 << 62, (1 << 64) - (1 << 62)]),
                        ("halfmax", [INT64_MAX // 2 + 1])):
        data = bytearray(gcda)
        for i, f in enumerate(counters):
            struct.pack_into(fmt, data, f.off, vals[i % len(vals)] & 0xFFFFFFFF)
            struct.pack_into(fmt, data, f.off + 4, vals[i % len(vals)] >> 32)
        out.append(("%s-counters-%s" % (tag, label), bytes(data), {}))
    for i, f in enumerate(counters[:4]):
        for v in (INT64_MAX, INT64_MIN):
            data = bytearray(gcda)
            struct.pack_into(fmt, data, f.off, v & 0xFFFFFFFF)
            struct.pack_into(fmt, data, f.off + 4, v >> 32)
            out.append(("%s-counter%d-%x" % (tag, i, v), bytes(data), {}))
    # Record lengths.
    unit = img.unit()
    seen_tags = set()
    for rec in records:
        if rec.tag in seen_tags:
            continue
        seen_tags.add(rec.tag)
        lf = rec.fields[0]
        for label, v in (("zero", 0), ("huge", 0xFFFFFFFF), ("negative", 0x80000000), ("max", 0x7FFFFFFF),
                         ("plus1", rec.length + 1), ("minus1", rec.length - 1), ("plus8", rec.length + 8 // unit),
                         ("minus8", rec.length - 8 // unit), ("neg8", (-8 // unit) & 0xFFFFFFFF)):
            w("%s-len-%08x-%s@%d" % (tag, rec.tag, label, rec.off), lf.off, v)
    # Counter records whose count does not match the notes: one counter more / fewer.
    for rec in records:
        if rec.tag != g.TAG_ARC_COUNTERS or rec.length & 0x80000000:
            continue
        more = bytearray(gcda[:rec.end]) + struct.pack(fmt.replace("I", "Q"), 5) + bytearray(gcda[rec.end:])
        struct.pack_into(fmt, more, rec.off + 4, rec.length + 8 // unit)
        out.append(("%s-one-counter-more@%d" % (tag, rec.off), bytes(more), {"expect_re": r":profile mismatch for"}))
        if rec.end - rec.payload >= 8:
            fewer = bytearray(gcda[:rec.end - 8]) + bytearray(gcda[rec.end:])
            struct.pack_into(fmt, fewer, rec.off + 4, rec.length - 8 // unit)
            out.append(("%s-one-counter-fewer@%d" % (tag, rec.off), bytes(fewer),
                        {"expect_re": r":profile mismatch for"}))
        break
    # All-zero ("negative length") records of other counter kinds, as GCC 12
    # writes for -fprofile-generate: small, and with a huge claimed length.
    if records:
        end = records[-1].end
        for label, length in (("small", (-16 // unit) & 0xFFFFFFFF), ("huge", 0x80000000), ("max", 0xFFFFFFF8)):
            for ctag in (0x01A30000, 0x01AF0000, g.TAG_ARC_COUNTERS):
                data = bytearray(gcda[:end]) + struct.pack(fmt, ctag) + struct.pack(fmt, length) + bytearray(gcda[end:])
                out.append(("%s-allzero-%08x-%s" % (tag, ctag, label), bytes(data), {}))
    # Identity: unknown ident, checksum mismatch, placeholder, summary fields.
    for f in by_kind.get("ident", [])[:2]:
        w("%s-ident-unknown@%d" % (tag, f.off), f.off, 0x5EED)
    for f in by_kind.get("cfg_checksum", [])[:1]:
        w("%s-cfg-checksum" % tag, f.off, img.word(f.off) ^ 0x100, expect_re=r":profile mismatch for")
    for f in by_kind.get("runs", []):
        for v in (0, 0xFFFFFFFF):
            w("%s-runs-%x" % (tag, v), f.off, v)
    w("%s-stamp" % tag, 8, img.word(8) ^ 0x10, expect_rc=5, expect_re=r"^%s:stamp mismatch with notes file$" % re.escape(DATA))
    for label, v in (("gcc7", g.version_word(7, 3)), ("gcc15", g.version_word(15, 0)), ("garbage", 0x00FF00FF)):
        w("%s-version-%s" % (tag, label), 4, v, expect_rc=3, expect_re=r"^%s:unsupported version" % re.escape(DATA))
    # The other supported version's data file with this version's notes.
    if other_version_gcda is not None:
        out.append(("%s-other-compilers-gcda" % tag, other_version_gcda, {"expect_re": r":version '.{4}', prefer version"}))
    # Same layout, other version number: "version ..., prefer version ...".
    other = g.version_word(img.major, (((img.version >> 8) & 0xFF) - ord("0") + 1) % 10)
    w("%s-other-minor-version" % tag, 4, other, expect_re=r"^%s:version '.{4}', prefer version '.{4}'$" % re.escape(DATA))
    return out


def file_level_variants(tag, gcno, gcda):
    out = []
    big_endian = (g.swap_byte_order(gcno, g.NOTES_MAGIC), g.swap_byte_order(gcda, g.DATA_MAGIC))
    out.append(Variant("%s-big-endian" % tag, big_endian[0], big_endian[1], expect_rc=0, same_output_as=(gcno, gcda),
                       option_sets=[["-t"], ["-b", "-a", "-t"], ["-j", "-b", "-t"]]))
    out.append(Variant("%s-empty-gcno" % tag, b"", gcda, expect_rc=None,
                       expect_re=r"^%s:not a gcov notes file$" % re.escape(NOTES)))
    out.append(Variant("%s-empty-gcda" % tag, gcno, b"", expect_re=r"^%s:not a gcov data file$" % re.escape(DATA)))
    out.append(Variant("%s-empty-both" % tag, b"", b""))
    # Without notes the data file's stamp cannot match either (gcov says so too).
    # gcov opens a directory and finds no magic in it: "not a ... file".
    out.append(Variant("%s-gcno-is-dir" % tag, "dir", gcda,
                       expect_re=r"^%s:not a gcov notes file$" % re.escape(NOTES)))
    out.append(Variant("%s-gcda-is-dir" % tag, gcno, "dir", expect_rc=2,
                       expect_re=r"^%s:not a gcov data file$" % re.escape(DATA)))
    out.append(Variant("%s-no-gcno" % tag, None, gcda, expect_re=r"^%s:cannot open notes file$" % re.escape(NOTES)))
    out.append(Variant("%s-no-files" % tag, None, None, expect_rc=1))
    out.append(Variant("%s-no-gcda" % tag, gcno, None, expect_rc=0))
    out.append(Variant("%s-names-swapped" % tag, gcda, gcno, expect_rc=2,
                       expect_re=r"^%s:not a gcov notes file$" % re.escape(NOTES)))
    out.append(Variant("%s-gcno-twice" % tag, gcno, gcno, expect_rc=2,
                       expect_re=r"^%s:not a gcov data file$" % re.escape(DATA)))
    rnd = random.Random(tag)
    out.append(Variant("%s-random-bytes" % tag, bytes(rnd.randrange(256) for _ in range(300)),
                       bytes(rnd.randrange(256) for _ in range(100)), expect_rc=2))
    out.append(Variant("%s-magic-only" % tag, gcno[:4], gcda[:4], expect_rc=4))
    out.append(Variant("%s-missing-source" % tag, gcno, gcda, source=False, expect_rc=0,
                       expect_re=r"^Cannot open source file p\.c$", option_sets=[[], ["-b"]]))
    out.append(Variant("%s-missing-source-json" % tag, gcno, gcda, source=False, expect_rc=0, option_sets=[["-j"]]))
    out.append(Variant("%s-unwritable-output" % tag, gcno, gcda, cwd_special="unwritable", expect_rc=6,
                       option_sets=[[], ["-j"]]))
    # A directory where the output goes: gcov's open fails, so it prints no
    # "Creating" line and says it could not open the file.
    out.append(Variant("%s-gcov-output-is-dir" % tag, gcno, gcda, cwd_special="output-dirs", expect_rc=6,
                       expect_re=r"^Could not open output file 'p\.c\.gcov'$", option_sets=[[]]))
    out.append(Variant("%s-json-output-is-dir" % tag, gcno, gcda, cwd_special="output-dirs", expect_rc=6,
                       expect_re=r"^Cannot open JSON output file prog-p\.gcov\.json\.gz$", option_sets=[["-j"]]))
    out.append(Variant("%s-two-inputs" % tag, gcno, gcda, extra_args=["../good/" + DATA],
                       option_sets=[[], ["-j"], ["-b", "-t"]]))
    return out


def generate(tag, gcno, gcda, other_gcda, rnd, args, thorough):
    """All variants of one compiler's pair. `thorough` (the first compiler)
    truncates the notes at every 4-byte boundary and the data at every byte;
    the others at a coarser stride, to keep the whole test under a minute
    with the sanitizers on."""
    variants = []
    notes_stride, data_stride = (4, 1) if thorough else (24, 8)
    # The unmodified pair is the baseline: no diagnostics, status 0.
    variants.append(Variant("%s-baseline" % tag, gcno, gcda, expect_rc=0, option_sets=OPTION_SETS))
    # Truncations: the notes file at every 4-byte boundary, the small data file at every byte.
    for n in range(0, len(gcno), notes_stride):
        variants.append(Variant("%s-gcno-trunc-%d" % (tag, n), gcno[:n], gcda))
    for n in range(0, len(gcda), data_stride):
        variants.append(Variant("%s-gcda-trunc-%d" % (tag, n), gcno, gcda[:n]))
    # Seeded random damage.
    for i in range(args.flips):
        which = rnd.random() < 0.65
        base = gcno if which else gcda
        data = bytearray(base)
        for _ in range(rnd.choice((1, 1, 1, 2, 3))):
            pos = rnd.randrange(len(data))
            data[pos] ^= 1 << rnd.randrange(8)
        name = "%s-%s-flip-%d" % (tag, "gcno" if which else "gcda", i)
        variants.append(Variant(name, bytes(data) if which else gcno, gcda if which else bytes(data)))
    interesting = [0, 1, 2, 3, 4, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x10000, 0x01000000,
                   g.TAG_FUNCTION, g.TAG_BLOCKS, g.TAG_ARCS, g.TAG_LINES, g.TAG_ARC_COUNTERS, g.TAG_OBJECT_SUMMARY]
    for i in range(args.words):
        which = rnd.random() < 0.6
        base = gcno if which else gcda
        data = bytearray(base)
        aligned = rnd.random() < 0.7
        pos = rnd.randrange(0, len(data) - 3)
        if aligned:
            pos &= ~3
        value = rnd.choice(interesting) if rnd.random() < 0.7 else rnd.getrandbits(32)
        struct.pack_into("<I", data, pos, value)
        name = "%s-%s-word-%d" % (tag, "gcno" if which else "gcda", i)
        variants.append(Variant(name, bytes(data) if which else gcno, gcda if which else bytes(data)))
    # Targeted single-field changes.
    for name, data, kw in targeted_notes(gcno, tag):
        variants.append(Variant(name, data, gcda, option_sets=CHECKED_SETS if kw.get("expect_re") else None, **kw))
    for name, data, kw in targeted_data(gcda, tag, other_gcda):
        variants.append(Variant(name, gcno, data, option_sets=CHECKED_SETS if kw.get("expect_re") else None, **kw))
    variants += file_level_variants(tag, gcno, gcda)
    return variants


def crasher_variants(crash_dir, base):
    """Every saved crasher: NAME.gcno and/or NAME.gcda. Without NAME.gcno the
    test program's notes are used (crashers of the data reader); without
    NAME.gcda there is no data file."""
    out = []
    if not os.path.isdir(crash_dir):
        return out
    names = sorted({os.path.splitext(f)[0] for f in os.listdir(crash_dir) if f.endswith((".gcno", ".gcda"))})
    for n in names:
        p_no = os.path.join(crash_dir, n + ".gcno")
        p_da = os.path.join(crash_dir, n + ".gcda")
        gcno = open(p_no, "rb").read() if os.path.exists(p_no) else base[0]
        gcda = open(p_da, "rb").read() if os.path.exists(p_da) else None
        out.append(Variant("crasher-" + n, gcno, gcda, option_sets=OPTION_SETS))
    return out


# --------------------------------------------------------------------------
# Running and checking


def message_patterns(notes_paths, data_paths):
    N = "(?:%s)" % "|".join(re.escape(p) for p in notes_paths)
    D = "(?:%s)" % "|".join(re.escape(p) for p in data_paths)
    return [
        (re.compile(r"^(%s):corrupted at byte (\d+): \S.*$" % N), 4, "notes-body"),
        (re.compile(r"^%s:corrupted: \S.*$" % N), 4, None),
        (re.compile(r"^%s:cannot open notes file$" % N), 1, None),
        (re.compile(r"^%s:not a gcov notes file$" % N), 2, None),
        (re.compile(r"^%s:unsupported version '.{4}' \(covkit reads GCC 8 to 14, and clang's '408\*'\)$" % N), 3, None),
        (re.compile(r"^%s:no functions found$" % N), None, None),
        (re.compile(r"^%s:'.*' lacks entry and/or exit blocks$" % N), None, None),
        (re.compile(r"^%s:'.*' has arcs to entry block$" % N), None, None),
        (re.compile(r"^%s:'.*' has arcs from exit block$" % N), None, None),
        (re.compile(r"^%s:no lines for '.*'$" % N), None, None),
        (re.compile(r"^(%s):corrupted at byte (\d+): \S.*$" % D), 4, "data-body"),
        (re.compile(r"^%s:corrupted: \S.*$" % D), 4, None),
        (re.compile(r"^%s:cannot open data file, assuming not executed$" % D), None, None),
        (re.compile(r"^%s:not a gcov data file$" % D), 2, None),
        (re.compile(r"^%s:unsupported version '.{4}' \(covkit reads GCC 8 to 14, and clang's '408\*'\)$" % D), 3, None),
        (re.compile(r"^%s:version '.{4}', prefer version '.{4}'$" % D), 3, None),
        (re.compile(r"^%s:stamp mismatch with notes file$" % D), 5, None),
        (re.compile(r"^%s:profile mismatch for '.*'$" % D), None, None),
        (re.compile(r"^'.*' file is already processed$"), None, None),
        (re.compile(r"^.*:source file is newer than notes file '.*'$"), None, None),
        (re.compile(r"^\(the message is displayed only once per source file\)$"), None, None),
        (re.compile(r"^Cannot open source file .*$"), None, None),
        (re.compile(r"^Could not open output file '.*'$"), 6, None),
        (re.compile(r"^Error writing output file '.*'$"), 6, None),
        (re.compile(r"^Cannot open JSON output file .*$"), 6, None),
        (re.compile(r"^Error writing JSON output file .*$"), 6, None),
    ]


def notes_major(gcno):
    """The GCC major version of a notes file whose header covkit can read, else None."""
    if not isinstance(gcno, (bytes, bytearray)) or len(gcno) < 16:
        return None
    for fmt in ("<I", ">I"):
        if struct.unpack_from(fmt, gcno, 0)[0] != g.NOTES_MAGIC:
            continue
        v = struct.unpack_from(fmt, gcno, 4)[0]
        c0, c1, c2 = (v >> 24) & 0xFF, (v >> 16) & 0xFF, (v >> 8) & 0xFF
        if not (0x41 <= c0 <= 0x5A and 0x30 <= c1 <= 0x39 and 0x30 <= c2 <= 0x39):
            return None
        major = (c0 - 0x41) * 10 + (c1 - 0x30)
        if not 8 <= major <= 14:
            return None
        pos = 16 if major >= 12 else 12
        if pos + 4 > len(gcno):
            return None
        n = struct.unpack_from(fmt, gcno, pos)[0]
        pos += 4 + (n if major >= 12 else 4 * n)
        return major if pos + 4 <= len(gcno) else None
    return None


def expected_status(codes, major):
    """gcov 12 exits with the last status set. With GCC 11 notes read last,
    covkit exits like gcov 11 (0) except for damaged files and lost output
    (2, 4, 6)."""
    if major >= 12:
        return codes[-1] if codes else 0
    damage = [c for c in codes if c in (2, 4, 6)]
    return damage[-1] if damage else 0


def check_run(variant, opts, rc, stdout, stderr, elapsed, timed_out, sizes, patterns, major, rss_mb):
    problems = []
    if timed_out:
        return ["hang: no exit within the time limit (%.1fs)" % elapsed]
    text = stderr.decode("utf-8", "replace")
    if rc < 0:
        why = next((ln.strip() for ln in text.splitlines() if "terminate called" in ln or "what()" in ln), "")
        return ["crash: killed by signal %d %s" % (-rc, why)]
    for m in SANITIZER_MARKERS:
        if m in text:
            first = next((ln for ln in text.splitlines() if m in ln), "")
            problems.append("sanitizer: %s" % first.strip()[:300])
            break
    if problems:
        return problems
    if rss_mb > MAX_RSS_MB:
        problems.append("memory: used %d MB (limit %d MB)" % (rss_mb, MAX_RSS_MB))
    codes = []
    for line in text.splitlines():
        for rx, code, kind in patterns:
            m = rx.match(line)
            if not m:
                continue
            if code is not None:
                codes.append(code)
            if kind:
                path, offset = m.group(1), int(m.group(2))
                size = sizes.get(path)
                if size is not None and offset > size:
                    problems.append("corrupt message names byte %d beyond the file (%d bytes): %r" % (offset, size, line))
            break
        else:
            problems.append("unexpected stderr line (multi-line or unknown message): %r" % line[:300])
    want = expected_status(codes, major)
    if not problems and rc != want:
        problems.append("exit status %d, but the problems reported (%s; GCC %d notes) call for %d" %
                        (rc, ",".join(map(str, codes)) or "none", major, want))
    if not 0 <= rc <= 6:
        problems.append("exit status %d outside gcov's 0..6" % rc)
    # expect_rc is gcov 12's status; with GCC 11 notes only damage statuses remain.
    expect_rc = variant.expect_rc
    if expect_rc is not None and major < 12 and expect_rc not in (2, 4, 6):
        expect_rc = 0
    if expect_rc is not None and rc != expect_rc:
        problems.append("expected exit status %d, got %d" % (expect_rc, rc))
    if variant.expect_re and not re.search(variant.expect_re, text, re.M):
        problems.append("expected a message matching %r" % variant.expect_re)
    return problems


def materialize(variant, vdir, source_dir):
    os.makedirs(vdir, exist_ok=True)
    for name, content in ((NOTES, variant.gcno), (DATA, variant.gcda)):
        path = os.path.join(vdir, name)
        if content == "dir":
            os.makedirs(path, exist_ok=True)
        elif content is not None:
            with open(path, "wb") as f:
                f.write(content)
    if variant.source:
        for src in ("p.c", "h.h"):
            shutil.copy(os.path.join(source_dir, src), os.path.join(vdir, src))
        # The notes no older than the sources they were copied after: when a
        # second ended between the two writes, gcov's "source file is newer
        # than notes file" came and went with the clock.
        for name in (NOTES, DATA):
            path = os.path.join(vdir, name)
            if os.path.isfile(path):
                os.utime(path)


# Under the sanitizers LeakSanitizer's scan at exit costs ~60 ms of each run's
# ~160 ms (it walks ASan's and UBSan's tens of MB of metadata); leaks are
# looked for in one run of every LEAK_CHECK_EVERY (set by --leak-check-every).
LEAK_CHECK_EVERY = 1
_runs_started = [0]
_runs_lock = threading.Lock()


def sanitizer_env():
    """The environment of the next covkit run: the leak check on or off."""
    if LEAK_CHECK_EVERY <= 1:
        return None
    with _runs_lock:
        n = _runs_started[0]
        _runs_started[0] += 1
    if n % LEAK_CHECK_EVERY == 0:
        return None
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join([o for o in env.get("ASAN_OPTIONS", "").split(":")
                                    if o and not o.startswith("detect_leaks=")] + ["detect_leaks=0"])
    return env


def in_share(name, share):
    """Whether a case belongs to the 1/share of all cases this run keeps: the
    same cases every time (a hash of the name), so a failure reproduces."""
    return share <= 1 or zlib.crc32(name.encode()) % share == 0


def run_limited(cmd, cwd, timeout):
    """Runs `cmd`; returns (status, stdout, stderr, seconds, timed out, peak RSS in MB).
    A negative status is the signal that ended it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=sanitizer_env())
        killed = []
        timer = threading.Timer(timeout, lambda: (killed.append(1), p.kill()))
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), elapsed, bool(killed), usage.ru_maxrss // 1024


def run_variant(covkit, variant, vdir, source_dir, option_sets, timeout, good_gcno):
    materialize(variant, vdir, source_dir)
    # The notes read last decide between gcov 12's and gcov 11's exit statuses.
    major = 12
    for gcno in [variant.gcno] + [good_gcno for _ in variant.extra_args]:
        m = notes_major(gcno)
        if m is not None:
            major = m
    failures = []
    runs = 0
    sizes = {}
    for name, content in ((NOTES, variant.gcno), (DATA, variant.gcda)):
        if isinstance(content, (bytes, bytearray)):
            sizes[name] = len(content)
            sizes[os.path.join(vdir, name)] = len(content)
    notes_paths = [NOTES, os.path.join(vdir, NOTES), "../good/" + NOTES]
    data_paths = [DATA, os.path.join(vdir, DATA), "../good/" + DATA]
    patterns = message_patterns(notes_paths, data_paths)
    for opts in option_sets:
        cwd = vdir
        target = DATA
        if variant.cwd_special == "unwritable":
            cwd = "/proc" if os.path.isdir("/proc/self") else vdir
            target = os.path.join(vdir, DATA)
        if variant.cwd_special == "output-dirs":
            for name in ("p.c.gcov", "prog-p.gcov.json.gz"):
                os.makedirs(os.path.join(vdir, name), exist_ok=True)
        cmd = [covkit, "gcov"] + opts + [target] + variant.extra_args
        rc, out, err, elapsed, timed_out, rss_mb = run_limited(cmd, cwd, timeout)
        runs += 1
        problems = check_run(variant, opts, rc, out, err, elapsed, timed_out, sizes, patterns, major, rss_mb)
        if variant.same_output_as and not problems:
            ref = Variant(variant.name + "-reference", *variant.same_output_as)
            ref_dir = vdir + "-reference"
            materialize(ref, ref_dir, source_dir)
            ref_rc, ref_out, _, _, _, _ = run_limited(cmd, ref_dir, timeout)
            shutil.rmtree(ref_dir, ignore_errors=True)
            if (ref_rc, ref_out) != (rc, out):
                problems.append("output differs from that of the original byte order")
        for problem in problems:
            failures.append((variant.name, " ".join(["covkit", "gcov"] + opts + [target] + variant.extra_args), problem,
                             err.decode("utf-8", "replace")[-600:]))
    shutil.rmtree(vdir, ignore_errors=True)
    return runs, failures


def compile_program(compiler, workdir):
    d = os.path.join(workdir, "base-" + compiler)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "p.c"), "w") as f:
        f.write(PROGRAM_C)
    with open(os.path.join(d, "h.h"), "w") as f:
        f.write(PROGRAM_H)
    if shutil.which(compiler) is None:
        return None, "%s not installed" % compiler
    p = subprocess.run("%s --coverage -O0 -o prog p.c && ./prog" % compiler, shell=True, cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        return None, "%s failed: %s" % (compiler, p.stdout.decode(errors="replace"))
    gcno = open(os.path.join(d, NOTES), "rb").read()
    gcda = open(os.path.join(d, DATA), "rb").read()
    return (d, gcno, gcda), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--covkit", required=True, help="path of the covkit executable")
    ap.add_argument("--workdir", required=True, help="scratch directory (emptied first)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--flips", type=int, default=50, help="bit-flip variants per compiler")
    ap.add_argument("--words", type=int, default=30, help="word-overwrite variants per compiler")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per covkit run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compilers", default="gcc-12,gcc-11")
    ap.add_argument("--crashers", default=os.path.join(HERE, "crashers"))
    ap.add_argument("--keep-going", action="store_true", help="list every failure, not the first 40")
    ap.add_argument("--only", help="run only the variants whose name matches this regular expression")
    ap.add_argument("--share", type=int, default=1, help="run one variant in SHARE (the same ones each time)")
    ap.add_argument("--leak-check-every", type=int, default=1,
                    help="under ASan, look for leaks in one covkit run of every N")
    args = ap.parse_args()
    global LEAK_CHECK_EVERY
    LEAK_CHECK_EVERY = args.leak_check_every

    covkit = os.path.abspath(args.covkit)
    workdir = os.path.abspath(args.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    started = time.monotonic()

    bases = {}
    for c in args.compilers.split(","):
        res, why = compile_program(c, workdir)
        if res:
            bases[c] = res
        else:
            print("note: %s" % why)
    if not bases:
        print("SKIP: no compiler could build the test program")
        return 77

    rnd = random.Random(args.seed)
    random.seed(args.seed)
    jobs = []  # (variant, source_dir, option_sets)
    compilers = list(bases)
    for c in compilers:
        d, gcno, gcda = bases[c]
        other = [bases[o][2] for o in compilers if o != c]
        tag = c.replace("gcc-", "g")
        for i, v in enumerate(generate(tag, gcno, gcda, other[0] if other else None, rnd, args, c == compilers[0])):
            sets = v.option_sets or [OPTION_SETS[i % len(OPTION_SETS)]]
            jobs.append((v, d, sets))
    first = bases[compilers[0]]
    for i, v in enumerate(crasher_variants(args.crashers, (first[1], first[2]))):
        jobs.append((v, first[0], v.option_sets))

    if args.only:
        jobs = [j for j in jobs if re.search(args.only, j[0].name)]
    jobs = [j for j in jobs if in_share(j[0].name, args.share)]

    # A valid pair beside every variant directory, for the two-inputs runs.
    good = os.path.join(workdir, "v", "good")
    os.makedirs(good)
    d0, gcno0, gcda0 = first
    for name, content in ((NOTES, gcno0), (DATA, gcda0)):
        with open(os.path.join(good, name), "wb") as f:
            f.write(content)
    for src in ("p.c", "h.h"):
        shutil.copy(os.path.join(d0, src), good)

    total_runs = 0
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_variant, covkit, v, os.path.join(workdir, "v", "%05d" % i), d, sets, args.timeout,
                               gcno0)
                   for i, (v, d, sets) in enumerate(jobs)]
        for fut in futures:
            runs, fails = fut.result()
            total_runs += runs
            failures += fails
    elapsed = time.monotonic() - started

    print("badinput: %d variants, %d covkit runs, %d failures, %.1fs" % (len(jobs), total_runs, len(failures), elapsed))
    if failures:
        by_kind = {}
        for name, cmd, problem, err in failures:
            key = re.sub(r"\d+", "N", problem.split(":")[0] + ":" + problem.split(":", 1)[-1][:60])
            by_kind.setdefault(key, []).append((name, cmd, problem, err))
        print("\nFailures by kind:")
        for key, items in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
            print("  %4d x %s" % (len(items), key))
            print("         e.g. %s: %s" % (items[0][0], items[0][2]))
        print("\nDetails:")
        shown = failures if args.keep_going else failures[:40]
        for name, cmd, problem, err in shown:
            print("--- %s\n    %s\n    %s" % (name, cmd, problem))
            tail = err.strip().splitlines()[-6:]
            for ln in tail:
                print("    | " + ln[:200])
        if len(shown) < len(failures):
            print("... %d more (use --keep-going)" % (len(failures) - len(shown)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
