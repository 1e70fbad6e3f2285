# Sourced by the bench scripts that time tools side by side with bash `time`
# (trace_vs_uftrace.sh, trace_replay_vs_uftrace.sh).

# bench_time LOG CMD [ARGS...]: runs CMD with its stdout to /dev/null and its
# stderr appended to LOG, and prints "cpu wall": user + system CPU seconds of
# CMD and every process it waited for (a tool's writer threads and children
# included), and wall seconds. Returns CMD's exit status.
bench_time() {
  local log=$1 out rc u s r
  shift
  local TIMEFORMAT='%3U %3S %3R'
  out=$( { time "$@" >/dev/null 2>>"$log"; } 2>&1 ); rc=$?
  read -r u s r <<<"$out"
  awk -v u="$u" -v s="$s" -v r="$r" 'BEGIN{printf "%.3f %s\n", u + s, r}'
  return $rc
}

# bench_median [DECIMALS]: the median of the numbers on stdin (separated by
# spaces or newlines), "nan" when there are none.
bench_median() {
  tr ' ' '\n' | grep . | sort -g | awk -v d="${1:-3}" '{v[NR]=$1} END{if (NR == 0) {print "nan"; exit}
    printf "%." d "f", NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'
}
