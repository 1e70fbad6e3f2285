#!/bin/sh
# Builds the libFuzzer targets with clang in build-fuzz/ (ASan + UBSan, with
# covkit_core instrumented) and runs each for SECONDS, one after the other,
# each on all cores (libFuzzer fork mode, continuing past crashes so one
# known bug does not hide the next). Prints executions and crashes per target,
# and exits 1 when a run left a new crashing input (crash-*, leak-*): a find
# is a defect, and CI must not pass over it. Timeouts and out-of-memory
# inputs are reported but do not fail the run (a loaded machine can make a
# slow input look hung).
#
#   fuzz/run_fuzzers.sh SECONDS [fuzz_gcno fuzz_gcda fuzz_session fuzz_tracefile fuzz_diff fuzz_trace fuzz_stream fuzz_sample fuzz_gmon fuzz_eh_frame fuzz_profraw fuzz_profdata fuzz_covmap fuzz_blocks fuzz_quick_decode]
#
# Environment: FUZZ_JOBS (parallel jobs per target, default: nproc),
# FUZZ_BUILD (build directory, default: build-fuzz next to this tree; one
# configured with -DCOVKIT_FUZZ=ON is used as it is).
# Corpora grow in $FUZZ_BUILD/fuzz-corpus/<target>, crashing inputs land in
# $FUZZ_BUILD/fuzz-artifacts/<target>/ (crash-*, timeout-*, oom-*); a summary
# of each run is in $FUZZ_BUILD/fuzz-logs/<target>.log.
set -eu
secs=${1:?usage: run_fuzzers.sh SECONDS [target...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
targets=${*:-fuzz_gcno fuzz_gcda fuzz_session fuzz_tracefile fuzz_diff fuzz_trace fuzz_stream fuzz_sample fuzz_gmon fuzz_eh_frame fuzz_profraw fuzz_profdata fuzz_covmap fuzz_blocks fuzz_quick_decode}

# A tree configured for fuzzing already (scripts/test.sh's sanitized build,
# which serves its tests and the fuzzers) is built as it is.
if ! grep -qs '^COVKIT_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCOVKIT_FUZZ=ON -DCOVKIT_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C "$build" $targets >/dev/null
"$root/fuzz/make_seeds.sh" "$build/fuzz-seeds" >/dev/null

summary=""
found=0
for t in $targets; do
  case $t in
    fuzz_gcno) seeds=gcno max_len=8192 ;;
    fuzz_gcda) seeds=gcda max_len=4096 ;;
    fuzz_session) seeds=session max_len=8192 ;;
    fuzz_tracefile) seeds=tracefile max_len=8192 ;;
    fuzz_diff) seeds=diff max_len=4096 ;;
    fuzz_trace) seeds=trace max_len=8192 ;;
    fuzz_stream) seeds=stream max_len=8192 ;;
    fuzz_sample) seeds=sample max_len=8192 ;;
    fuzz_gmon) seeds=gmon max_len=8192 ;;
    fuzz_eh_frame) seeds=eh_frame max_len=8192 ;;
    fuzz_profraw) seeds=profraw max_len=16384 ;;
    fuzz_profdata) seeds=profdata max_len=16384 ;;
    fuzz_covmap) seeds=covmap max_len=16384 ;;
    fuzz_blocks) seeds=blocks max_len=8192 ;;
    fuzz_quick_decode) seeds=quick_decode max_len=16 ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  corpus=$build/fuzz-corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  logs=$build/fuzz-logs
  mkdir -p "$corpus" "$artifacts" "$logs"
  cp "$build/fuzz-seeds/$seeds"/* "$corpus"/ 2>/dev/null || true
  before=$(ls "$artifacts" | wc -l)
  crashes_before=$(ls "$artifacts" | grep -c -E '^(crash|leak)-' || true)
  echo "== $t: ${secs}s on $jobs jobs (corpus $(ls "$corpus" | wc -l) inputs)"
  # Fork mode writes job logs to the working directory: use a scratch one.
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/covkit-fuzz-XXXXXX")
  (cd "$scratch" && "$build/fuzz/$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
      -artifact_prefix="$artifacts/" "$corpus" >"$logs/$t.log" 2>&1) || true
  rm -rf "$scratch"
  # The last fork-mode status line: "#EXECS: cov: ... oom/timeout/crash: O/T/C time: ...".
  status=$(grep -E '^#[0-9]+: cov:' "$logs/$t.log" | tail -1)
  execs=$(echo "$status" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  otc=$(echo "$status" | sed -n 's/.*oom\/timeout\/crash: \([0-9]*\/[0-9]*\/[0-9]*\).*/\1/p')
  after=$(ls "$artifacts" | wc -l)
  crashes_after=$(ls "$artifacts" | grep -c -E '^(crash|leak)-' || true)
  line="$t: ${execs:-?} executions, oom/timeout/crash ${otc:-?}, $((after - before)) new artifacts in $artifacts"
  if [ "$crashes_after" -gt "$crashes_before" ]; then
    found=1
    line="$line (FAILED: $((crashes_after - crashes_before)) new crashing inputs; replay one with $build/fuzz/$t FILE)"
  fi
  echo "$line"
  summary="$summary$line
"
done
echo
echo "Summary (${secs}s per target):"
printf '%s' "$summary"
exit $found
