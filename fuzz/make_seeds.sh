#!/bin/sh
# Builds seed corpora for the fuzzers from real coverage files: small C and
# C++ programs compiled with gcc-12, gcc-11 and clang --coverage (and one with
# -fprofile-generate, for value-profile counters), run once, plus a few
# synthetic images. Nothing binary is kept in the repository.
#
#   fuzz/make_seeds.sh OUTDIR      -> OUTDIR/{gcno,gcda,session,tracefile,diff,trace,stream,...,blocks}/
set -eu
out=${1:?usage: make_seeds.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
badinput=$here/../tests/badinput
mkdir -p "$out/gcno" "$out/gcda" "$out/session" "$out/tracefile" "$out/diff" "$out/trace" "$out/stream"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/covkit-seeds-XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/p.c" <<'C'
#include "h.h"
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
C
cat > "$work/h.h" <<'C'
static inline int twice(int v)
{
  return v + v;
}
C
cat > "$work/x.cc" <<'C'
#include <stdexcept>
template <typename T> T add(T a, T b) { return a + b; }
struct P { int v; P(int x) : v(x) {} ~P() {} };
static int risky(int i) { if (i % 3 == 0) throw std::runtime_error("x"); return i; }
int main() {
  int s = 0;
  for (int i = 0; i < 7; i++) {
    try { P p(risky(i)); s += p.v; } catch (const std::exception&) { s -= 1; }
  }
  return add(s, 1) + int(add(0.5, 0.5)) == 0;
}
C
cat > "$work/j.c" <<'C'
#include <setjmp.h>
static jmp_buf env;
static int depth;
static void down(int n) { if (n == 0) longjmp(env, 1); down(n - 1); }
int main(void)
{
  int hits = 0;
  if (setjmp(env) == 0) { depth++; down(3); }
  else hits++;
  while (depth < 3) { if (setjmp(env) == 0) { depth++; down(depth); } else hits++; }
  return hits == 0;
}
C

n=0
for cc in gcc-12 gcc-11 clang; do
  command -v $cc >/dev/null 2>&1 || { echo "make_seeds: $cc not found, skipped" >&2; continue; }
  case $cc in
    clang) cxx=clang++ ;;  # GCC 4.8's layout ("408*"), read by llvm-cov's rules
    *) cxx=$(echo $cc | sed 's/gcc/g++/') ;;
  esac
  d=$work/$cc
  mkdir -p "$d"
  cp "$work/p.c" "$work/h.h" "$work/x.cc" "$work/j.c" "$d/"
  (cd "$d" && $cc --coverage -O0 -o p p.c && ./p) >/dev/null 2>&1 || true
  (cd "$d" && $cc --coverage -O2 -o j j.c && ./j) >/dev/null 2>&1 || true
  if command -v $cxx >/dev/null 2>&1; then
    (cd "$d" && $cxx --coverage -O0 -o x x.cc && ./x) >/dev/null 2>&1 || true
  fi
  mkdir -p "$d/pg"
  cp "$work/p.c" "$work/h.h" "$d/pg/"
  (cd "$d/pg" && $cc -fprofile-generate -O1 -o pg p.c && ./pg && ./pg a b c d e f) >/dev/null 2>&1 || true
  for f in "$d"/*.gcno; do [ -e "$f" ] && cp "$f" "$out/gcno/$cc-$(basename "$f")" && n=$((n + 1)); done
  for f in "$d"/*.gcda "$d"/pg/*.gcda; do [ -e "$f" ] && cp "$f" "$out/gcda/$cc-$(basename "$f")"; done
  for f in "$d"/*.gcno; do
    [ -e "$f" ] || continue
    base=${f%.gcno}
    python3 - "$f" "$base.gcda" "$out/session/$cc-$(basename "$base")" <<'PY'
import os, struct, sys
notes = open(sys.argv[1], "rb").read()
data = open(sys.argv[2], "rb").read() if os.path.exists(sys.argv[2]) else b""
for flags in (0x00, 0x01, 0x02, 0x0e, 0x3f, 0x83, 0x40):
    with open("%s-%02x.bin" % (sys.argv[3], flags), "wb") as o:
        o.write(bytes([flags]) + struct.pack("<I", len(notes)) + notes + data)
PY
  done
done

# Coverage streams (fuzz_stream: first byte even = binary, odd = hex lines):
# the gcc-12 .gcda files as __gcov_info_to_gcda sends them (no object
# summary), each behind a "gcfn" header, one and two dumps per stream.
python3 - "$out/gcda" "$out/stream" <<'PY'
import glob, os, struct, sys
src, out = sys.argv[1], sys.argv[2]
def streamed(path):
    data = open(path, "rb").read()
    if data[4:8] != b"*22B":  # gcc-12's little-endian version word only
        return None
    body = data[:16]
    if struct.unpack_from("<I", data, 16)[0] == 0xA1000000:  # the summary goes
        body += data[16 + 8 + 8:]
    else:
        body += data[16:]
    name = ("/build/" + os.path.basename(path)).encode() + b"\0"
    return struct.pack("<III", 0x6763666E, 0x4232322A, len(name)) + name + body
def hex_line(at, chunk):
    check = (sum(struct.pack(">I", at)) + sum(chunk)) & 0xFF
    return "[uart] :gcov:%08x:%s:%02x\r\n" % (at, chunk.hex(), check)
def hex_lines(data):
    lines = [hex_line(at, data[at:at + 32]) for at in range(0, len(data), 32)]
    return ("".join(lines) + hex_line(len(data), b"")).encode()
streams = [s for s in (streamed(p) for p in sorted(glob.glob(src + "/gcc-12-*.gcda"))) if s]
for i, s in enumerate(streams):
    open("%s/stream-%d.bin" % (out, i), "wb").write(b"\0" + s + s)
    open("%s/hex-%d.txt" % (out, i), "wb").write(b"\1" + hex_lines(s))
if streams:
    open("%s/stream-all.bin" % out, "wb").write(b"\0" + b"".join(streams))
PY

# Synthetic images: a dense graph on one line, both layouts.
python3 - "$badinput" "$out" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import gcovfiles as g
out = sys.argv[2]
for major in (12, 11):
    fn, counters = g.complete_graph_function(6, count=7)
    notes = g.build_notes([fn], major=major)
    data = g.build_data([(7, 0, 0, counters)], major=major)
    open("%s/gcno/synthetic-dense-%d.gcno" % (out, major), "wb").write(notes)
    open("%s/gcda/synthetic-dense-%d.gcda" % (out, major), "wb").write(data)
    for flags in (0x00, 0x23):
        open("%s/session/synthetic-dense-%d-%02x.bin" % (out, major, flags), "wb").write(
            bytes([flags]) + struct.pack("<I", len(notes)) + notes + data)
PY
# Tracefiles and diffs: small hand-written ones covering every record kind.
cat > "$out/tracefile/lcov.info" <<'INFO'
TN:t
SF:/src/a.c
FN:3,main
FN:9,_Z3addii
FNDA:1,main
FNDA:0,_Z3addii
FNF:2
FNH:1
BRDA:4,0,0,1
BRDA:4,0,1,-
BRDA:5,e0,2,0
BRF:3
BRH:1
DA:3,1
DA:4,1
DA:5,0
DA:9,0
LF:4
LH:2
end_of_record
SF:/src/a.c
FNL:0,3,8
FNA:0,2,main
DA:3,2
end_of_record
INFO
cat > "$out/tracefile/covkit.json" <<'JSON'
{"format":"covkit-coverage","format_version":1,"files":[{"path":"a.c","absolute_path":"/src/a.c","lines":[{"line":3,"count":1,"branches":[{"count":1,"executed":true,"throw":false,"fallthrough":true,"unreachable":false},{"count":0,"executed":true,"throw":true,"fallthrough":false,"unreachable":false}]},{"line":4,"count":0,"unexecuted_block":true,"instances":[{"function":"_Z1fIiEvv","count":0}]}],"functions":[{"name":"main","demangled":"main","start_line":3,"start_column":5,"end_line":8,"end_column":1,"execution_count":1,"blocks":3,"blocks_executed":2}]}]}
JSON
cat > "$out/diff/git.diff" <<'DIFF'
diff --git a/src/a.c b/src/a.c
index 1111111..2222222 100644
--- a/src/a.c
+++ b/src/a.c
@@ -3,0 +4,2 @@ int main(void)
+  int x = 1;
+  return x;
@@ -10 +12 @@
-old
+new
diff --git a/old name.c b/"new\tname.c"
similarity index 90%
rename from old name.c
rename to "new\tname.c"
--- a/old name.c
+++ "b/new\tname.c"
@@ -1,2 +1,3 @@
 a
+b
 c
diff --git a/gone.c b/gone.c
deleted file mode 100644
--- a/gone.c
+++ /dev/null
@@ -1 +0,0 @@
-x
Binary files a/img.png and b/img.png differ
DIFF

# Trace seeds (first byte: bit 0 clear = thread stream, read through a window of
# 1 + (byte >> 1) % 40 bytes; bit 0 set = metadata), per docs/trace-format.md.
python3 - "$out/trace" <<'PY'
import struct, sys
out = sys.argv[1]
def varint(v):
    b = bytearray()
    while True:
        c = v & 0x7f; v >>= 7
        b.append(c | (0x80 if v else 0))
        if not v: return bytes(b)
def lead(kind, delta):
    more = delta >= 32
    return bytes([kind | (4 if more else 0) | ((delta & 31) << 3)]) + (varint(delta >> 5) if more else b"")
hdr = b"CKTRACE1" + struct.pack("<IIQI", 100, 101, 1000, 0) + bytes(36)
ev = lead(3, 0) + varint(1) + varint(1) + struct.pack("<Q", 0x401000)   # define 1
ev += lead(3, 0) + varint(1) + varint(2) + struct.pack("<Q", 0x401100)  # define 2
ev += lead(1, 5) + varint(1) + lead(1, 40) + varint(2) + lead(2, 7) + lead(1, 300) + varint(2) + lead(2, 2)
ev += lead(3, 1) + varint(2) + varint(3) + lead(2, 9) + lead(3, 0) + varint(4)
open(out + "/stream.bin", "wb").write(b"\0" + hdr + ev)
fork = lead(3, 0) + varint(1) + varint(1) + struct.pack("<Q", 0x401000) + lead(3, 0) + varint(3) + varint(1) + varint(1) + lead(2, 3)
open(out + "/forked.bin", "wb").write(b"\0" + hdr + fork)
# Version 2 streams with 64-byte chunks and a sync after the event that
# crosses each chunk boundary, as the runtime writes them: they are also
# read in parts (trace/split_profile.h), with recursion across the parts.
import random
def v2_stream(seed, events, ended):
    rng = random.Random(seed)
    chunk = 64
    b = bytearray(b"CKTRACE2" + struct.pack("<IIQII", 100, 101, 1000, 0, chunk) + bytes(32))
    now, boundary, depth = 1000, chunk, 0
    def put(ev, when):
        nonlocal now, boundary
        b.extend(ev)
        now = when
        if len(b) >= boundary:  # the sync of the chunk just entered: time, own offset
            b.extend(lead(3, 0) + varint(5) + varint(now) + varint(len(b)))
            boundary += chunk
    for f in range(1, 6):
        put(lead(3, 0) + varint(1) + varint(f) + struct.pack("<Q", 0x401000 + 0x100 * f), now)
    for _ in range(events):
        r = rng.random()
        d = rng.choice([1, 3, 30, 200])
        if depth and r < 0.45:
            put(lead(2, d), now + d); depth -= 1
        else:
            put(lead(1, d) + varint(rng.randint(1, 5)), now + d); depth += 1
    if ended:
        while depth:
            put(lead(2, 2), now + 2); depth -= 1
        b.extend(lead(3, 1) + varint(4))
    return bytes(b)
open(out + "/parts.bin", "wb").write(b"\0" + v2_stream(1, 900, True))
open(out + "/parts_open.bin", "wb").write(b"\2" + v2_stream(2, 700, False))
meta = ("covkit-trace 1\npid 100\nppid 1\nexe /bin/prog\nclock tsc\ncalib 1000 5000000\n"
        "module 0 1000 /bin/prog\nsegment 0 401000 402000\nmodule 7f0000000000 1200 /lib/libx.so\n"
        "segment 7f0000000000 7f0000001000 7f0000002000\nthread 101 main\nfork 1300 102\ncalib 9000 13000000\nend 9100\n")
open(out + "/meta.bin", "wb").write(b"\1" + meta.encode())
PY

echo "make_seeds: $(ls "$out/gcno" | wc -l) gcno, $(ls "$out/gcda" | wc -l) gcda, $(ls "$out/session" | wc -l) session seeds in $out"

# covkit sample inputs (fuzz_sample: first byte = kind % 4): recordings made
# with `covkit sample record` (fuzz/seeds/sample), each under its kind, and
# perf_event_open ring records written here after linux/perf_event.h (kind
# 15: call chains and branch stacks): an exec, its mappings, a sample, a
# fork, an exit and a loss.
mkdir -p "$out/sample"
seeds=$(cd "$(dirname "$0")" && pwd -P)/seeds/sample
for f in "$seeds"/*.cks; do { printf '\000'; cat "$f"; } >"$out/sample/$(basename "$f").bin"; done
for f in "$seeds"/*.json; do { printf '\001'; cat "$f"; } >"$out/sample/$(basename "$f").bin"; done
for f in "$seeds"/*.txt; do { printf '\002'; cat "$f"; } >"$out/sample/$(basename "$f").bin"; done
python3 - "$out/sample/perf-ring.bin" <<'PY'
import struct, sys
def record(kind, misc, body):
    return struct.pack("<IHH", kind, misc, 8 + len(body)) + body
def name(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)
sid = lambda pid, time: struct.pack("<IIQ", pid, pid, time)
out = b"\x0f"
out += record(3, 1 << 13, struct.pack("<II", 7, 7) + name("prog") + sid(7, 1))  # COMM, exec
out += record(10, 0, struct.pack("<IIQQQIIQQII", 7, 7, 0x555000, 0x1000, 0x1000, 8, 1, 42, 0, 5, 2)
              + name("/bin/prog") + sid(7, 2))  # MMAP2, r-x
chain = struct.pack("<4Q", 4, 2**64 - 512, 0x555010, 0x555200)
branches = struct.pack("<Q", 2) + struct.pack("<6Q", 0x555008, 0x555010, 0, 0x555100, 0x555000, 0)
out += record(9, 2, struct.pack("<QIIQ", 0x555010, 7, 7, 3) + chain + branches)  # SAMPLE
out += record(7, 0, struct.pack("<IIIIQ", 8, 7, 8, 7, 4) + sid(8, 4))  # FORK
out += record(4, 0, struct.pack("<IIIIQ", 8, 7, 8, 7, 5) + sid(8, 5))  # EXIT
out += record(2, 0, struct.pack("<QQ", 1, 3) + sid(0, 6))  # LOST
open(sys.argv[1], "wb").write(out)
PY

# A perf.data that perf 6.1 recorded (tests/data/perf/cpu-clock.data), under
# kind 0x13 (kind % 4 = 3, kind / 16 odd: a whole perf.data).
data_dir=$(cd "$(dirname "$0")/.." && pwd -P)/tests/data/perf
{ printf '\023'; cat "$data_dir/cpu-clock.data"; } >"$out/sample/perf-data.bin"

# gmon.out files (fuzz_gmon): a program built with -pg, run once (a
# recursion, a cycle, a call through a pointer); plus its first records only.
mkdir -p "$out/gmon"
cat > "$work/g.c" <<'C'
static int f(int n) { return n < 2 ? n : f(n - 1) + f(n - 2); }
int odd(int n);
int even(int n) { return n == 0 ? 1 : odd(n - 1); }
int odd(int n) { return n == 0 ? 0 : even(n - 1); }
int main(void) { int (*p)(int) = even; return (f(15) + p(21)) == 1; }
C
if gcc-12 -pg -o "$work/g" "$work/g.c" 2>/dev/null && (cd "$work" && ./g || true) && [ -e "$work/gmon.out" ]; then
  cp "$work/gmon.out" "$out/gmon/run.gmon"
  head -c 200 "$work/gmon.out" >"$out/gmon/head.gmon"
fi

# .eh_frame sections (fuzz_eh_frame: [section address:8 LE][bytes]) of a C
# program ("zR" CIEs) and a C++ one that throws ("zPLR"), at their addresses;
# and each one's .eh_frame_hdr with the bytes after it.
mkdir -p "$out/eh_frame"
printf 'int f(int x) { return x + 1; }\nint main(int c, char **v) { (void)v; return f(c); }\n' >"$work/e.c"
printf '#include <stdexcept>\nint f(int x) { if (x > 3) throw std::runtime_error("x"); return x; }\n'\
'int main(int c, char **) { try { return f(c); } catch (...) { return 1; } }\n' >"$work/e.cc"
for prog in e.c e.cc; do
  compiler=gcc-12; [ "$prog" = e.cc ] && compiler=g++-12
  if $compiler -O2 -o "$work/eh" "$work/$prog" 2>/dev/null &&
     objcopy -O binary --only-section=.eh_frame "$work/eh" "$work/eh.bin" 2>/dev/null; then
    addr=$(readelf -SW "$work/eh" | awk '$2 == ".eh_frame" { print $4 }')
    python3 -c "import sys; sys.stdout.buffer.write(int('$addr', 16).to_bytes(8, 'little'))" >"$out/eh_frame/$prog.bin"
    cat "$work/eh.bin" >>"$out/eh_frame/$prog.bin"
    # The same program's .eh_frame_hdr and what follows it (its .eh_frame):
    # the header path of the fuzzer.
    set -- $(readelf -SW "$work/eh" | awk '$2 == ".eh_frame_hdr" { print $4, $5 }')
    if [ $# -eq 2 ]; then
      python3 -c "import sys; sys.stdout.buffer.write(int('$1', 16).to_bytes(8, 'little'))" >"$out/eh_frame/$prog.hdr.bin"
      tail -c +$((0x$2 + 1)) "$work/eh" | head -c 4096 >>"$out/eh_frame/$prog.hdr.bin"
    fi
  fi
done

# clang's source-based coverage (fuzz_profraw, fuzz_profdata, fuzz_covmap):
# the C and C++ programs above built with every clang -fprofile-instr-generate
# -fcoverage-mapping there is (raw profile versions 7 and 8), run; their
# .profraw files, llvm-profdata's .profdata (versions 7 to 9), and their
# mapping sections as fuzz_covmap takes them ([u32 covmap size][u32 covfun
# size][covmap][covfun][names]); a small file with profiles back to back.
mkdir -p "$out/profraw" "$out/profdata" "$out/covmap"
for v in 13 14 15 16; do
  command -v clang-$v >/dev/null 2>&1 || continue
  d=$work/llvm$v
  mkdir -p "$d"
  cp "$work/p.c" "$work/h.h" "$work/x.cc" "$d/"
  flags="-fprofile-instr-generate -fcoverage-mapping -O0"
  (cd "$d" && clang-$v $flags -o p p.c && LLVM_PROFILE_FILE=p.profraw ./p a) >/dev/null 2>&1 || true
  (cd "$d" && clang++-$v $flags -o x x.cc && LLVM_PROFILE_FILE=x.profraw ./x) >/dev/null 2>&1 || true
  for prog in p x; do
    [ -s "$d/$prog.profraw" ] || continue
    cp "$d/$prog.profraw" "$out/profraw/clang$v-$prog.profraw"
    if command -v llvm-profdata-$v >/dev/null 2>&1; then
      llvm-profdata-$v merge -o "$out/profdata/clang$v-$prog.profdata" "$d/$prog.profraw" 2>/dev/null || true
    fi
    for s in __llvm_covmap __llvm_covfun __llvm_prf_names; do
      objcopy -O binary --only-section=$s "$d/$prog" "$d/$prog$s" 2>/dev/null || : >"$d/$prog$s"
    done
    python3 - "$d/$prog" "$out/covmap/clang$v-$prog.bin" <<'PY'
import struct, sys
p, o = sys.argv[1], sys.argv[2]
covmap, covfun, names = (open(p + s, "rb").read() for s in ("__llvm_covmap", "__llvm_covfun", "__llvm_prf_names"))
open(o, "wb").write(struct.pack("<II", len(covmap), len(covfun)) + covmap + covfun + names)
PY
  done
done
if [ -s "$out/profraw/clang16-p.profraw" ] && [ -s "$out/profraw/clang16-x.profraw" ]; then
  cat "$out/profraw/clang16-p.profraw" "$out/profraw/clang16-x.profraw" >"$out/profraw/back-to-back.profraw"
fi

# libcovkit-blocks' files (fuzz_blocks): the C program above built with gcc's
# -fsanitize-coverage=trace-pc and the runtime compiled from its source
# (without the flag: the hooks must not call themselves), run with a block
# trace; the block file and the trace are seeds, and a small hand-made pair.
mkdir -p "$out/blocks"
runtime=$here/../src/runtime/blocks
if (cd "$work" && gcc -O1 -D_GNU_SOURCE -c -o hooks.o "$runtime/block_hooks.c" &&
    gcc -O0 -g -fsanitize-coverage=trace-pc -o pb p.c hooks.o &&
    COVKIT_BLOCKS_FILE="$work/pb.blocks" COVKIT_BLOCKS_TRACE=4k ./pb a) >/dev/null 2>&1; then
  cp "$work/pb.blocks" "$out/blocks/trace-pc.blocks"
  cp "$work/pb.blocks.trace" "$out/blocks/trace-pc.trace"
fi
printf 'covkit-blocks 1\npid 1\ndropped 0 0 0 0 3 1\nmodule 0x1000 /bin/true\nb 10 3\nw 20 255\nf 30 1\nend\n' \
  >"$out/blocks/small.blocks"
printf 'covkit-block-trace 1\npid 1\nbound 4\ndropped 1 0\nmodule 0 /x\ni 1 10\ni 80000002 20\nevents 3\n\001\000\000\000\002\000\000\200\001\000\000\000end\n' \
  >"$out/blocks/small.trace"

# block stepping's quick decoder (fuzz_quick_decode: [readable - 1][bytes]):
# one instruction of each family it decodes, as gcc emits them, readable
# in full (15 bytes given).
mkdir -p "$out/quick_decode"
python3 - "$out/quick_decode" <<'PY'
import sys
forms = {
    "alu": "4883ec18", "mov_store": "48894c2408", "mov_fs": "64488b042528000000", "lea": "488d440a08",
    "movzx": "0fb64c1f01", "movsxd": "4863c8", "imul3": "6bc00c", "shift": "48c1e005", "cmov": "0f4cc2",
    "setcc": "0f94c0", "push": "4155", "pop": "5d", "jcc": "0f8512000000", "call": "e800000000",
    "jmp": "eb10", "ret": "c3", "nop": "660f1f440000", "endbr64": "f30f1efa", "test": "f6470401",
}
for name, hx in forms.items():
    b = bytes.fromhex(hx)
    open(f"{sys.argv[1]}/{name}.bin", "wb").write(bytes([14]) + b + b"\x90" * (15 - len(b)))
PY
