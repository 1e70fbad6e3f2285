"""Walks .gcno/.gcda images (GCC 8 to 14 layouts, either byte order) and
records where each field lives, so that hostile variants can be made by
changing exactly one field.  Used by run_badinput.py and fuzz/make_seeds.sh.
"""
import struct

NOTES_MAGIC = 0x67636E6F
DATA_MAGIC = 0x67636461
TAG_FUNCTION = 0x01000000
TAG_BLOCKS = 0x01410000
TAG_ARCS = 0x01430000
TAG_LINES = 0x01450000
TAG_ARC_COUNTERS = 0x01A10000
TAG_OBJECT_SUMMARY = 0xA1000000


class Image:
    """A coverage file as bytes plus the byte order and layout of its words."""

    def __init__(self, data, magic):
        self.data = bytearray(data)
        first = struct.unpack_from("<I", self.data, 0)[0]
        if first == magic:
            self.fmt = "<I"
        elif first == int.from_bytes(struct.pack(">I", magic), "little"):
            self.fmt = ">I"
        else:
            raise ValueError("bad magic")
        self.version = self.word(4)
        major = (((self.version >> 24) & 0xFF) - ord("A")) * 10 + (((self.version >> 16) & 0xFF) - ord("0"))
        self.major = major
        self.bytes_layout = major >= 12  # lengths in bytes, unpadded strings, header checksum

    def word(self, off):
        return struct.unpack_from(self.fmt, self.data, off)[0]

    def set_word(self, off, value):
        struct.pack_into(self.fmt, self.data, off, value & 0xFFFFFFFF)

    def set_u64(self, off, value):
        value &= 0xFFFFFFFFFFFFFFFF
        self.set_word(off, value & 0xFFFFFFFF)
        self.set_word(off + 4, value >> 32)

    def unit(self):
        return 1 if self.bytes_layout else 4

    def string_size(self, off):
        """Bytes taken by the string whose length word is at `off` (length word included)."""
        return 4 + self.word(off) * self.unit()


class Field:
    def __init__(self, kind, off, record=None, extra=None):
        self.kind = kind  # e.g. "length", "blocks", "arc_dst", "line", "string_len", "counter"
        self.off = off
        self.record = record
        self.extra = extra or {}

    def __repr__(self):
        return "Field(%s@%d)" % (self.kind, self.off)


class Record:
    def __init__(self, off, tag, length, payload, end):
        self.off = off
        self.tag = tag
        self.length = length
        self.payload = payload
        self.end = end
        self.fields = []


def walk_notes(data):
    img = Image(data, NOTES_MAGIC)
    fields = []
    pos = 12
    fields.append(Field("stamp", 8))
    if img.bytes_layout:
        fields.append(Field("checksum", pos))
        pos += 4
    fields.append(Field("string_len", pos, extra={"what": "cwd"}))
    pos += img.string_size(pos)
    fields.append(Field("unexecuted", pos))
    pos += 4
    records = []
    while pos + 8 <= len(img.data):
        tag = img.word(pos)
        if tag == 0:
            break
        length = img.word(pos + 4)
        payload = pos + 8
        end = payload + length * img.unit()
        rec = Record(pos, tag, length, payload, end)
        rec.fields.append(Field("length", pos + 4, rec))
        rec.fields.append(Field("tag", pos, rec))
        p = payload
        if tag == TAG_FUNCTION:
            rec.fields += [Field("ident", p, rec), Field("lineno_checksum", p + 4, rec), Field("cfg_checksum", p + 8, rec)]
            p += 12
            rec.fields.append(Field("string_len", p, rec, {"what": "name"}))
            rec.name_off = p + 4
            rec.name_len = img.word(p) * img.unit()
            p += img.string_size(p)
            rec.fields.append(Field("artificial", p, rec))
            p += 4
            rec.fields.append(Field("string_len", p, rec, {"what": "source"}))
            p += img.string_size(p)
            for k in ("start_line", "start_column", "end_line", "end_column"):
                rec.fields.append(Field(k, p, rec))
                p += 4
        elif tag == TAG_BLOCKS:
            rec.fields.append(Field("blocks", p, rec))
        elif tag == TAG_ARCS:
            rec.fields.append(Field("arc_src", p, rec))
            p += 4
            while p + 8 <= end:
                rec.fields.append(Field("arc_dst", p, rec))
                rec.fields.append(Field("arc_flags", p + 4, rec))
                p += 8
        elif tag == TAG_LINES:
            rec.fields.append(Field("lines_block", p, rec))
            p += 4
            while p + 4 <= end:
                v = img.word(p)
                if v:
                    rec.fields.append(Field("line", p, rec))
                    p += 4
                    continue
                p += 4
                rec.fields.append(Field("string_len", p, rec, {"what": "lines_file"}))
                if img.word(p) == 0:
                    p += 4
                    break
                p += img.string_size(p)
        records.append(rec)
        fields += rec.fields
        pos = end
    return img, records, fields


