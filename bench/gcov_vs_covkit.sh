#!/usr/bin/env bash
# gcov_vs_covkit.sh COVKIT [WORKDIR]
#
# Times `gcov-12` against `covkit gcov --threads 1` and `--threads 2` on a real
# code base (Debian 12's zstd, built with --coverage by
# tests/realcode/fetch_and_build.sh into WORKDIR), the way a user runs gcov:
# one invocation per object directory, with all the objects of that directory,
# from the directory the compiler ran in. Option sets: `-b -c` and `-j -b`.
#
# Before timing anything it verifies (tests/realcode/compare.sh, modes bc and
# jb, --threads 1 and 2) that covkit's outputs are identical to gcov's: a fast
# but wrong tool must not look good. See bench/README.md.
#
# Environment:
#   BENCH_RUNS=5       timed runs per command (median reported), after 1 warm-up
#   BENCH_PKG=zstd     package (zstd or zlib)
#   BENCH_GCCVER=12    gcc-N / gcov-N
#   BENCH_OPT=O0       O0 or O2 build of the package
#   BENCH_THREADS="1 2"  covkit --threads values to time
#   BENCH_SKIP_VERIFY=1  skip the output verification (NOT for published numbers)
#   BENCH_JSON=FILE    also write the results as JSON to FILE
#   BENCH_SCRATCH=DIR  where the timed copy of the tree goes (default WORKDIR)
# WORKDIR defaults to $COVKIT_REALCODE_CACHE, else <dir of COVKIT>/realcode
# (= the CMake build dir's cache used by the realcode.* ctest tests).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 COVKIT [WORKDIR]" >&2
  exit 2
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RC=$HERE/../tests/realcode
COVKIT=$1
case "$COVKIT" in
  */*) COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT") ;;
  *)   COVKIT=$(command -v "$COVKIT") ;;
esac
[ -x "$COVKIT" ] || { echo "$0: $COVKIT is not executable" >&2; exit 2; }
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$(dirname "$COVKIT")/realcode}}
RUNS=${BENCH_RUNS:-5}
PKG=${BENCH_PKG:-zstd}
GCCVER=${BENCH_GCCVER:-12}
OPT=${BENCH_OPT:-O0}
THREADS=${BENCH_THREADS:-1 2}
GCOV=gcov-$GCCVER
DUMP=gcov-dump-$GCCVER
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export LC_ALL=C

# --- tools ------------------------------------------------------------------
need=()
[ -x /usr/bin/time ] || need+=(time)
command -v hyperfine >/dev/null || need+=(hyperfine)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  echo "installing ${need[*]} ..." >&2
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"; } \
    >/dev/null 2>&1 || echo "warning: could not install ${need[*]}" >&2
fi
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (package 'time') is required" >&2; exit 2; }
HAVE_HYPERFINE=0
command -v hyperfine >/dev/null && HAVE_HYPERFINE=1

# --- the code base ----------------------------------------------------------
"$RC/fetch_and_build.sh" "$PKG" "$WORKDIR" "$GCCVER" "$OPT" >&2 || {
  rc=$?; echo "$0: fetch_and_build.sh failed ($rc)" >&2; exit $rc; }
WORKDIR=$(cd "$WORKDIR" && pwd -P)
TREE=$WORKDIR/$PKG-gcc$GCCVER-$OPT

# The timed runs use a copy of the tree on the same file system as the cache
# (as a user's build tree would be); BENCH_SCRATCH=/dev/shm measures on tmpfs.
SCRATCH=$(mktemp -d "${BENCH_SCRATCH:-$WORKDIR}/bench.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# --- 1. verify ----------------------------------------------------------------
if [ "${BENCH_SKIP_VERIFY:-0}" != 1 ]; then
  echo "verifying that covkit's outputs are identical to $GCOV's (modes -b -c, -j -b; threads ${THREADS// /,}) ..." >&2
  if ! COVKIT_REALCODE_MODES=bc,jb COVKIT_REALCODE_THREADS=${THREADS// /,} \
       "$RC/compare.sh" "$COVKIT" "$GCCVER" "$TREE" >"$SCRATCH/verify.log" 2>&1; then
    cat "$SCRATCH/verify.log" >&2
    echo "$0: covkit's outputs differ from $GCOV's: not benchmarking" >&2
    exit 1
  fi
  tail -n1 "$SCRATCH/verify.log" >&2
else
  echo "WARNING: output verification skipped (BENCH_SKIP_VERIFY=1)" >&2
fi

# --- 2. time ------------------------------------------------------------------
COPY=$SCRATCH/tree
cp -a "$TREE" "$COPY"
"$PY" "$RC/realcode.py" groups --gcov-dump "$DUMP" "$TREE" >"$SCRATCH/groups.json"
read -r NOBJ NGROUPS < <("$PY" -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(sum(len(g["objs"]) for g in d["groups"]), len(d["groups"]))' "$SCRATCH/groups.json")

# cleanup script: remove the outputs of the previous run (hyperfine --prepare)
"$PY" - "$SCRATCH/groups.json" "$COPY" >"$SCRATCH/clean.sh" <<'EOF'
import json, os, shlex, sys
d = json.load(open(sys.argv[1]))
print("#!/bin/bash")
for cwd in sorted({g["cwd"] for g in d["groups"]}):
    print("cd %s && rm -f -- *.gcov *.gcov.json.gz" % shlex.quote(os.path.normpath(os.path.join(sys.argv[2], cwd))))
EOF

NAMES=()
SCRIPTS=()
add_cmd() {  # name tool opts
  local i=${#NAMES[@]}
  "$PY" "$RC/realcode.py" script --gcov-dump "$DUMP" --tool "$2" --opts "$3" \
      --run-in "$COPY" "$TREE" >"$SCRATCH/cmd$i.sh"
  NAMES+=("$1")
  SCRIPTS+=("$SCRATCH/cmd$i.sh")
}
for opts in "-b -c" "-j -b"; do
  add_cmd "$opts|$GCOV" "$GCOV" "$opts"
  for t in $THREADS; do
    add_cmd "$opts|covkit --threads $t" "$(printf '%q' "$COVKIT") gcov --threads $t" "$opts"
  done
done

echo "timing ${#NAMES[@]} commands, $RUNS runs each (+1 warm-up), hyperfine=$HAVE_HYPERFINE ..." >&2
RESULTS=$SCRATCH/results.tsv
: >"$RESULTS"
for i in "${!NAMES[@]}"; do
  s=${SCRIPTS[$i]}
  times=()
  if [ $HAVE_HYPERFINE = 1 ]; then
    hyperfine -N --style none --warmup 1 --runs "$RUNS" \
      --prepare "bash $SCRATCH/clean.sh" --export-json "$SCRATCH/hf$i.json" \
      "bash $s" >/dev/null 2>&1 || { echo "$0: command failed: ${NAMES[$i]} ($s)" >&2; exit 1; }
    mapfile -t times < <("$PY" -c '
import json,sys
r=json.load(open(sys.argv[1]))["results"][0]
for t in r["times"]: print(t)
print("CPU", r["user"], r["system"])' "$SCRATCH/hf$i.json")
  else
    bash "$SCRATCH/clean.sh"; bash "$s"       # warm-up
    for ((r = 0; r < RUNS; r++)); do
      bash "$SCRATCH/clean.sh"
      t0=$(date +%s.%N); bash "$s"; t1=$(date +%s.%N)
      times+=("$(echo "$t1 - $t0" | bc -l 2>/dev/null || "$PY" -c "print($t1-$t0)")")
    done
    times+=("CPU nan nan")
  fi
  bash "$SCRATCH/clean.sh"
  /usr/bin/time -f '%M %U %S' -o "$SCRATCH/rss$i" bash "$s"
  printf '%s\t%s\t%s\n' "${NAMES[$i]}" "$(cat "$SCRATCH/rss$i")" "${times[*]}" >>"$RESULTS"
done

# --- 3. report ----------------------------------------------------------------
"$PY" - "$RESULTS" "$PKG $(sed -n 's/^version=//p' "$TREE/.covkit-realcode-tree") gcc-$GCCVER -$OPT" \
       "$NOBJ" "$NGROUPS" "$RUNS" "$GCOV" "${BENCH_JSON:-}" <<'EOF'
import json, statistics, sys
path, what, nobj, ngroups, runs, gcov, jsonout = sys.argv[1:8]
rows = []
for line in open(path):
    name, rss, times = line.rstrip("\n").split("\t")
    opts, tool = name.split("|")
    rss_kb = int(rss.split()[0])
    parts = times.split()
    cpu_i = parts.index("CPU")
    ts = [float(x) for x in parts[:cpu_i]]
    user, sys_ = parts[cpu_i + 1], parts[cpu_i + 2]
    rows.append(dict(opts=opts, tool=tool, median=statistics.median(ts), min=min(ts),
                     max=max(ts), user=float(user), sys=float(sys_), rss_mb=rss_kb / 1024.0))
print(f"\n{what}: {nobj} objects in {ngroups} object directories "
      f"({ngroups} invocations per run); median of {runs} runs; outputs verified identical\n")
hdr = f"{'options':<8} {'tool':<22} {'median s':>9} {'min s':>7} {'max s':>7} {'user s':>7} {'sys s':>6} {'peak RSS MB':>11} {gcov + '/tool':>12}"
print(hdr)
print("-" * len(hdr))
for opts in dict.fromkeys(r["opts"] for r in rows):
    base = next(r for r in rows if r["opts"] == opts and r["tool"] == gcov)
    for r in rows:
        if r["opts"] != opts:
            continue
        r["ratio"] = base["median"] / r["median"] if r["median"] > 0 else float("nan")
        print(f"{opts:<8} {r['tool']:<22} {r['median']:9.3f} {r['min']:7.3f} {r['max']:7.3f} "
              f"{r['user']:7.3f} {r['sys']:6.3f} {r['rss_mb']:11.1f} {r['ratio']:11.2f}x")
print()
for opts in dict.fromkeys(r["opts"] for r in rows):
    rs = [f"{r['tool'].replace('covkit ', '')}: {r['ratio']:.2f}x" for r in rows
          if r["opts"] == opts and r["tool"] != gcov]
    print(f"speed-up vs {gcov} ({opts}): " + ", ".join(rs))
print("(peak RSS: largest single process of a run, from /usr/bin/time; user/sys: mean CPU seconds per run)")
if jsonout:
    json.dump(dict(what=what, objects=int(nobj), groups=int(ngroups), runs=int(runs), rows=rows),
              open(jsonout, "w"), indent=1)
EOF
