#!/usr/bin/env bash
# bench/trace_hooks_realcode.sh [COVKIT [WORKDIR]]
#
# covkit trace's four compiler hooks on a real program: Debian 12's zstd
# (libzstd 1.5.4, the source cached by tests/realcode/fetch_and_build.sh)
# built four times from the same source with gcc-12 -O2 -g and
#   instrument   -finstrument-functions
#   pg           -pg                      (mcount after the prologue)
#   fentry       -pg -mfentry             (__fentry__ before it)
#   patch        -fpatchable-function-entry=5, recorded with --patch . (every
#                function's NOPs patched at load; --patch names the functions
#                of PROG, so each zstd command is recorded on its own and the
#                four traces' counts are added)
# and without inlining (-DZSTD_NO_INLINE -fno-inline and the flags below), so
# that every call in the source is a call in each binary and the three traces
# must agree: one workload (compress then decompress a slice of zstd's own
# sources at two levels) is recorded with `covkit trace record` per build,
# and the per-function call counts of `covkit trace report --json` are
# compared (every function, exactly); the pg build is also recorded by
# `uftrace record` and its per-function counts (`uftrace report`) compared.
# Prints the calls, the functions, the differences and the CPU time of each
# recorded run next to the same build run untraced. Then gprof: the pg build
# run untraced (`zstd -19` on the input) writes gmon.out, and `covkit gprof`
# is compared with GNU gprof (-b, -b -p, -b -q, -b -z, -b -T, and -b -Q with
# a symbol) byte for byte; the lines that differ are counted and shown.
# Exit 0 when every count agrees and every gprof report is identical, 1 when
# one differs, 2 on setup errors.
#
# Environment: BENCH_INPUT_KB (slice of the corpus, default 256),
# BENCH_UFTRACE (uftrace; "none" skips it).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
INPUT_KB=${BENCH_INPUT_KB:-256}
UFTRACE=${BENCH_UFTRACE:-uftrace}
export LC_ALL=C
die() { echo "trace_hooks_realcode.sh: $*" >&2; exit 2; }
[ -x "$COVKIT" ] || die "$COVKIT: not found (ninja -C build)"
mkdir -p "$WORKDIR" && WORKDIR=$(cd "$WORKDIR" && pwd -P)

"$ROOT/tests/realcode/fetch_and_build.sh" zstd "$WORKDIR" 12 O2 >/dev/null || die "zstd source not available"
SRCDIR=$(find "$WORKDIR/src/libzstd" -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -d "$SRCDIR" ] || die "no zstd source under $WORKDIR/src/libzstd"

# No inlining anywhere: zstd's FORCE_INLINE goes with ZSTD_NO_INLINE; GCC's
# IPA passes that merge, clone, split or drop calls are off; -pg (unlike
# -finstrument-functions) would let sibling calls become jumps.
COMMON="-O2 -g -DZSTD_NO_INLINE -fno-inline -fno-inline-small-functions -fno-partial-inlining -fno-ipa-icf \
-fno-ipa-cp -fno-ipa-cp-clone -fno-ipa-sra -fno-ipa-pure-const -fno-optimize-sibling-calls -fno-ipa-vrp -fno-ipa-modref"
declare -A FLAGS=([instrument]="-finstrument-functions" [pg]="-pg" [fentry]="-pg -mfentry"
                  [patch]="-fpatchable-function-entry=5")
HOOKS=(instrument pg fentry patch)
for h in "${HOOKS[@]}"; do
  tree=$WORKDIR/zstd-hook-$h
  if [ ! -x "$tree/programs/zstd" ]; then
    rm -rf "$tree" && cp -a "$SRCDIR" "$tree" || die "cannot copy $SRCDIR"
    (cd "$tree" && make -s -j"$(nproc)" -C programs zstd CC=gcc-12 MOREFLAGS= \
       CFLAGS="$COMMON ${FLAGS[$h]}" LDFLAGS="${FLAGS[$h]}" >"$tree.log" 2>&1) || die "build $h failed: $tree.log"
  fi
done

