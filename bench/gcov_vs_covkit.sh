#!/usr/bin/env bash
# gcov_vs_covkit.sh COVKIT [WORKDIR]
#
# Times `gcov-12` against `covkit gcov` (default threads, and --threads 1) on
# real code bases (Debian 12's zstd, jsoncpp and tinyxml2, built with
# --coverage by tests/realcode/fetch_and_build.sh into WORKDIR), the way a
# user runs gcov: one invocation per object directory, with all the objects
# of that directory, from the directory the compiler ran in; and on a
# one-file program (gcov once on one small object: start-up, which clients
# that run gcov once per object pay per object). Option sets: `-b -c` and
# `-j -b`.
#
# Before timing anything it verifies (tests/realcode/compare.sh, modes bc and
# jb, --threads 1 and 2) that covkit's outputs are identical to gcov's: a fast
# but wrong tool must not look good. See bench/README.md.
#
# The commands alternate within every round (round r runs each command once,
# the previous outputs deleted first, untimed), so a change of the shared
# machine's load hits them alike. Each command is run twice a round: by
# bench/lib/tool_cpu.py, which starts each invocation itself and counts the
# CPU time (user + system) of the tool's processes only -- the verdict's
# measure -- and as a bash script timed whole (bash and its fork per
# invocation included: the harness, the same for both tools, shown beside it
# for transparency). Wall time is shown beside CPU time.
#
# Environment:
#   BENCH_RUNS=7       rounds (median and minimum reported), after 1 warm-up
#   BENCH_PKGS="zstd jsoncpp tinyxml2 onefile"   code bases (also zlib)
#   BENCH_GCCVER=12    gcc-N / gcov-N
#   BENCH_OPT=O0       O0 or O2 build of the packages
#   BENCH_THREADS="0 1"  covkit --threads values to time (0: the default, all cores)
#   BENCH_OPTS="-b -c|-j -b"   option sets, separated by |
#   BENCH_SKIP_VERIFY=1  skip the output verification (NOT for published numbers)
#   BENCH_JSON=FILE    also write the results as JSON to FILE
#   BENCH_SCRATCH=DIR  where the timed copies go (default WORKDIR; /dev/shm takes
#                      the file system out)
# WORKDIR defaults to $COVKIT_REALCODE_CACHE, else <dir of COVKIT>/realcode
# (= the CMake build dir's cache used by the realcode.* ctest tests).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 COVKIT [WORKDIR]" >&2
  exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RC=$HERE/../tests/realcode