def walk_data(data):
    img = Image(data, DATA_MAGIC)
    fields = [Field("stamp", 8)]
    pos = 12
    if img.bytes_layout:
        fields.append(Field("checksum", pos))
        pos += 4
    records = []
    while pos + 8 <= len(img.data):
        tag = img.word(pos)
        if tag == 0:
            break
        length = img.word(pos + 4)
        signed = length - (1 << 32) if length & 0x80000000 else length
        payload = pos + 8
        size = 0 if signed < 0 else length * img.unit()
        end = payload + size
        rec = Record(pos, tag, length, payload, end)
        rec.fields.append(Field("length", pos + 4, rec))
        rec.fields.append(Field("tag", pos, rec))
        if tag == TAG_FUNCTION and size >= 12:
            rec.fields += [Field("ident", payload, rec), Field("lineno_checksum", payload + 4, rec),
                           Field("cfg_checksum", payload + 8, rec)]
        elif tag == TAG_OBJECT_SUMMARY and size >= 8:
            rec.fields += [Field("runs", payload, rec), Field("sum_max", payload + 4, rec)]
        elif tag == TAG_ARC_COUNTERS:
            p = payload
            while p + 8 <= end:
                rec.fields.append(Field("counter", p, rec))
                p += 8
        records.append(rec)
        fields += rec.fields
        pos = end
    return img, records, fields


def swap_byte_order(data, magic):
    """The same file as written on a machine of the other byte order."""
    if magic == NOTES_MAGIC:
        img, records, fields = walk_notes(data)
    else:
        img, records, fields = walk_data(data)
    out = bytearray(data)
    word_offsets = set()
    # Header words.
    word_offsets.update([0, 4, 8])
    for f in fields:
        if f.kind in ("counter",):
            word_offsets.update([f.off, f.off + 4])
        else:
            word_offsets.add(f.off)
    # Every word of a record that is not a string byte: treat the remaining
    # payload of word-only records (BLOCKS of GCC < 10, unknown tags) as words.
    for rec in records:
        if rec.tag in (TAG_FUNCTION, TAG_LINES):
            continue
        p = rec.payload
        while p + 4 <= rec.end:
            word_offsets.add(p)
            p += 4
    end_marker = records[-1].end if records else None
    if end_marker is not None and end_marker + 4 <= len(data):
        word_offsets.add(end_marker)
    for off in word_offsets:
        if off + 4 <= len(data):
            out[off:off + 4] = data[off:off + 4][::-1]
    return bytes(out)


