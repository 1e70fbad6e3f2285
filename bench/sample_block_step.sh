#!/usr/bin/env bash
# bench/sample_block_step.sh [COVKIT [WORKDIR]]
#
# What one emulated branch vector costs, single-stepped instruction by
# instruction (COVKIT_SAMPLE_STEPPING=instruction, the emulation before
# issue 33 item 5) and stepped from branch to branch (the default: decoded
# straight lines, a hardware breakpoint where the thread's state decides),
# side by side on the same workload: bzip2 1.0.8 (Debian's source, -O2 -g,
# as the real-code tests build it) compressing and testing a 4 MB corpus.
# Each round records it once with each stepping, in alternation, with
# COVKIT_SAMPLE_STEP_STATS set: every process then notes the thread CPU
# time from each tick to its vector written (CLOCK_THREAD_CPUTIME_ID: the
# traps, the kernel's signal deliveries, the decoding, the breakpoint's
# moves). A vector's cost = that time / vectors. Prints each round, the
# medians, the steps per vector, and the ratio instruction / block (issue
# 33's target: under 50 us for a 16-branch vector, from ~2.5 ms).
#
# Environment: ROUNDS (3), PERIOD (5ms), VECTOR (16).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
ROUNDS=${ROUNDS:-3}
PERIOD=${PERIOD:-5ms}
VECTOR=${VECTOR:-16}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)

# The plain build, as the real-code tests and sample_short_processes.sh make it.
"$ROOT/tests/realcode/fetch_and_build.sh" bzip2 "$WORKDIR" 12 O2 >/dev/null
PLAIN=$WORKDIR/bzip2-plain-gcc12-O2
if [ ! -f "$PLAIN/.covkit-sample-plain" ]; then
  src=$(find "$WORKDIR/src/bzip2" -mindepth 1 -maxdepth 1 -type d | head -n1)
  rm -rf "$PLAIN" && cp -a "$src" "$PLAIN"
  CC=gcc-12 CFLAGS="-O2 -g" LDFLAGS="" "$ROOT/tests/realcode/build_sample_package.sh" bzip2 "$PLAIN" >/dev/null
  touch "$PLAIN/.covkit-sample-plain"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for i in $(seq 1 12); do cat "$PLAIN"/*.c "$PLAIN"/*.h; done | head -c 4000000 >"$TMP/corpus"
cat >"$TMP/work.sh" <<EOF
#!/bin/sh
"$PLAIN/bzip2" -9 -c "$TMP/corpus" >"$TMP/corpus.bz2" && "$PLAIN/bzip2" -t "$TMP/corpus.bz2"
EOF
chmod +x "$TMP/work.sh"

record() {  # STEPPING -> "vectors ns steps" of the recording
  rm -rf "$TMP/rec" "$TMP/rec.old"
  COVKIT_SAMPLE_STEP_STATS=1 COVKIT_SAMPLE_STEPPING=$1 "$COVKIT" sample record --mode branch --source runtime \
    --period "$PERIOD" --vector-length "$VECTOR" -o "$TMP/rec" -- "$TMP/work.sh" >/dev/null 2>&1
  "$COVKIT" sample dump "$TMP/rec" | awk '
    $1 == "warning" && $4 == "stepping" { v += $7; n += $9 }
    $1 == "steps" && $2 + 0 > 1 { s += $2 }
    END { printf "%d %d %d\n", v, n, s }'
}

printf 'bzip2 -9 of 4 MB and -t, period %s, %d-branch vectors\n' "$PERIOD" "$VECTOR"
printf '%-6s %10s %14s %10s %14s\n' round vectors "instruction" vectors "block"
for r in $(seq 1 "$ROUNDS"); do
  read -r vi ni si <<<"$(record instruction)"
  read -r vb nb sb <<<"$(record block)"
  ci=$(awk -v n="$ni" -v v="$vi" 'BEGIN { printf "%.1f", v ? n / v / 1000 : 0 }')
  cb=$(awk -v n="$nb" -v v="$vb" 'BEGIN { printf "%.1f", v ? n / v / 1000 : 0 }')
  printf '%-6s %10s %11s us %10s %11s us\n' "$r" "$vi" "$ci" "$vb" "$cb"
  echo "$ci $cb $((vi ? si / vi : 0)) $((vb ? sb / vb : 0))" >>"$TMP/results"
done
mi=$(sort -n -k1,1 "$TMP/results" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
mb=$(sort -n -k2,2 "$TMP/results" | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
read -r si sb <<<"$(awk '{ i += $3; b += $4 } END { printf "%d %d", i / NR, b / NR }' "$TMP/results")"
echo "median cost per ${VECTOR}-branch vector: instruction stepping ${mi} us (${si} steps a vector), block stepping ${mb} us (${sb} steps a vector)"
awk -v a="$mi" -v b="$mb" 'BEGIN { if (b > 0) printf "ratio instruction/block: %.1fx\n", a / b }'