# shellcheck source=lib/timing.sh
. "$HERE/lib/timing.sh"
COVKIT=$1
case "$COVKIT" in
  */*) COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT") ;;
  *)   COVKIT=$(command -v "$COVKIT") ;;
esac
[ -x "$COVKIT" ] || { echo "$0: $COVKIT is not executable" >&2; exit 2; }
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$(dirname "$COVKIT")/realcode}}
RUNS=${BENCH_RUNS:-7}
PKGS=${BENCH_PKGS:-${BENCH_PKG:-zstd jsoncpp tinyxml2 onefile}}
GCCVER=${BENCH_GCCVER:-12}
OPT=${BENCH_OPT:-O0}
THREADS=${BENCH_THREADS:-0 1}
OPTSETS=${BENCH_OPTS:--b -c|-j -b}
GCOV=gcov-$GCCVER
DUMP=gcov-dump-$GCCVER
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export LC_ALL=C
command -v "$GCOV" >/dev/null || { echo "$0: $GCOV not found" >&2; exit 2; }
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)
SCRATCH=$(mktemp -d "${BENCH_SCRATCH:-$WORKDIR}/bench.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
RESULTS=$SCRATCH/results.tsv
: >"$RESULTS"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# The one-file program: a tree of one object, as fetch_and_build.sh leaves
# them (the source beside, a marker), so realcode.py plans it the same way.
make_onefile() {
  local tree=$1
  [ -f "$tree/.covkit-realcode-tree" ] && return 0
  rm -rf "$tree" && mkdir -p "$tree"
  cat >"$tree/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static int collatz(long n) {
  int steps = 0;
  while (n != 1) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}
int main(int argc, char **argv) {
  long limit = argc > 1 ? atol(argv[1]) : 1000;
  int longest = 0;
  for (long i = 1; i < limit; i++) {
    int s = collatz(i);
    if (s > longest) longest = s;
  }
  printf("%d\n", longest);
  return 0;
}
EOF
  (cd "$tree" && "gcc-$GCCVER" --coverage -O0 -g prog.c -o prog && ./prog 3000 >/dev/null)
  printf 'pkg=onefile\nversion=1\ngccver=%s\nopt=O0\nroot=%s\n' "$GCCVER" "$tree" >"$tree/.covkit-realcode-tree"
}

# --- per code base: build, verify, time ---------------------------------------
bench_package() {
  local pkg=$1 tree
  if [ "$pkg" = onefile ]; then
    tree=$WORKDIR/onefile-gcc$GCCVER-O0
    make_onefile "$tree"
  else
    "$RC/fetch_and_build.sh" "$pkg" "$WORKDIR" "$GCCVER" "$OPT" >&2 || {
      rc=$?; echo "$0: fetch_and_build.sh $pkg failed ($rc)" >&2; exit $rc; }
    tree=$WORKDIR/$pkg-gcc$GCCVER-$OPT
  fi
  local sdir=$SCRATCH/$pkg
  mkdir -p "$sdir"

  if [ "${BENCH_SKIP_VERIFY:-0}" != 1 ]; then
    echo "$pkg: verifying that covkit's outputs are identical to $GCOV's (modes -b -c, -j -b) ..." >&2
    if ! COVKIT_REALCODE_MODES=bc,jb COVKIT_REALCODE_THREADS=1,2 \
         "$RC/compare.sh" "$COVKIT" "$GCCVER" "$tree" >"$sdir/verify.log" 2>&1; then
      cat "$sdir/verify.log" >&2
      echo "$0: $pkg: covkit's outputs differ from $GCOV's: not benchmarking" >&2
      exit 1
    fi
    tail -n1 "$sdir/verify.log" >&2
  else
    echo "WARNING: output verification skipped (BENCH_SKIP_VERIFY=1)" >&2
  fi

  local copy=$sdir/tree
  cp -a "$tree" "$copy"
  "$PY" "$RC/realcode.py" groups --gcov-dump "$DUMP" "$tree" >"$sdir/groups.json"
  local nobj ngroups
  read -r nobj ngroups < <("$PY" -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(sum(len(g["objs"]) for g in d["groups"]), len(d["groups"]))' "$sdir/groups.json")
  # Removes the outputs of the previous run (not timed).
  "$PY" - "$sdir/groups.json" "$copy" >"$sdir/clean.sh" <<'EOF'
import json, os, shlex, sys
d = json.load(open(sys.argv[1]))
print("#!/bin/bash")
for cwd in sorted({g["cwd"] for g in d["groups"]}):
    print("cd %s && rm -f -- *.gcov *.gcov.json.gz" % shlex.quote(os.path.normpath(os.path.join(sys.argv[2], cwd))))
EOF
  local names=() scripts=() cmdlists=() opts t i r
  IFS='|' read -r -a optsets <<<"$OPTSETS"
  for opts in "${optsets[@]}"; do
    for t in "$GCOV" $THREADS; do
      local tool label
      if [ "$t" = "$GCOV" ]; then tool=$GCOV; label=$GCOV
      elif [ "$t" = 0 ]; then tool="$(printf '%q' "$COVKIT") gcov"; label="covkit"
      else tool="$(printf '%q' "$COVKIT") gcov --threads $t"; label="covkit --threads $t"; fi
      i=${#names[@]}
      "$PY" "$RC/realcode.py" script --gcov-dump "$DUMP" --tool "$tool" --opts "$opts" \
          --run-in "$copy" "$tree" >"$sdir/cmd$i.sh"
      "$PY" "$RC/realcode.py" script --json --gcov-dump "$DUMP" --tool "$tool" --opts "$opts" \
          --run-in "$copy" "$tree" >"$sdir/cmd$i.json"
      names+=("$opts|$label")
      scripts+=("$sdir/cmd$i.sh")
      cmdlists+=("$sdir/cmd$i.json")
    done
  done

  # The one-file tree's pass is ~1 ms of CPU, below what a pass's rusage
  # resolves (7 rounds read 1.1 against 1.2 ms): its tool-only figure is the
  # mean of BENCH_ONEFILE_REPEAT passes a round (the outputs rewritten).
  local repeat=1
  [ "$pkg" = onefile ] && repeat=${BENCH_ONEFILE_REPEAT:-50}
  echo "$pkg: timing ${#names[@]} commands, $RUNS rounds (+1 warm-up), alternating; tool-only figure: mean of $repeat pass(es) a round ..." >&2
  for ((r = -1; r < RUNS; r++)); do
    for i in "${!names[@]}"; do
      bash "$sdir/clean.sh"
      sync
      local m t
      m=$(bench_time "$sdir/stderr.log" bash "${scripts[$i]}") || {
        echo "$0: command failed: ${names[$i]} (${scripts[$i]})" >&2; exit 1; }
      bash "$sdir/clean.sh"
      sync
      t=$("$PY" "$HERE/lib/tool_cpu.py" "${cmdlists[$i]}" "$repeat") || {
        echo "$0: command failed: ${names[$i]} (${cmdlists[$i]})" >&2; exit 1; }
      [ "$r" -ge 0 ] && printf '%s\t%s\t%s %s\n' "$pkg" "${names[$i]}" "$t" "$m" >>"$RESULTS"
    done
  done
  # Peak RSS: one more run of each under /usr/bin/time (the largest process).
  for i in "${!names[@]}"; do
    bash "$sdir/clean.sh"
    /usr/bin/time -f '%M' -o "$sdir/rss$i" bash "${scripts[$i]}" >/dev/null 2>&1
    printf '%s\t%s\tRSS %s\n' "$pkg" "${names[$i]}" "$(tail -n1 "$sdir/rss$i")" >>"$RESULTS"
  done
  printf '%s\tINFO\t%s %s %s %s\n' "$pkg" "$nobj" "$ngroups" \
      "$(sed -n 's/^version=//p' "$tree/.covkit-realcode-tree")" "$GCCVER" >>"$RESULTS"
}

for pkg in $PKGS; do bench_package "$pkg"; done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- report ---------------------------------------------------------------------
"$PY" - "$RESULTS" "$RUNS" "$GCOV" "${BENCH_JSON:-}" <<'EOF'
import json, statistics, sys
path, runs, gcov, jsonout = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
data, info, rss = {}, {}, {}
for line in open(path):
    pkg, name, rest = line.rstrip("\n").split("\t")
    if name == "INFO":
        info[pkg] = rest.split()
        continue
    if rest.startswith("RSS "):
        rss[(pkg, name)] = int(rest.split()[1]) / 1024
        continue
    # tool's processes only (cpu, wall), then the whole script (cpu, wall)
    data.setdefault((pkg, name), []).append(tuple(float(x) for x in rest.split()))
med = lambda rows, k: statistics.median(r[k] for r in rows)
out = []
for pkg in dict.fromkeys(p for p, _ in data):
    nobj, ngroups, version, gccver = info[pkg]
    print(f"\n{pkg} {version} gcc-{gccver}: {nobj} objects, {ngroups} invocations per run; "
          f"{runs} rounds, tools alternating; outputs verified identical")
    hdr = (f"{'options':<8} {'tool':<20} {'cpu med':>9} {'cpu min':>9} {'wall med':>9}"
           f" {'RSS MB':>7} {'cpu ' + gcov + '/tool':>17} {'wall':>6}"
           f" | {'script cpu':>10} {'ratio':>6} {'wall':>6}")
    print(hdr)
    print("-" * len(hdr))
    for opts in dict.fromkeys(n.split("|")[0] for p, n in data if p == pkg):
        base = data[(pkg, f"{opts}|{gcov}")]
        for (p, name), rows in data.items():
            if p != pkg or not name.startswith(opts + "|"):
                continue
            tool = name.split("|", 1)[1]
            row = dict(pkg=pkg, opts=opts, tool=tool, cpu_median=med(rows, 0), cpu_min=min(r[0] for r in rows),
                       wall_median=med(rows, 1), wall_min=min(r[1] for r in rows),
                       script_cpu_median=med(rows, 2), script_cpu_min=min(r[2] for r in rows),
                       script_wall_median=med(rows, 3), rss_mb=rss.get((pkg, name), 0.0))
            ratio = lambda k: med(base, k) / med(rows, k) if med(rows, k) > 0 else float("nan")
            row.update(cpu_ratio=ratio(0), wall_ratio=ratio(1), script_cpu_ratio=ratio(2), script_wall_ratio=ratio(3))
            out.append(row)
            print(f"{opts:<8} {tool:<20} {row['cpu_median']:9.5f} {row['cpu_min']:9.5f} {row['wall_median']:9.5f}"
                  f" {row['rss_mb']:7.1f} {row['cpu_ratio']:16.2f}x {row['wall_ratio']:5.2f}x"
                  f" | {row['script_cpu_median']:10.3f} {row['script_cpu_ratio']:5.2f}x {row['script_wall_ratio']:5.2f}x")
print()
target = {"onefile": 1.0}
for pkg in dict.fromkeys(r["pkg"] for r in out):
    want = target.get(pkg, 3.0)
    for r in out:
        if r["pkg"] != pkg or r["tool"] == gcov or "--threads" in r["tool"]:
            continue
        verdict = "PASS" if r["cpu_ratio"] >= want else "MISS"
        print(f"{pkg:9} {r['opts']:6} covkit: {r['cpu_ratio']:.2f}x gcov's speed on CPU time, "
              f"{r['wall_ratio']:.2f}x on wall time  {verdict} (target >= {want:.1f}x); "
              f"whole script: {r['script_cpu_ratio']:.2f}x CPU, {r['script_wall_ratio']:.2f}x wall")
print("(seconds per run: medians and minima over the rounds. CPU = user + system of the tool's processes "
      "(their exec, threads and exit included), counted by bench/lib/tool_cpu.py, the verdict's measure; "
      "'script': the same commands as one bash script timed whole, the shell and its fork per invocation "
      "included (the harness, not either tool's cost). Peak RSS: largest single process)")
if jsonout:
    json.dump(out, open(jsonout, "w"), indent=1)
EOF