class Writer:
    """Writes coverage images in the GCC 12 layout (bytes=True) or the GCC 8-11 layout."""

    def __init__(self, bytes_layout=True):
        self.bytes_layout = bytes_layout
        self.out = bytearray()

    def word(self, v):
        self.out += struct.pack("<I", v & 0xFFFFFFFF)
        return self

    def u64(self, v):
        v &= 0xFFFFFFFFFFFFFFFF
        return self.word(v & 0xFFFFFFFF).word(v >> 32)

    def string(self, s):
        b = s.encode() if isinstance(s, str) else bytes(s)
        if self.bytes_layout:
            self.word(len(b) + 1)
            self.out += b + b"\0"
        else:
            alloc = (len(b) + 4) // 4
            self.word(alloc)
            self.out += b + b"\0" * (alloc * 4 - len(b))
        return self

    def begin(self, tag):
        self.word(tag)
        at = len(self.out)
        self.word(0)
        return at

    def end(self, at):
        n = len(self.out) - at - 4
        struct.pack_into("<I", self.out, at, n if self.bytes_layout else n // 4)
        return self


def version_word(major, minor):
    return (ord("A") + major // 10) << 24 | (ord("0") + major % 10) << 16 | (ord("0") + minor) << 8 | ord("*")


def build_notes(functions, stamp=0x1234, major=12, minor=2, cwd="/tmp"):
    """functions: list of dicts with name, source, ident, start_line, end_line,
    blocks (count), arcs [(src, dst, flags)], lines {block: [(file, [lines])]}."""
    w = Writer(major >= 12)
    w.word(NOTES_MAGIC).word(version_word(major, minor)).word(stamp)
    if major >= 12:
        w.word(0)
    w.string(cwd).word(1)
    for fn in functions:
        at = w.begin(TAG_FUNCTION)
        w.word(fn.get("ident", 1)).word(fn.get("lineno_checksum", 0)).word(fn.get("cfg_checksum", 0))
        w.string(fn.get("name", "f")).word(fn.get("artificial", 0)).string(fn.get("source", "f.c"))
        w.word(fn.get("start_line", 1)).word(fn.get("start_column", 1)).word(fn.get("end_line", 1)).word(fn.get("end_column", 1))
        w.end(at)
        at = w.begin(TAG_BLOCKS)
        w.word(fn["blocks"])
        w.end(at)
        by_src = {}
        for src, dst, flags in fn["arcs"]:
            by_src.setdefault(src, []).append((dst, flags))
        for src, arcs in by_src.items():
            at = w.begin(TAG_ARCS)
            w.word(src)
            for dst, flags in arcs:
                w.word(dst).word(flags)
            w.end(at)
        for block, locs in sorted(fn.get("lines", {}).items()):
            at = w.begin(TAG_LINES)
            w.word(block)
            for file, lines in locs:
                w.word(0).string(file)
                for ln in lines:
                    w.word(ln)
            w.word(0).word(0)
            w.end(at)
    return bytes(w.out)


def build_data(functions, stamp=0x1234, major=12, minor=2, runs=1):
    """functions: list of (ident, lineno_checksum, cfg_checksum, [counters])."""
    w = Writer(major >= 12)
    w.word(DATA_MAGIC).word(version_word(major, minor)).word(stamp)
    if major >= 12:
        w.word(0)
    at = w.begin(TAG_OBJECT_SUMMARY)
    w.word(runs).word(0)
    w.end(at)
    for ident, lcs, ccs, counters in functions:
        at = w.begin(TAG_FUNCTION)
        w.word(ident).word(lcs).word(ccs)
        w.end(at)
        at = w.begin(TAG_ARC_COUNTERS)
        for c in counters:
            w.u64(c)
        w.end(at)
    w.word(0)
    return bytes(w.out)


def complete_graph_function(n, count=1000000, line=1):
    """A function whose blocks 2..n+1 form a complete digraph on one source
    line, every arc instrumented: the elementary circuits of the line number
    (n-1)! and more, a worst case for gcov's per-line cycle search."""
    blocks = list(range(2, n + 2))
    arcs = [(0, 2, 4)]
    for a in blocks:
        for b in blocks:
            if a != b:
                arcs.append((a, b, 0))
        arcs.append((a, 1, 0))
    fn = {"name": "dense", "source": "dense.c", "ident": 7, "start_line": line, "end_line": line,
          "blocks": n + 2, "arcs": arcs, "lines": {b: [("dense.c", [line])] for b in blocks}}
    counters = [count] * len(arcs)
    return fn, counters
