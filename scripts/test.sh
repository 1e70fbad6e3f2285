#!/usr/bin/env bash
# Builds covkit twice (plain with GCC; with AddressSanitizer + UBSan with
# clang, which also builds the fuzzers) and runs the whole test suite on
# both: unit tests, differential tests against gcov 11 and 12, real Debian
# code bases, hostile inputs, and a short fuzzing run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
jobs=$(nproc)
export COVKIT_REALCODE_CACHE=${COVKIT_REALCODE_CACHE:-$root/build-cache/realcode}
status=0

# Runs ctest in DIR. In CI (CI set) every tool the tests need is installed
# by install-deps.sh, so a skipped test (a GTEST_SKIP, or a script's exit 77
# for a missing compiler or oracle) means a broken set-up: it fails the run.
run_ctest() {
  local dir=$1 log
  shift
  log=$(mktemp)
  (cd "$dir" && ctest "$@" 2>&1) | tee "$log"
  local rc=${PIPESTATUS[0]}
  # Tests that need a privilege rather than a tool (mounting a tmpfs, opening
  # perf_event_open counters) may skip.
  local may_skip='report_cli\.html_mount_point|sample_record_perf_'
  if [ -n "${CI:-}" ] && grep '(Skipped)' "$log" | grep -Evq "$may_skip"; then
    echo "CI: these tests were skipped; every tool they need is installed here, so that is a failure:"
    grep '(Skipped)' "$log" | grep -Ev "$may_skip"
    rc=1
  fi
  failure_digest "$log" "$(basename "$dir")" >> "$digest"
  rm -f "$log"
  return "$rc"
}

# The last lines of each failed test's output (where a scenario says what
# failed), for the end of the run: CI's excerpt of a run is a window around
# its first failure and its last ~20 lines; the other failures fell between.
digest=$(mktemp)
trap 'rm -f "$digest"' EXIT
failure_digest() {
  awk -v pass="$2" '
    function flush() { if (name != "") { print "--- " name " (" pass ")"; s = n > 5 ? n - 5 : 0; for (i = s + 1; i <= n; i++) print substr(buf[i], 1, 300) }; name = ""; n = 0 }
    /^ *Start +[0-9]+: / || /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { flush() }
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)/ || /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\(Failed\)/ {
      name = $0; sub(/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: /, "", name); sub(/ *\.\.\.+.*/, "", name); next }
    name != "" && $0 !~ /^[[:space:]]*$/ { buf[++n] = $0 }
    END { flush() }' "$1"
}

# A subset of gcov's option sets that still uses every option, every way of
# naming objects and both invocation modes (tests/differential/optsets.txt).
diff_subset=plain,abcu,jabu,tjb,t,lp,xlp,rpb,s_build,tHabcu,kqab,longo,bogus,cdbuild,absb
# The same for clang's files against llvm-cov gcov (optsets_clang.txt).
clang_subset=plain,b,abcu,fmb,t,lp,xlp,rpb,s_build,nf,longo,bogus,cdbuild,absb,oobj,ibm,irabs

phase() { echo "== $1 (at ${SECONDS}s)"; }  # where CI's minutes go
# What the ptrace-heavy tests depend on, for reading a failure in CI's log.
echo "machine: kernel $(uname -r), $jobs cores, pid_max $(cat /proc/sys/kernel/pid_max 2>/dev/null || echo '?'), $(id -un)"
phase "plain build"
"$root/scripts/build.sh" "$root/build"
phase "plain tests"
# Every option set against gcov 12; against gcov 11 (the same readers and
# writers, its own version rules) the subset: ~200 s of CI's time; against
# llvm-cov gcov on clang's files a subset using every option llvm-cov has.
DIFF_ONLY_GCC11=$diff_subset DIFF_ONLY_GCCclang=$clang_subset \
  run_ctest "$root/build" -j"$jobs" --output-on-failure --timeout 900 || status=1

phase "AddressSanitizer + UBSan build"
# One sanitized build, with clang, serves the tests and the fuzzers
# (libFuzzer needs clang; covkit's libraries carry its coverage
# instrumentation, which does nothing outside a fuzzer): a third clean build
# cost CI minutes. The plain build stays GCC's. A tree left by GCC is
# configured anew (CMake keeps a tree's compiler).
if [ -f "$root/build-asan/CMakeCache.txt" ] &&
   ! grep -qs '^COVKIT_FUZZ:BOOL=ON' "$root/build-asan/CMakeCache.txt"; then
  rm -rf "$root/build-asan"
fi
CC=clang CXX=clang++ "$root/scripts/build.sh" "$root/build-asan" -DCOVKIT_SANITIZE=ON -DCOVKIT_FUZZ=ON
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The sanitizers watch covkit, not the oracles: the slowest oracle runs (lcov
# on real code, the gcc-11 repeats of the gcov and lcov corpora, the clang
# repeat of the lcov corpus (clang's files are read by the same sanitized
# code in diff.clang.*), -O2 real
# code) add minutes there and few new covkit code paths (GCC 11 files still
# go through the sanitizers in the hostile-input tests), so they run in the
# plain pass only, as does the larger real code base (zlib stays). The
# runtime's own tests (trace_runtime_*) run no covkit code and the runtime is
# never sanitized: the ASan pass would repeat them. html_browser's time is
# the browser's; the sanitized HTML writer runs in the HtmlSite and report
# tests. live_lighttpd's is the load (wrk, ab, the server): the sanitized
# `covkit live` dumps and resets running programs in the live_* scenarios.
# install.* and gcov_clients.* run covkit as users get it (installed,
# packaged, as lcov's or gcovr's gcov): the code they run is tested above.
# LineBuilderDeathTest limits the address space, which ASan's allocator
# answers by aborting, not with std::bad_alloc (its point).
asan_skip='^LineBuilderDeathTest$|^install\.|^gcov_clients\.|big_inputs|clang_cov\.clang1[345]|report_lcov_realcode|report_lcov_.*_gcc11|report_lcov_.*_clang|diff\.gcc11\.|realcode\.[a-z]*\.O2|realcode\.[a-z]*\.gcc11|realcode\.[a-z]*\.clang|realcode\.zstd|^trace_runtime_|^html_browser$|^live_lighttpd$'
# The gcov differential tests run ~50 option sets per program in the plain
# pass; under the sanitizers the subset.
# (clang's files: three sets, one per way llvm-cov's output is built: the
# code under the sanitizers is the same for every option.)
export DIFF_ONLY=$diff_subset DIFF_ONLY_GCCclang=plain,abcu,fmb
phase "sanitized tests"
run_ctest "$root/build-asan" -j"$jobs" --output-on-failure --timeout 900 -E "$asan_skip" || status=1

if [ -x "$root/fuzz/run_fuzzers.sh" ]; then
  phase "short fuzzing run"
  # A smoke run from the seeds (every reader, thousands to hundreds of
  # thousands of executions each); the long runs are fuzz/run_fuzzers.sh's own.
  FUZZ_BUILD=$root/build-asan "$root/fuzz/run_fuzzers.sh" "${COVKIT_FUZZ_SECONDS:-3}" || status=1
fi
if [ -s "$digest" ]; then
  phase "failed tests' output (last 5 lines each)"
  cat "$digest"
fi
phase "end"
exit $status
