#!/usr/bin/env bash
# report_vs_gcovr_lcov.sh [TREE]
#
# Times one `covkit report --lcov F --cobertura F --html DIR PATH` run (all
# three outputs at once) against
#   (a) gcovr --html-details              (and gcovr --xml --html-details in one run)
#   (b) lcov -c  followed by  genhtml     (branch coverage on in both)
# on a real project: Debian 12's zstd 1.5.4 built with gcc-12 --coverage -O0 by
# tests/realcode/fetch_and_build.sh, in two variants:
#   full  every object of the tree (200 .gcno in 6 object directories)
#   lib   only the library objects, lib/obj/... (32 .gcno); only lib/ is copied
# Every tool runs on a fresh copy of the tree (gcov-based tools write .gcov
# files into it), made outside the timed region; outputs go outside the copy.
# Reports the median wall and CPU (user + system) time of BENCH_RUNS runs and
# the peak RSS, the ratios and the targets of issue 36 item 3 (>= 100x vs
# gcovr, >= 40x vs lcov+genhtml), PASS/MISS on CPU time (user + system of the
# whole process tree: the measure that holds on a shared machine) and on wall
# time (what a user waits for, and a fair measure only on an idle machine:
# covkit runs on every core, lcov and genhtml on one, so other load stretches
# the two differently; a load average above the core count is flagged).
# Exit 0 either way (it is a measurement); exit 2 on usage/setup errors.
# See bench/README.md.
#
# TREE: a built tree; default $COVKIT_REALCODE_CACHE/zstd-gcc12-O0 (built with
# fetch_and_build.sh when missing; cache default <dir of covkit>/realcode).
#
# Environment:
#   COVKIT=path          covkit binary (default /work/main/build/covkit, i.e. <repo>/build/covkit)
#   BENCH_RUNS=3         timed runs per tool (median reported)
#   BENCH_VARIANTS="full lib"
#   BENCH_JOBS=N         gcovr -j (default: core count; covkit uses all cores by default)
#   BENCH_GCCVER=12      gcov-N
#   BENCH_SCRATCH=DIR    where the copies and outputs go (default: a temp dir next to TREE)
#   BENCH_TIMEOUT=1200   seconds per tool run (gcovr 5.2 hangs with -j after an internal error)
#   BENCH_GCOVR_XML=1    also time gcovr --xml + --html-details in one run (0: skip)
#   BENCH_GCOVR_EXCLUDE_full='.*/lib/common/pool\.c$'   gcovr -e for the full tree (see README)
#   BENCH_GCOVR_EXCLUDE_lib=''                           gcovr -e for lib-only
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RC=$HERE/../tests/realcode
if [ $# -gt 1 ]; then echo "usage: $0 [TREE]" >&2; exit 2; fi
COVKIT=${COVKIT:-$HERE/../build/covkit}
case "$COVKIT" in
  */*) COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT") ;;
  *)   COVKIT=$(command -v "$COVKIT") ;;
esac
[ -x "$COVKIT" ] || { echo "$0: covkit binary $COVKIT is not executable (set COVKIT)" >&2; exit 2; }
RUNS=${BENCH_RUNS:-3}
VARIANTS=${BENCH_VARIANTS:-full lib}
NCORES=$(nproc)
JOBS=${BENCH_JOBS:-$NCORES}
GCCVER=${BENCH_GCCVER:-12}
GCOV=gcov-$GCCVER
TMO=${BENCH_TIMEOUT:-1200}
GCOVR_XML=${BENCH_GCOVR_XML:-1}
GCOVR_EXCLUDE_full=${BENCH_GCOVR_EXCLUDE_full-'.*/lib/common/pool\.c$'}
GCOVR_EXCLUDE_lib=${BENCH_GCOVR_EXCLUDE_lib-}
# Issue 36 item 3: covkit's full report at least 100x gcovr's speed and 40x
# lcov + genhtml's (judged on CPU time and on wall time, both printed).
TARGET_GCOVR=${BENCH_TARGET_GCOVR:-100}
TARGET_LCOV=${BENCH_TARGET_LCOV:-40}
export LC_ALL=C

for t in gcovr lcov genhtml "$GCOV" timeout; do
  command -v "$t" >/dev/null || { echo "$0: $t not found" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (package 'time') is required" >&2; exit 2; }

# --- the tree -----------------------------------------------------------------
if [ $# -eq 1 ]; then
  TREE=$1
else
  CACHE=${COVKIT_REALCODE_CACHE:-$(dirname "$COVKIT")/realcode}
  TREE=$CACHE/zstd-gcc$GCCVER-O0
  if [ ! -f "$TREE/.covkit-realcode-tree" ]; then
    echo "building $TREE with fetch_and_build.sh ..." >&2
    "$RC/fetch_and_build.sh" zstd "$CACHE" "$GCCVER" O0 >&2 || {
      rc=$?; echo "$0: fetch_and_build.sh failed ($rc)" >&2; exit 2; }
  fi
fi
[ -d "$TREE" ] || { echo "$0: $TREE is not a directory" >&2; exit 2; }
TREE=$(cd "$TREE" && pwd -P)

# The .gcno files record the directory the compiler ran in (the original tree).
# covkit reads sources from there; --path-map points it at the copy instead, so
# that it, like gcovr, reads the copy and reports paths relative to it.
ORIG=$TREE
g=$(find "$TREE/lib/obj" -name '*.gcno' -print -quit 2>/dev/null)
if [ -n "$g" ] && command -v "gcov-dump-$GCCVER" >/dev/null; then
  cwd=$("gcov-dump-$GCCVER" -l "$g" 2>/dev/null | sed -n 's/.*:cwd: //p' | head -1)
  [ -n "$cwd" ] && ORIG=$(dirname "$cwd")   # compiled in <tree>/lib
fi

SCRATCH=$(mktemp -d "${BENCH_SCRATCH:-$(dirname "$TREE")}/report-bench.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
COPY=$SCRATCH/tree          # always the same path
OUT=$SCRATCH/out
LOGS=$SCRATCH/logs
mkdir -p "$LOGS"

# fresh_copy VARIANT: the tree (full) or only lib/ (lib) at $COPY; not timed.
# The previous copy and outputs are moved aside, and deleted when the script
# ends: on ext4 without a journal (this VM's disk), every file created in the
# next 60 s or more steps over each inode freed meanwhile in its block group
# (ext4's recently_deleted), so deleting the ~1,500 files of the last copy
# just before a run made each file a tool then created cost that much more
# kernel time (up to 5% of covkit's CPU; see bench/README.md).
TRASH=$SCRATCH/trash
ntrash=0
fresh_copy() {
  mkdir -p "$TRASH"
  for d in "$COPY" "$OUT"; do
    [ -e "$d" ] && mv "$d" "$TRASH/$((ntrash += 1))"
  done
  mkdir -p "$OUT"
  if [ "$1" = lib ]; then
    mkdir -p "$COPY" && cp -a "$TREE/lib" "$COPY/lib"
  else
    cp -a "$TREE" "$COPY"
  fi
  sync
}

# timed NAME CMD...: runs CMD (cwd $OUT) under /usr/bin/time; appends
# "wall_s rss_kb rc" to $LOGS/NAME.times; stdout/stderr to $LOGS/NAME.{out,err}
timed() {
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s%N)
  (cd "$OUT" && timeout "$TMO" /usr/bin/time -f '%e %M %U %S' -o "$LOGS/$name.time" "$@" \
     >"$LOGS/$name.out" 2>"$LOGS/$name.err")
  rc=$?
  t1=$(date +%s%N)
  local rss cpu
  rss=$(awk 'END {print $2}' "$LOGS/$name.time" 2>/dev/null)
  cpu=$(awk 'END {printf "%.3f", $3 + $4}' "$LOGS/$name.time" 2>/dev/null)
  # wall time from date (ns resolution; /usr/bin/time's %e has 10 ms)
  echo "$(( (t1 - t0) / 1000000 )) ${rss:-0} $rc ${cpu:-nan}" | awk '{printf "%.3f %s %s %s\n", $1/1000, $2, $3, $4}' >>"$LOGS/$name.times"
  if [ $rc -ne 0 ]; then
    echo "  !! $name exited with $rc$([ $rc = 124 ] && echo ' (timeout)'); last lines of stderr:" >&2
    grep -v '^\s*$' "$LOGS/$name.err" | tail -5 | sed 's/^/     /' >&2
  fi
  return $rc
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
maxof()  { sort -n | tail -1; }

echo "covkit report vs gcovr $(gcovr --version | awk 'NR==1 {print $2}') vs lcov/genhtml $(lcov --version | awk '{print $NF}')"
echo "tree: $TREE   covkit: $COVKIT"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "runs: $RUNS (median wall time; peak RSS = max over runs)   cores: $NCORES   gcovr -j $JOBS   load average at start: $LOAD_START"

summary_rows=()
for V in $VARIANTS; do
  case "$V" in
    full) SUB= ;;
    lib)  SUB=lib/obj ;;
    *) echo "$0: unknown variant $V" >&2; exit 2 ;;
  esac
  EXVAR=GCOVR_EXCLUDE_$V; GEX=${!EXVAR}
  P=$COPY${SUB:+/$SUB}
  rm -f "$LOGS"/*; rm -rf "$SCRATCH/keep"
  fresh_copy "$V"
  ngcno=$(find "$P" -name '*.gcno' | wc -l)
  ngcda=$(find "$P" -name '*.gcda' | wc -l)
  ndirs=$(find "$P" -name '*.gcno' -printf '%h\n' | sort -u | wc -l)

  CK=("$COVKIT" report -r "$COPY" --path-map "$ORIG=$COPY"
      --lcov "$OUT/covkit.info" --cobertura "$OUT/covkit.xml" --html "$OUT/covkit-html" -- "$P")
  GX=(); [ -n "$GEX" ] && GX=(-e "$GEX")
  GC=(gcovr -r "$COPY" -j "$JOBS" --gcov-executable "$GCOV" --gcov-ignore-parse-errors "${GX[@]}" -s)
  G1=("${GC[@]}" --html-details "$OUT/gcovr/index.html" "$P")
  G2=("${GC[@]}" --xml "$OUT/gcovr.xml" --html-details "$OUT/gcovr/index.html" "$P")
  L1=(lcov -c -d "$P" -o "$OUT/lcov.info" --rc lcov_branch_coverage=1 --gcov-tool "$GCOV" -q)
  L2=(genhtml --branch-coverage -q -o "$OUT/lcov-html" "$OUT/lcov.info")

  echo
  echo "== $V: ${SUB:-whole tree} of $(basename "$TREE"): $ngcno .gcno ($ngcda with .gcda) in $ndirs object directories =="
  echo "   covkit:  ${CK[*]}" | sed "s|$SCRATCH|\$S|g"
  echo "   gcovr:   ${G1[*]}" | sed "s|$SCRATCH|\$S|g"
  [ "$GCOVR_XML" = 1 ] && echo "   gcovr:   ${G2[*]}" | sed "s|$SCRATCH|\$S|g"
  echo "   lcov:    ${L1[*]}" | sed "s|$SCRATCH|\$S|g"
  echo "   genhtml: ${L2[*]}" | sed "s|$SCRATCH|\$S|g"

  tools=(covkit gcovr_html); [ "$GCOVR_XML" = 1 ] && tools+=(gcovr_xml_html); tools+=(lcov)
  for ((r = 1; r <= RUNS; r++)); do
    echo "   run $r/$RUNS ..." >&2
    for T in "${tools[@]}"; do
      fresh_copy "$V"
      case $T in
        covkit)         timed covkit "${CK[@]}" ;;
        gcovr_html)     mkdir -p "$OUT/gcovr"; timed gcovr_html "${G1[@]}" ;;
        gcovr_xml_html) mkdir -p "$OUT/gcovr"; timed gcovr_xml_html "${G2[@]}" ;;
        lcov)           if timed lcov "${L1[@]}"; then timed genhtml "${L2[@]}"
                        else echo "nan 0 1" >>"$LOGS/genhtml.times"; fi ;;
      esac
      # keep the last run's outputs for the sanity check
      [ $r -eq "$RUNS" ] && { mkdir -p "$SCRATCH/keep/$T"; cp -a "$OUT"/*.info "$SCRATCH/keep/$T/" 2>/dev/null; }
    done
  done

  # --- table ---------------------------------------------------------------
  stat() {  # stat NAME -> "median_wall_s peak_rss_kb nfail median_cpu_s"
    local f=$LOGS/$1.times
    [ -s "$f" ] || { echo "nan 0 $RUNS nan"; return; }
    echo "$(awk '$3==0 {print $1}' "$f" | median) $(awk '{print $2}' "$f" | maxof) $(awk '$3!=0' "$f" | wc -l)" \
         "$(awk '$3==0 {print $4}' "$f" | median)"
  }
  read -r ck_t ck_m ck_f ck_c <<<"$(stat covkit)"
  read -r g1_t g1_m g1_f g1_c <<<"$(stat gcovr_html)"
  g2_t=nan g2_m=0 g2_f=0 g2_c=nan
  [ "$GCOVR_XML" = 1 ] && read -r g2_t g2_m g2_f g2_c <<<"$(stat gcovr_xml_html)"
  read -r l_t l_m l_f l_c <<<"$(stat lcov)"
  read -r h_t h_m h_f h_c <<<"$(stat genhtml)"
  # lcov+genhtml: median of per-run sums; RSS = the larger of the two peaks
  lh_t=$(paste -d' ' "$LOGS/lcov.times" "$LOGS/genhtml.times" 2>/dev/null \
         | awk '$3==0 && $7==0 {printf "%.3f\n", $1+$5}' | median)
  lh_c=$(paste -d' ' "$LOGS/lcov.times" "$LOGS/genhtml.times" 2>/dev/null \
         | awk '$3==0 && $7==0 {printf "%.3f\n", $4+$8}' | median)
  lh_m=$(( l_m > h_m ? l_m : h_m ))
  lh_f=$(( l_f + h_f ))

  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a=="nan" || b=="nan" || b+0==0) print "n/a"; else printf "%.1fx", a/b }'; }
  row() { # label wall mem fail cpu
    local fail=""; [ "$4" != 0 ] && fail="  ($4 of $RUNS runs FAILED)"
    awk -v l="$1" -v t="$2" -v m="$3" -v f="$fail" -v c="$5" \
      'BEGIN {printf "   %-40s %10s %10s %12.1f%s\n", l, (t=="nan" ? "FAIL" : sprintf("%.3f", t)),
              (c=="nan" ? "-" : sprintf("%.3f", c)), m/1024, f}'
  }
  echo
  printf '   %-40s %10s %10s %12s\n' tool "wall s" "cpu s" "peak RSS MB"
  printf '   %s\n' "-----------------------------------------------------------------------------"
  row "covkit report (lcov+cobertura+html)" "$ck_t" "$ck_m" "$ck_f" "$ck_c"
  row "gcovr --html-details" "$g1_t" "$g1_m" "$g1_f" "$g1_c"
  [ "$GCOVR_XML" = 1 ] && row "gcovr --xml --html-details" "$g2_t" "$g2_m" "$g2_f" "$g2_c"
  row "lcov -c" "$l_t" "$l_m" "$l_f" "$l_c"
  row "genhtml" "$h_t" "$h_m" "$h_f" "$h_c"
  row "lcov -c + genhtml" "$lh_t" "$lh_m" "$lh_f" "$lh_c"
  echo "   (medians over the runs; cpu = user + system of the whole process tree, gcov's included)"
  echo
  verdict() { awk -v a="$1" -v b="$2" -v want="$3" 'BEGIN { if (a=="nan" || b=="nan" || b+0==0) print "n/a"; else print (a/b >= want ? "PASS" : "MISS") }'; }
  rg1=$(ratio "$g1_t" "$ck_t"); rlh=$(ratio "$lh_t" "$ck_t")
  vg=$(verdict "$g1_t" "$ck_t" "$TARGET_GCOVR"); vl=$(verdict "$lh_t" "$ck_t" "$TARGET_LCOV")
  echo "   wall   gcovr --html-details / covkit:        $rg1   (target >= ${TARGET_GCOVR}x: $vg)"
  [ "$GCOVR_XML" = 1 ] && \
  echo "   wall   gcovr --xml --html-details / covkit:  $(ratio "$g2_t" "$ck_t")   (target >= ${TARGET_GCOVR}x: $(verdict "$g2_t" "$ck_t" "$TARGET_GCOVR"))"
  echo "   wall   (lcov -c + genhtml) / covkit:         $rlh   (target >= ${TARGET_LCOV}x: $vl)"
  rg1c=$(ratio "$g1_c" "$ck_c"); rlhc=$(ratio "$lh_c" "$ck_c")
  vgc=$(verdict "$g1_c" "$ck_c" "$TARGET_GCOVR"); vlc=$(verdict "$lh_c" "$ck_c" "$TARGET_LCOV")
  echo "   cpu    gcovr --html-details / covkit:        $rg1c   (target >= ${TARGET_GCOVR}x: $vgc)"
  [ "$GCOVR_XML" = 1 ] && \
  echo "   cpu    gcovr --xml --html-details / covkit:  $(ratio "$g2_c" "$ck_c")   (target >= ${TARGET_GCOVR}x: $(verdict "$g2_c" "$ck_c" "$TARGET_GCOVR"))"
  echo "   cpu    (lcov -c + genhtml) / covkit:         $rlhc   (target >= ${TARGET_LCOV}x: $vlc)"
  echo "   memory gcovr --html-details / covkit:        $(ratio "$g1_m" "$ck_m")"
  [ "$GCOVR_XML" = 1 ] && \
  echo "   memory gcovr --xml --html-details / covkit:  $(ratio "$g2_m" "$ck_m")"
  echo "   memory max(lcov, genhtml) / covkit:          $(ratio "$lh_m" "$ck_m")"
  summary_rows+=("$(printf '%-5s %4s objs  wall  covkit %7.3fs  gcovr %8.3fs %8s %s  lcov+genhtml %8.3fs %7s %s' \
      "$V" "$ngcno" "$ck_t" "$g1_t" "$rg1" "$vg" "$lh_t" "$rlh" "$vl" 2>/dev/null)")
  summary_rows+=("$(printf '%-5s %4s objs  cpu   covkit %7.3fs  gcovr %8.3fs %8s %s  lcov+genhtml %8.3fs %7s %s' \
      "$V" "$ngcno" "$ck_c" "$g1_c" "$rg1c" "$vgc" "$lh_c" "$rlhc" "$vlc" 2>/dev/null)")

  # --- sanity: did the tools measure the same thing? (not timed) --------------
  K=$SCRATCH/keep
  echo
  echo "   sanity (last run's outputs): total line coverage, hit/found"
  lcov_sum() { awk -F: '/^LF:/ {f+=$2} /^LH:/ {h+=$2} END {printf "%d / %d lines (%.2f%%)", h, f, f ? 100*h/f : 0}' "$1"; }
  sline() { printf '   %-44s %s\n' "$1" "$2"; }
  [ -s "$K/covkit/covkit.info" ] && sline "covkit (LF/LH sums of its --lcov file):" "$(lcov_sum "$K/covkit/covkit.info")"
  if [ -n "$GEX" ]; then
    fresh_copy "$V"
    t=$("$COVKIT" report -q -r "$COPY" --path-map "$ORIG=$COPY" -e "$GEX" -- "$P" 2>/dev/null | awk '$1=="TOTAL"')
    sline "covkit -e '$GEX' (as gcovr):" "$(echo "$t" | awk '{printf "%s / %s lines (%s)", $3, $2, $4}')"
  fi
  for T in gcovr_html gcovr_xml_html; do
    [ -s "$LOGS/$T.out" ] || continue
    sline "gcovr (${T#gcovr_} run, -s):" "$(sed -n 's|^lines: \([0-9.]*%\) (\([0-9]*\) out of \([0-9]*\))|\2 / \3 lines (\1)|p' "$LOGS/$T.out")"
  done
  if [ -s "$K/lcov/lcov.info" ]; then
    sline "lcov (lcov --summary):" "$(lcov --summary "$K/lcov/lcov.info" --rc lcov_branch_coverage=1 2>&1 \
      | awk '/lines\.\.\.\.\.\./ {gsub(/[()]/,""); print $3" / "$5" lines ("$2")"}')"
  fi
  nck=$(grep -c '^SF:' "$K/covkit/covkit.info" 2>/dev/null)
  nlc=$(grep '^SF:' "$K/lcov/lcov.info" 2>/dev/null | sort -u | wc -l)
  nsys=$(grep '^SF:/usr/' "$K/lcov/lcov.info" 2>/dev/null | sort -u | wc -l)
  sline "source files:" "covkit $nck, lcov $nlc (of which $nsys system headers, which covkit and gcovr leave out)"
  echo "   notes: lcov -c reads only .gcda files, so the $((ngcno - ngcda)) objects without one (never run) are missing"
  echo "          from its totals; gcovr counts unexecuted lines holding only '}' as non-code (lower 'found');"
  [ -n "$GEX" ] && \
  echo "          gcovr got -e '$GEX' (see bench/README.md), so its totals lack that file."
  ncw=$(grep -c . "$LOGS/covkit.err" 2>/dev/null)
  nge=$(grep -c 'UnknownLineType' "$LOGS/gcovr_html.err" 2>/dev/null)
  echo "          stderr: covkit $ncw lines; gcovr $nge gcov parse errors (negative counts from racing threads,"
  echo "          skipped with --gcov-ignore-parse-errors; without it gcovr 5.2 stops, or hangs with -j)."
done

echo
echo "== summary (wall and CPU time; targets: >= ${TARGET_GCOVR}x vs gcovr --html-details, >= ${TARGET_LCOV}x vs lcov -c + genhtml) =="
for s in "${summary_rows[@]}"; do echo "   $s"; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
load_start=${LOAD_START%% *}; load_end=$(cut -d' ' -f1 /proc/loadavg)
if awk -v a="$load_start" -v b="$load_end" -v n="$NCORES" 'BEGIN { exit !(a > n || b > n) }'; then
  echo "   (load above the $NCORES cores: the wall ratios say more about the load than about the tools; read the CPU ones)"
fi
exit 0