WORK=$(mktemp -d "$WORKDIR/trace-hooks.XXXXXX") || die "mktemp"
trap 'rm -rf "$WORK"' EXIT
cat "$SRCDIR"/lib/*/*.c | head -c $((INPUT_KB * 1024)) >"$WORK/input"
cat >"$WORK/workload.sh" <<'SH'
#!/usr/bin/env bash
# workload.sh ZSTD INPUT: compress and decompress at two levels, one thread.
z=$1 in=$2 d=$(mktemp -d)
for l in 1 6; do "$z" -q -f -T1 -$l "$in" -o "$d/c.zst" && "$z" -q -d -f "$d/c.zst" -o "$d/out"; done
cmp -s "$in" "$d/out"; rc=$?
rm -rf "$d"; exit $rc
SH
chmod +x "$WORK/workload.sh"
cd "$WORK" || die "cd $WORK"  # the -pg builds write gmon.out here

cpu() {  # COMMAND... -> user+sys seconds (children included)
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >/dev/null 2>>"$WORK/stderr" || { echo fail; return; }
  awk '{printf "%.2f", $1 + $2}' "$WORK/time"
}
# GCC's clones (foo.constprop.0, foo.isra.0, foo.part.0) are one function of
# the source: -finstrument-functions names the function it was cloned from,
# the -pg hooks (and uftrace) the clone they run in.
unclone() { sed -E 's/\.(constprop|isra|part|cold)\.[0-9]+//g' | awk '{c[$1] += $2} END {for (n in c) print n, c[n]}' | sort; }
counts_covkit() {  # TRACE_DIR -> "name calls" lines
  "$COVKIT" trace report --json "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    print(f["name"], f["calls"])' | unclone
}
counts_uftrace() {  # UFTRACE_DIR -> "name calls" lines (the program's functions, not the kernel's)
  "$UFTRACE" report -d "$1" -f call --no-pager 2>>"$WORK/stderr" |
    awk 'NR > 2 && $1 ~ /^[0-9]+$/ && $2 !~ /^linux:/ {print $2, $1}'
}

echo "trace_hooks_realcode: zstd 1.5.4 (gcc-12 $COMMON), workload: -T1 -1 and -6 compress + decompress of ${INPUT_KB} KiB"
printf '%-11s %10s %12s %10s %12s\n' hook functions calls "cpu s" "untraced s"
for h in "${HOOKS[@]}"; do
  z=$WORKDIR/zstd-hook-$h/programs/zstd
  base=$(cpu "$WORK/workload.sh" "$z" "$WORK/input")
  if [ "$h" = patch ]; then
    t=0 i=0
    for l in 1 6; do
      for cmd in "-q -f -T1 -$l $WORK/input -o $WORK/c.zst" "-q -d -f $WORK/c.zst -o $WORK/out"; do
        # shellcheck disable=SC2086  # the command's words
        t=$(awk -v a="$t" -v b="$(cpu "$COVKIT" trace record -o "$WORK/trace-$h-$i" --patch . -- "$z" $cmd)" \
            'BEGIN{printf "%.2f", a + b}')
        i=$((i + 1))
      done
    done
    cmp -s "$WORK/input" "$WORK/out" || die "the patch build's round trip differs"
    for d in "$WORK"/trace-$h-*; do counts_covkit "$d"; done | unclone >"$WORK/counts-$h"
  else
    t=$(cpu "$COVKIT" trace record -o "$WORK/trace-$h" -- "$WORK/workload.sh" "$z" "$WORK/input")
    counts_covkit "$WORK/trace-$h" >"$WORK/counts-$h"
  fi
  printf '%-11s %10d %12d %10s %12s\n' "$h" "$(wc -l <"$WORK/counts-$h")" \
    "$(awk '{s += $2} END {print s + 0}' "$WORK/counts-$h")" "$t" "$base"
done
status=0
compare() {  # LABEL FILE_A FILE_B
  local d; d=$(join -a1 -a2 -e 0 -o 0,1.2,2.2 "$2" "$3" | awk '$2 != $3')
  if [ -z "$d" ]; then echo "  $1: every function's calls equal"
  else
    status=1
    echo "  $1: $(wc -l <<<"$d") functions differ (name, calls, calls):"
    head -20 <<<"$d" | sed 's/^/    /'
  fi
}
echo "per-function calls compared:"
compare "pg     = instrument" "$WORK/counts-instrument" "$WORK/counts-pg"
compare "fentry = instrument" "$WORK/counts-instrument" "$WORK/counts-fentry"
compare "patch  = instrument" "$WORK/counts-instrument" "$WORK/counts-patch"
if [ "$UFTRACE" != none ] && command -v "$UFTRACE" >/dev/null; then
  z=$WORKDIR/zstd-hook-pg/programs/zstd
  # uftrace follows the workload's zstd processes (it traces children of the script's shell only
  # when they are instrumented: the script itself is not, so record each zstd through a wrapper).
  mkdir -p "$WORK/uf"
  cat >"$WORK/zstd-uftrace" <<SH
#!/usr/bin/env bash
n=\$(ls "$WORK/uf" | wc -l)
exec "$UFTRACE" record --no-libcall -d "$WORK/uf/\$n" "$z" "\$@"
SH
  chmod +x "$WORK/zstd-uftrace"
  t=$(cpu "$WORK/workload.sh" "$WORK/zstd-uftrace" "$WORK/input")
  for d in "$WORK"/uf/*; do counts_uftrace "$d"; done | unclone >"$WORK/counts-uftrace"
  echo "  uftrace record on the pg build: $(wc -l <"$WORK/counts-uftrace") functions, cpu $t s"
  compare "uftrace(pg) = covkit(pg)" "$WORK/counts-uftrace" "$WORK/counts-pg"
fi
if command -v gprof >/dev/null; then
  z=$WORKDIR/zstd-hook-pg/programs/zstd
  mkdir -p "$WORK/gprof" && cd "$WORK/gprof" || die "cd $WORK/gprof"
  "$z" -q -f -T1 -19 "$WORK/input" -o c.zst || die "the pg build failed to run"
  echo "gprof on the pg build's gmon.out ($(stat -c %s gmon.out) bytes), covkit gprof against GNU gprof:"
  for opts in "-b" "-b -p" "-b -q" "-b -z" "-b -T" "-b -QZSTD_compressBlock_internal"; do
    # shellcheck disable=SC2086
    gprof $opts "$z" gmon.out >gnu.txt 2>&1; "$COVKIT" gprof $opts "$z" gmon.out >ours.txt 2>&1
    if cmp -s gnu.txt ours.txt; then
      printf '  %-6s identical (%d lines)\n' "$opts" "$(wc -l <gnu.txt)"
    else
      printf '  %-6s %d of %d lines differ, e.g.:\n' "$opts" "$(diff gnu.txt ours.txt | grep -c '^<')" "$(wc -l <gnu.txt)"
      diff gnu.txt ours.txt | grep '^[<>]' | head -2 | cut -c1-150 | sed 's/^/      /'
      status=1
    fi
  done
fi
exit $status
