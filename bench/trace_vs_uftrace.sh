#!/usr/bin/env bash
# trace_vs_uftrace.sh [COVKIT]
#
# Cost of function-call tracing per call, libcovkit-trace against
# `uftrace record`, side by side in one run, on the same program of tiny
# calls: bench/trace/fib.c (recursive fib(N), 2*F(N+1)-1 calls of fib plus
# main; 2,692,538 calls for N = 30) built with gcc-12 -O2 and the compiler hook
# BENCH_HOOK: instrument (-finstrument-functions, the default), pg (-pg: mcount
# after the prologue), fentry (-pg -mfentry: __fentry__ before it) or patch
# (-fpatchable-function-entry=5: NOPs that covkit's --patch and uftrace's -P
# turn into calls at run time).
#
# Configurations (each timed BENCH_RUNS times, interleaved round by round after
# one warm-up round; the median is reported):
#   plain        fib built without -finstrument-functions (information only)
#   nops         patch: the patchable build run without a tracer: the cost of
#                an untraced patchable function (its NOPs alone)
#   baseline     instrument: the instrumented binary without a tracer (glibc's
#                empty hooks); pg, fentry: the plain build (without a tracer
#                a -pg binary runs glibc's mcount and writes gmon.out: that is
#                gprof's cost, not a baseline), so ns/call is the hook's whole cost
#   covkit       COVKIT_TRACE_DIR=DIR LD_PRELOAD=libcovkit-trace.so ./fib N
#                with DIR on tmpfs and on the disk (next to covkit)
#   covkit-cli   `covkit trace record -o DIR -- ./fib N` on tmpfs (when that
#                command exists; it adds covkit's start and its summary line)
#   uftrace      `uftrace record -d DIR ./fib N` (its defaults), tmpfs and disk
# One clock reading (rdtsc, clock_gettime) is timed too (bench/trace/clock_cost.c):
# the hooks read the clock at each enter and exit, a floor under ns per call.
# Time = user + sys CPU time of the whole process tree (bash `time`, which
# counts every waited-for descendant: uftrace's writer threads, covkit's child)
# and wall time. ns per call = (tool - baseline) / calls. Bytes per call = the
# trace directory (du -sb) / calls. Prints the table, the calls each trace saw
# (covkit trace report --json or tests/trace_runtime/decode_trace.py; uftrace
# report) and the targets: covkit <= 25 ns per call, <= 0.5 x uftrace's ns per
# call, <= 8 bytes per call (PASS/MISS, on CPU time). Exit 0 either way (it is a
# measurement); 2 on setup errors; 1 when a run failed or the call counts differ.
# See bench/README.md.
#
# Environment:
#   COVKIT=path          covkit binary (default <repo>/build/covkit); the runtime is
#                        COVKIT_TRACE_LIB (default libcovkit-trace.so next to covkit)
#   BENCH_RUNS=5         timed runs per configuration
#   BENCH_N=30           fib(N)
#   BENCH_HOOK=instrument  instrument | pg | fentry | patch
#   BENCH_CC=gcc-12      compiler
#   BENCH_UFTRACE=uftrace
#   BENCH_TMPFS=/dev/shm where the tmpfs traces go
#   BENCH_DISK=DIR       where the disk traces (and the binaries) go (default: the
#                        directory of covkit, i.e. the build directory)
#   BENCH_CLI=auto       time `covkit trace record` too (auto: if it exists; 0: no)
#   BENCH_KEEP=1         keep the work directories (traces of the last round)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib/timing.sh"
if [ $# -gt 1 ]; then echo "usage: $0 [COVKIT]" >&2; exit 2; fi
COVKIT=${1:-${COVKIT:-$HERE/../build/covkit}}
case "$COVKIT" in
  */*) COVKIT=$(cd "$(dirname "$COVKIT")" 2>/dev/null && pwd)/$(basename "$COVKIT") ;;
  *)   COVKIT=$(command -v "$COVKIT") ;;
esac
LIB=$(realpath -m "${COVKIT_TRACE_LIB:-$(dirname "$COVKIT")/libcovkit-trace.so}")  # absolute: the runs happen in a work directory
RUNS=${BENCH_RUNS:-5}
N=${BENCH_N:-30}
CC=${BENCH_CC:-gcc-12}
UFTRACE=${BENCH_UFTRACE:-uftrace}
TMPFS=${BENCH_TMPFS:-/dev/shm}
DISK=${BENCH_DISK:-$(dirname "$COVKIT")}
CLI=${BENCH_CLI:-auto}
HOOK=${BENCH_HOOK:-instrument}
DECODER=$HERE/../tests/trace_runtime/decode_trace.py
export LC_ALL=C
unset COVKIT_TRACE_DIR COVKIT_TRACE_MAX_DEPTH COVKIT_TRACE_MIN_TIME_NS COVKIT_TRACE_CHUNK_KB \
      COVKIT_TRACE_CLOCK LD_PRELOAD

die() { echo "$0: $*" >&2; exit 2; }
[ -f "$LIB" ] || die "tracing runtime $LIB not found (ninja -C build covkit-trace; or set COVKIT_TRACE_LIB)"
for t in "$CC" "$UFTRACE" python3; do command -v "$t" >/dev/null || die "$t not found"; done
case "$RUNS" in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer" ;; esac
case "$N" in ''|*[!0-9]*) die "BENCH_N must be a non-negative integer" ;; esac
[ "$N" -le 45 ] || die "BENCH_N=$N: too many calls"
# -fno-optimize-sibling-calls: -pg, unlike -finstrument-functions, lets GCC
# turn fib's second call into a jump, and the hooks would see fewer calls.
case "$HOOK" in
  instrument) HOOK_FLAGS=(-finstrument-functions) ;;
  pg)         HOOK_FLAGS=(-pg -fno-optimize-sibling-calls) ;;
  fentry)     HOOK_FLAGS=(-pg -mfentry -fno-optimize-sibling-calls) ;;
  patch)      HOOK_FLAGS=(-fpatchable-function-entry=5 -fno-optimize-sibling-calls) ;;
  *)          die "BENCH_HOOK=$HOOK: instrument, pg, fentry or patch" ;;
esac
# Patchable entries are traced only where named: every function here.
CK_OPTS=() UF_OPTS=()
[ "$HOOK" = patch ] && CK_OPTS=(--patch .) UF_OPTS=(-P .)
HAVE_COVKIT=0; [ -x "$COVKIT" ] && HAVE_COVKIT=1
if [ "$CLI" = auto ]; then
  CLI=0
  [ $HAVE_COVKIT = 1 ] && "$COVKIT" trace record --help >/dev/null 2>&1 && CLI=1
fi
HAVE_REPORT=0
[ $HAVE_COVKIT = 1 ] && "$COVKIT" trace report --help >/dev/null 2>&1 && HAVE_REPORT=1

WS=$(mktemp -d "$TMPFS/covkit-trace-bench.XXXXXX") || die "cannot create a directory in $TMPFS"
WD=$(mktemp -d "$DISK/trace-bench.XXXXXX") || { rm -rf "$WS"; die "cannot create a directory in $DISK"; }
cleanup() { [ "${BENCH_KEEP:-0}" = 1 ] || [ "$FAILED" = 1 ] && { echo "kept: $WS $WD"; return; }; rm -rf "$WS" "$WD"; }
trap cleanup EXIT
LOG=$WD/stderr.log
fstype() { stat -f -c %T "$1"; }

# --- the program ----------------------------------------------------------------
# plain: -fno-optimize-sibling-calls keeps GCC from turning fib's second call
# into a loop (which the hooks prevent in the instrumented build), so both
# builds make the same calls.
SRC=$HERE/trace/fib.c
cd "$WD" || die "cannot enter $WD"  # a -pg program writes gmon.out in its working directory
"$CC" -O2 "${HOOK_FLAGS[@]}" "$SRC" -o "$WD/fib_inst" || die "$CC failed"
"$CC" -O2 -fno-optimize-sibling-calls "$SRC" -o "$WD/fib_plain" || die "$CC failed"
# What one clock reading costs here: the hooks read the clock twice per call.
"$CC" -O2 "$HERE/trace/clock_cost.c" -o "$WD/clock_cost" || die "$CC failed"
declare -A CLOCK_NS
while read -r name ns; do CLOCK_NS[$name]=$ns; done < <("$WD/clock_cost")
a=0 b=1
for ((i = 0; i < N; i++)); do t=$((a + b)); a=$b; b=$t; done   # a = F(N), b = F(N+1)
FIBN=$a
FIB_CALLS=$((2 * b - 1))
CALLS=$((FIB_CALLS + 1))
for p in fib_inst fib_plain; do
  out=$("$WD/$p" "$N")
  [ "$out" = "fib($N) = $FIBN" ] || die "$p printed '$out', expected 'fib($N) = $FIBN'"
done

# --- configurations ---------------------------------------------------------------
CFGS=(plain base)
[ "$HOOK" = patch ] && CFGS+=(nops)
CFGS+=(ck_shm ck_disk)
[ "$CLI" = 1 ] && CFGS+=(ckcli_shm)
CFGS+=(uf_shm uf_disk)
declare -A LABEL TDIR
LABEL[plain]="plain -O2 (no hooks)";    TDIR[plain]=
LABEL[base]="baseline (empty hooks)";   TDIR[base]=
[ "$HOOK" = instrument ] || LABEL[base]="baseline (plain)"
LABEL[nops]="patchable, untraced";     TDIR[nops]=
LABEL[ck_shm]="covkit tmpfs";           TDIR[ck_shm]=$WS/covkit
LABEL[ck_disk]="covkit disk";           TDIR[ck_disk]=$WD/covkit
LABEL[ckcli_shm]="covkit-cli tmpfs";    TDIR[ckcli_shm]=$WS/covkit-cli
LABEL[uf_shm]="uftrace tmpfs";          TDIR[uf_shm]=$WS/uftrace
LABEL[uf_disk]="uftrace disk";          TDIR[uf_disk]=$WD/uftrace
cmd_plain()     { "$WD/fib_plain" "$N"; }
cmd_base() {
  if [ "$HOOK" = instrument ]; then "$WD/fib_inst" "$N"; else "$WD/fib_plain" "$N"; fi
}
cmd_nops()      { "$WD/fib_inst" "$N"; }
# The runtime alone (no covkit command): with patchable entries it needs the
# list that `covkit trace record --patch` writes, made once here.
PATCH_ENV=()
if [ "$HOOK" = patch ]; then
  [ $HAVE_COVKIT = 1 ] || die "BENCH_HOOK=patch needs covkit (its --patch writes the list of entries)"
  "$COVKIT" trace record -o "$WD/patch-list" "${CK_OPTS[@]}" -- "$WD/fib_inst" 1 >/dev/null 2>>"$WD/setup.log" ||
    die "covkit trace record --patch failed (see $WD/setup.log)"
  cp "$WD/patch-list/covkit-patch" "$WD/covkit-patch" && rm -rf "$WD/patch-list"
  PATCH_ENV=(COVKIT_TRACE_PATCH="$WD/covkit-patch")
fi
cmd_ck_shm()    { env "${PATCH_ENV[@]}" COVKIT_TRACE_DIR="${TDIR[ck_shm]}" LD_PRELOAD="$LIB" "$WD/fib_inst" "$N"; }
cmd_ck_disk()   { env "${PATCH_ENV[@]}" COVKIT_TRACE_DIR="${TDIR[ck_disk]}" LD_PRELOAD="$LIB" "$WD/fib_inst" "$N"; }
cmd_ckcli_shm() { "$COVKIT" trace record -o "${TDIR[ckcli_shm]}" "${CK_OPTS[@]}" -- "$WD/fib_inst" "$N"; }
cmd_uf_shm()    { "$UFTRACE" record "${UF_OPTS[@]}" -d "${TDIR[uf_shm]}" "$WD/fib_inst" "$N"; }
cmd_uf_disk()   { "$UFTRACE" record "${UF_OPTS[@]}" -d "${TDIR[uf_disk]}" "$WD/fib_inst" "$N"; }

declare -A CPU WALL
FAILED=0
# One timed run: the previous trace is removed and dirty pages written back
# first (not timed). Appends "user+sys" and "wall" seconds to CPU[cfg], WALL[cfg].
run_one() {
  local cfg=$1 keep=$2 out rc cpu wall
  [ -n "${TDIR[$cfg]}" ] && rm -rf "${TDIR[$cfg]}"
  sync -f "$WD" 2>/dev/null || sync
  out=$(bench_time "$LOG" "cmd_$cfg"); rc=$?
  if [ $rc -ne 0 ]; then
    echo "$0: ${LABEL[$cfg]}: exit status $rc (stderr in $LOG)" >&2; FAILED=1; return
  fi
  read -r cpu wall <<<"$out"
  [ "$keep" = 1 ] || return 0
  CPU[$cfg]+="$cpu "
  WALL[$cfg]+="$wall "
}
median() { bench_median 4; }
minmax() { tr ' ' '\n' | grep . | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.3f-%.3f", lo, hi}'; }

echo "trace_vs_uftrace: fib($N) = $FIBN, $FIB_CALLS calls of fib + main = $CALLS calls per run;" \
  "hook $HOOK ($CC -O2 ${HOOK_FLAGS[*]})"
echo "  $("$CC" --version | head -1); $("$UFTRACE" --version 2>&1 | head -1)"
echo "  runtime $LIB; covkit-cli: $([ "$CLI" = 1 ] && echo "$COVKIT trace record" || echo "not timed")"
echo "  tmpfs $WS ($(fstype "$WS")), disk $WD ($(fstype "$WD"))"
echo "  $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores"
echo "  one clock reading: rdtsc ${CLOCK_NS[rdtsc]:--} ns, clock_gettime(CLOCK_MONOTONIC) ${CLOCK_NS[mono]:--} ns" \
  "(bench/trace/clock_cost.c; the hooks read it twice per call)"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "  load average at start: $LOAD0"
echo "  median of $RUNS runs after 1 warm-up round, configurations interleaved"
echo

for ((round = 0; round <= RUNS; round++)); do
  for c in "${CFGS[@]}"; do run_one "$c" $((round > 0)); done
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

# --- results ----------------------------------------------------------------------
declare -A MCPU MWALL NSCPU NSWALL BYTES BPC
for c in "${CFGS[@]}"; do
  MCPU[$c]=$(median <<<"${CPU[$c]:-}"); MWALL[$c]=$(median <<<"${WALL[$c]:-}")
done
for c in "${CFGS[@]}"; do
  NSCPU[$c]=$(awk -v t="${MCPU[$c]}" -v b="${MCPU[base]}" -v n=$CALLS 'BEGIN{printf "%.1f", (t - b) * 1e9 / n}')
  NSWALL[$c]=$(awk -v t="${MWALL[$c]}" -v b="${MWALL[base]}" -v n=$CALLS 'BEGIN{printf "%.1f", (t - b) * 1e9 / n}')
  if [ -n "${TDIR[$c]}" ] && [ -d "${TDIR[$c]}" ]; then
    BYTES[$c]=$(du -sb "${TDIR[$c]}" | cut -f1)
    BPC[$c]=$(awk -v b="${BYTES[$c]}" -v n=$CALLS 'BEGIN{printf "%.2f", b / n}')
  else
    BYTES[$c]=-; BPC[$c]=-
  fi
done

printf '%-24s %9s %13s %9s %12s %12s %12s %10s\n' configuration "cpu s" "cpu min-max" "wall s" \
  "ns/call cpu" "ns/call wall" "trace bytes" bytes/call
printf '%.0s-' {1..108}; echo
for c in "${CFGS[@]}"; do
  printf '%-24s %9.3f %13s %9.3f %12s %12s %12s %10s\n' "${LABEL[$c]}" "${MCPU[$c]}" \
    "$(minmax <<<"${CPU[$c]:-}")" "${MWALL[$c]}" "${NSCPU[$c]}" "${NSWALL[$c]}" "${BYTES[$c]}" "${BPC[$c]}"
done
if [ "$HOOK" = instrument ]; then
  echo "(ns/call = (time - baseline) / $CALLS calls; plain's negative value is the cost of glibc's empty hooks)"
else
  echo "(ns/call = (time - baseline) / $CALLS calls; the baseline is the plain build)"
  [ "$HOOK" = patch ] && echo "(patchable, untraced: the NOPs alone, $(awk -v t="${MCPU[nops]}" -v b="${MCPU[base]}" -v n=$CALLS 'BEGIN{printf "%.2f", (t - b) * 1e9 / n}') ns per call over the plain build)"
fi
echo

# Parts of the traces.
sumsize() { local s=0 f; for f in "$@"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo $s; }
for c in ck_shm ck_disk ckcli_shm; do
  [ -d "${TDIR[$c]:-}" ] || continue
  ckt=$(sumsize "${TDIR[$c]}"/*.ckt)
  clk=$(grep -h -m1 '^clock ' "${TDIR[$c]}"/*.meta 2>/dev/null | cut -d' ' -f2)
  printf '%-18s thread streams (*.ckt) %10d bytes = %.2f bytes/call; rest %d bytes; clock %s\n' "${LABEL[$c]}" \
    "$ckt" "$(awk -v b="$ckt" -v n=$CALLS 'BEGIN{print b / n}')" $((BYTES[$c] - ckt)) "${clk:-?}"
done
for c in uf_shm uf_disk; do
  [ -d "${TDIR[$c]}" ] || continue
  ev=$(sumsize "${TDIR[$c]}"/[0-9]*.dat)
  printf '%-18s event data (<tid>.dat)  %10d bytes = %.2f bytes/call; rest %d bytes (symbols, maps, perf-cpu*.dat, info)\n' \
    "${LABEL[$c]}" "$ev" "$(awk -v b="$ev" -v n=$CALLS 'BEGIN{print b / n}')" $((BYTES[$c] - ev))
done
echo

# --- sanity: the calls each trace saw -------------------------------------------
covkit_calls() {  # DIR -> "fib main" calls
  if [ $HAVE_REPORT = 1 ]; then
    "$COVKIT" trace report --json "$1" 2>>"$LOG" | python3 -c '
import json, sys
c = {}
for f in json.load(sys.stdin)["functions"]:
    c[f["name"]] = c.get(f["name"], 0) + f["calls"]
print(c.get("fib", 0), c.get("main", 0))'
  else
    python3 "$DECODER" --json "$1" 2>>"$LOG" | python3 -c '
import json, sys
c = {}
for p in json.load(sys.stdin)["processes"]:
    for t in p["threads"]:
        for k, v in t["calls"].items():
            c[k] = c.get(k, 0) + v
print(c.get("fib", 0), c.get("main", 0))'
  fi
}
uftrace_calls() {
  "$UFTRACE" report -d "$1" -f call --no-pager 2>>"$LOG" |
    awk '$2 == "fib" {f += $1} $2 == "main" {m += $1} END {print f + 0, m + 0}'
}
echo "calls seen (expected: fib $FIB_CALLS, main 1), counted by" \
  "$([ $HAVE_REPORT = 1 ] && echo "covkit trace report --json" || echo "decode_trace.py") and uftrace report:"
for c in ck_shm ck_disk ckcli_shm uf_shm uf_disk; do
  [ -d "${TDIR[$c]:-}" ] || continue
  case $c in uf_*) got=$(uftrace_calls "${TDIR[$c]}") ;; *) got=$(covkit_calls "${TDIR[$c]}") ;; esac
  read -r f m <<<"$got"
  ok=OK; [ "${f:-}" = "$FIB_CALLS" ] && [ "${m:-}" = 1 ] || { ok=MISMATCH; FAILED=1; }
  printf '  %-18s fib %10s  main %s  %s\n' "${LABEL[$c]}" "${f:-?}" "${m:-?}" "$ok"
done
echo

# --- verdicts (CPU time) ---------------------------------------------------------
verdict() { awk -v a="$1" -v b="$2" 'BEGIN{print (a <= b) ? "PASS" : "MISS"}'; }
echo "targets (on CPU time; load average at start $LOAD0, at end $LOAD1):"
for where in shm disk; do
  ck=ck_$where uf=uf_$where
  w=$([ $where = shm ] && echo tmpfs || echo disk)
  half=$(awk -v u="${NSCPU[$uf]}" 'BEGIN{printf "%.1f", u / 2}')
  ratio=$(awk -v c="${NSCPU[$ck]}" -v u="${NSCPU[$uf]}" 'BEGIN{printf "%.2f", (u > 0) ? c / u : 0}')
  clk=$(grep -h -m1 '^clock ' "${TDIR[$ck]}"/*.meta 2>/dev/null | cut -d' ' -f2)
  [ "$clk" = tsc ] && clk=rdtsc
  floor=""
  [ -n "${CLOCK_NS[$clk]:-}" ] &&
    floor="  (2 readings of $clk: $(awk -v c="${CLOCK_NS[$clk]}" 'BEGIN{printf "%.1f", 2 * c}') ns here)"
  printf '  %-6s covkit %6s ns/call <= 25                       %s%s\n' "$w" "${NSCPU[$ck]}" \
    "$(verdict "${NSCPU[$ck]}" 25)" "$floor"
  printf '  %-6s covkit %6s ns/call <= 0.5 x uftrace %6s = %5s  %s  (covkit/uftrace %s)\n' "$w" \
    "${NSCPU[$ck]}" "${NSCPU[$uf]}" "$half" "$(verdict "${NSCPU[$ck]}" "$half")" "$ratio"
  printf '  %-6s covkit %6s bytes/call <= 8 (uftrace %s)              %s\n' "$w" "${BPC[$ck]}" "${BPC[$uf]}" \
    "$(verdict "${BPC[$ck]}" 8)"
done
if [ "$CLI" = 1 ]; then
  printf '  covkit trace record (tmpfs, whole command incl. its summary): %s ns/call, %s bytes/call\n' \
    "${NSCPU[ckcli_shm]}" "${BPC[ckcli_shm]}"
fi
[ $FAILED = 0 ] || { echo "$0: a run failed or the call counts differ (see above; stderr in $LOG)" >&2; exit 1; }
exit 0
