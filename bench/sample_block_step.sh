#!/usr/bin/env bash
# bench/sample_block_step.sh [COVKIT [WORKDIR]]
#
# What one emulated branch vector costs, single-stepped instruction by
# instruction (COVKIT_SAMPLE_STEPPING=instruction, the emulation before
# issue 33 item 5) and stepped from branch to branch (decoded straight
# lines, hardware breakpoints where the thread's state decides), side by
# side on the same workload: bzip2 1.0.8 (Debian's source, -O2 -g,
# as the real-code tests build it) compressing and testing a 4 MB corpus.
# Each round records it once with each stepping, in alternation, with
# COVKIT_SAMPLE_STEP_STATS set: every process then notes the thread CPU
# time from each tick to its vector written (CLOCK_THREAD_CPUTIME_ID: the
# traps, the kernel's signal deliveries, the decoding, the breakpoint's
# moves). A vector's cost = that time / vectors (the mean: a rare vector of
# milliseconds moves it), and each process's median vector (a histogram of
# 1 us buckets; averaged over the processes by their vectors). Prints each
# round, the medians of the rounds, the steps, traps, breakpoint moves, counted loops, returns
# passed without a stop and steps the look-ahead interpreter predicted per
# vector, the ratios to the last stepping (issue 33's target: under 50 us
# for a 16-branch vector, from ~2.5 ms), and the load average.
#
# STEPPINGS (in the order recorded each round; the last is the one the
# others are compared with): "instruction" single-steps every instruction,
# "block1" block-steps with one hardware breakpoint (a stop at every
# conditional branch), "block" (the default) with all four debug registers
# (stops only where a conditional branch was taken, or at every fourth),
# both running the way ahead in the look-ahead interpreter first (a stop
# only where it meets what it does not emulate); "decode" is "block"
# without the interpreter (the default before it).
#
# Environment: ROUNDS (3), PERIOD (5ms), VECTOR (16),
# STEPPINGS ("instruction block1 decode block").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
ROUNDS=${ROUNDS:-3}
PERIOD=${PERIOD:-5ms}
VECTOR=${VECTOR:-16}
STEPPINGS=${STEPPINGS:-instruction block1 decode block}
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

record() {  # STEPPING -> "vectors ns steps traps moves loops returns predicted copies median-ns decoded zydis" of the recording
  rm -rf "$TMP/rec" "$TMP/rec.old"
  COVKIT_SAMPLE_STEP_STATS=1 COVKIT_SAMPLE_STEPPING=$1 "$COVKIT" sample record --mode branch --source runtime \
    --period "$PERIOD" --vector-length "$VECTOR" -o "$TMP/rec" -- "$TMP/work.sh" >/dev/null 2>"$TMP/record.err" \
    || { echo "FAILED"; return; }
  "$COVKIT" sample dump "$TMP/rec" 2>>"$TMP/record.err" | awk '
    $1 == "warning" && $4 == "stepping" { v += $7; n += $9; t += $11; m += $13; l += $16; r += $19; p += $22
                                          c += $25; md += $28 * $7; d += $31; z += $35 }
    $1 == "steps" && $2 + 0 > 1 { s += $2 }
    END { printf "%d %d %d %d %d %d %d %d %d %d %d %d\n", v, n, s, t, m, l, r, p, c, v ? md / v : 0, d, z }'
}

printf 'bzip2 -9 of 4 MB and -t, period %s, %d-branch vectors\n' "$PERIOD" "$VECTOR"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s' round
for st in $STEPPINGS; do printf ' %10s %14s %11s' vectors "$st" median; done
echo
for r in $(seq 1 "$ROUNDS"); do
  printf '%-6s' "$r"
  for st in $STEPPINGS; do
    read -r v n s tr mv lp rt pr cp md dc zd <<<"$(record "$st")"
    # A recording that failed or holds no vector is no figure (a covkit
    # without its runtime beside it recorded nothing, and printed 0.0 us).
    if [ "$v" = FAILED ] || [ "${v:-0}" -eq 0 ]; then
      echo >&2
      echo "$0: $st stepping recorded no vector: $(head -c 2000 "$TMP/record.err")" >&2
      exit 1
    fi
    c=$(awk -v n="$n" -v v="$v" 'BEGIN { printf "%.1f", v ? n / v / 1000 : 0 }')
    mu=$(awk -v m="$md" 'BEGIN { printf "%.1f", m / 1000 }')
    printf ' %10s %11s us %8s us' "$v" "$c" "$mu"
    awk -v c="$c" -v v="$v" -v s="$s" -v t="$tr" -v m="$mv" -v l="$lp" -v r="$rt" -v p="$pr" -v cp="$cp" -v mu="$mu" -v dc="$dc" -v zd="$zd" \
      'BEGIN { v = v ? v : 1; printf "%s %d %.1f %.1f %.2f %.1f %d %.1f %s %.1f %.1f\n", c, s / v, t / v, m / v, l / v, r / v, p / v, cp / v, mu, dc / v, zd / v }' \
      >>"$TMP/results.$st"
  done
  echo
done
median() { sort -n -k1,1 "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
last=
for st in $STEPPINGS; do
  m=$(median "$TMP/results.$st")
  read -r steps traps moves loops returns predicted copies decodes zydis <<<"$(awk '{ s += $2; t += $3; m += $4; l += $5; r += $6; p += $7; c += $8; d += $10; z += $11 }
    END { printf "%d %.1f %.1f %.2f %.1f %d %.1f %.1f %.1f", s / NR, t / NR, m / NR, l / NR, r / NR, p / NR, c / NR, d / NR, z / NR }' "$TMP/results.$st")"
  mu=$(awk '{ print $9 }' "$TMP/results.$st" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "median cost per ${VECTOR}-branch vector, $st stepping: ${m} us (a vector: ${steps} steps, ${traps} traps," \
    "${moves} debug-register moves, ${loops} counted loops, ${returns} returns passed without a stop," \
    "${predicted} steps predicted by the interpreter, ${copies} lines copied by process_vm_readv," \
    "${decodes} instructions decoded, not found decoded, ${zydis} of them by Zydis, the rest by the quick decoder);" \
    "the median vector: ${mu} us"
  last=$st
  eval "median_$st=\$m"
done
for st in $STEPPINGS; do
  [ "$st" = "$last" ] && continue
  eval "a=\$median_$st; b=\$median_$last"
  awk -v a="$a" -v b="$b" -v x="$st" -v y="$last" 'BEGIN { if (b > 0) printf "ratio %s/%s: %.1fx\n", x, y, a / b }'
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
