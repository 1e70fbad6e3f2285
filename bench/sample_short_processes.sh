#!/usr/bin/env bash
# bench/sample_short_processes.sh [COVKIT [WORKDIR]]
#
# Breakpoint mode's cost on a workload of many short processes: a shell
# script that runs Lua 5.4 (Debian's source, built -O2 -g by
# tests/realcode/build_sample_package.sh) N times on a small script, plain
# and under `covkit sample record --mode breakpoint`, in alternation
# (plain, recorded, plain, recorded, ...) so that the machine's load hits
# both alike. Measured: the CPU time of the whole tree, covkit and the
# shell included (perf stat's task-clock; /usr/bin/time's user + sys
# without perf). Prints each pair, the medians,
# their ratio (issue 33's target: <= 1.15) and, apart, the first recording
# of a fresh site cache (the plan computed once per build).
#
# Environment: N (50 runs of the program), ROUNDS (7 pairs), PROGRAM (lua;
# or bzip2: compress and test a file N times).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
N=${N:-50}
ROUNDS=${ROUNDS:-7}
PROGRAM=${PROGRAM:-lua}
LUA_ROUNDS=${LUA_ROUNDS:-3}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)

# The source (fetch_and_build.sh caches it, with the --coverage build) and
# the plain build, as the real-code tests make them.
"$ROOT/tests/realcode/fetch_and_build.sh" "$PROGRAM" "$WORKDIR" 12 O2 >/dev/null
PLAIN=$WORKDIR/$PROGRAM-plain-gcc12-O2
if [ ! -f "$PLAIN/.covkit-sample-plain" ]; then
  srcpkg=$([ "$PROGRAM" = bzip2 ] && echo bzip2 || echo lua5.4)
  src=$(find "$WORKDIR/src/$srcpkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
  rm -rf "$PLAIN" && cp -a "$src" "$PLAIN"
  CC=gcc-12 CFLAGS="-O2 -g" LDFLAGS="" "$ROOT/tests/realcode/build_sample_package.sh" "$PROGRAM" "$PLAIN" >/dev/null
  touch "$PLAIN/.covkit-sample-plain"
fi

SCRIPT=$WORKDIR/short-processes-$PROGRAM.sh
if [ "$PROGRAM" = bzip2 ]; then
  head -c 200000 "$PLAIN/bzip2.c" >"$WORKDIR/short-input"
  cat >"$SCRIPT" <<SH
#!/bin/sh
# $N short runs of bzip2: compress a 200 KB file and test the result.
d=\$(mktemp -d)
i=0
while [ \$i -lt $N ]; do
  "$PLAIN/bzip2" -c -9 "$WORKDIR/short-input" >"\$d/x.bz2" && "$PLAIN/bzip2" -t "\$d/x.bz2"
  i=\$((i + 1))
done
rm -rf "\$d"
SH
else
  cat >"$SCRIPT" <<SH
#!/bin/sh
# $N short runs of Lua on $LUA_ROUNDS rounds of its workload.
i=0
while [ \$i -lt $N ]; do
  "$PLAIN/src/lua" "$ROOT/tests/realcode/workloads/lua_workload.lua" $LUA_ROUNDS >/dev/null
  i=\$((i + 1))
done
SH
fi
chmod +x "$SCRIPT"

cpu() {  # COMMAND... -> CPU seconds of it and every process it started
  if command -v perf >/dev/null; then  # task-clock, to the microsecond
    perf stat -x, -e task-clock -o "$WORKDIR/.short-time" "$@" >/dev/null 2>&1
    awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }' "$WORKDIR/.short-time"
  else  # user + sys, in clock ticks
    /usr/bin/time -f "%U %S" -o "$WORKDIR/.short-time" "$@" >/dev/null 2>&1
    awk '{ printf "%.3f", $1 + $2 }' "$WORKDIR/.short-time"
  fi
}
# A new directory per recording, all removed at the end: a recording
# deleted and made again at once costs ext4 a search for inodes not
# recently deleted in every file it creates (one per process), which a
# user's recording does not pay.
RECS=$WORKDIR/short-processes.recs
rm -rf "$RECS" && mkdir -p "$RECS"
trap 'rm -rf "$RECS"' EXIT
recorded() { cpu "$COVKIT" sample record --mode breakpoint -o "$RECS/$1" -- "$SCRIPT"; }

# A fresh site cache: the plan computed in the recording (once per build).
export XDG_CACHE_HOME=$WORKDIR/short-processes-cache
rm -rf "$XDG_CACHE_HOME"
cold=$(recorded cold)
echo "$PROGRAM x $N: first recording with a fresh site cache: ${cold}s of CPU"

plain_times=() rec_times=()
for r in $(seq 1 "$ROUNDS"); do
  p=$(cpu "$SCRIPT")
  c=$(recorded "$r")
  plain_times+=("$p")
  rec_times+=("$c")
  echo "round $r: plain ${p}s, recorded ${c}s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mp=$(median "${plain_times[@]}")
mr=$(median "${rec_times[@]}")
"$COVKIT" sample dump "$RECS/$ROUNDS" --no-steps | awk '/^hit/ { h++ } /^image/ { i++ } END { printf "last recording: %d images, %d traps\n", i, h }'
awk -v p="$mp" -v r="$mr" -v n="$N" -v prog="$PROGRAM" 'BEGIN {
  printf "%s x %d: plain %.4fs, recorded %.4fs of CPU (medians): ratio %.3f (target <= 1.15)\n", prog, n, p, r, r / p }'
