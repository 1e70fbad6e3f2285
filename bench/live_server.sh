#!/usr/bin/env bash
# live_server.sh [COVKIT [CACHE]]: what `covkit live dump --reset` every
# second costs a real server under load.
#
# Debian 12's lighttpd (apt-get source, built with gcc-12 `--coverage -O1 -g
# -fprofile-update=atomic` by tests/realcode/fetch_and_build.sh, cached in
# CACHE, default $COVKIT_REALCODE_CACHE or <dir of covkit>/realcode) serves a
# static file on a free loopback port; wrk (2 threads, BENCH_CONNECTIONS
# connections) loads it for BENCH_SECONDS seconds, BENCH_ROUNDS times without
# dumping and BENCH_ROUNDS times with `covkit live dump --reset PID -o DIR`
# every second, the two kinds of round alternating so that load changes on
# the machine hit both alike. Prints the req/s of each round, the medians,
# their ratio, the pause per dump covkit printed ("N threads stopped for
# X ms": min, median, max) and the wall time of the whole dump command.
# Asserts nothing but that no request failed (exit 1 otherwise).
#
# Environment: BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_CONNECTIONS (16),
# BENCH_THREADS (wrk threads, 2), BENCH_INTERVAL (seconds between dumps, 1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
covkit=$(realpath "${1:-$root/build/covkit}")
cache=${2:-${COVKIT_REALCODE_CACHE:-$(dirname "$covkit")/realcode}}
rounds=${BENCH_ROUNDS:-3}
seconds=${BENCH_SECONDS:-10}
conns=${BENCH_CONNECTIONS:-16}
threads=${BENCH_THREADS:-2}
interval=${BENCH_INTERVAL:-1}

for t in wrk python3; do
  command -v $t >/dev/null || { echo "live_server: $t missing (apt-get install wrk)" >&2; exit 2; }
done
[ -x "$covkit" ] || { echo "live_server: no covkit at $covkit" >&2; exit 2; }
"$root/tests/realcode/fetch_and_build.sh" lighttpd "$cache" 12 O1 || exit 2
tree=$(cd "$cache" && pwd -P)/lighttpd-gcc12-O1

work=$(mktemp -d /tmp/covkit-live-server.XXXXXX)
trap 'kill $srv 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/www"
python3 -c 'print("<html><body>" + "covkit live lighttpd " * 20 + "</body></html>")' >"$work/www/index.html"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$work/www"
server.port = $port
server.bind = "127.0.0.1"
server.modules = ( "mod_access", "mod_staticfile" )
server.max-worker = 0
server.errorlog = "$work/error.log"
index-file.names = ( "index.html" )
EOF
"$tree/src/lighttpd" -D -f "$work/lighttpd.conf" -m "$tree/src/.libs" &
srv=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
url=http://127.0.0.1:$port/index.html

echo "lighttpd $(sed -n 's/^version=//p' "$tree/.covkit-realcode-tree") (gcc-12 --coverage -O1 -fprofile-update=atomic), pid $srv, $url"
echo "wrk -t$threads -c$conns -d${seconds}s, $rounds rounds each way; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# run_wrk OUT: one wrk run; prints req/s, fails on any error.
run_wrk() {
  wrk -t"$threads" -c"$conns" -d"${seconds}s" "$url" >"$1"
  if grep -q 'Socket errors\|Non-2xx' "$1"; then
    echo "live_server: requests failed:" >&2; cat "$1" >&2; exit 1
  fi
  sed -n 's/^Requests\/sec:[[:space:]]*//p' "$1"
}

plain=() dumping=()
: >"$work/pauses"
: >"$work/walls"
for r in $(seq "$rounds"); do
  plain+=("$(run_wrk "$work/wrk-plain-$r")")
  echo "round $r without dumps: ${plain[-1]} req/s"
  # Dumps every `interval` seconds while wrk runs, in the background (the
  # flag exists before the loop starts).
  touch "$work/dumping"
  (
    n=0
    while [ -e "$work/dumping" ]; do
      sleep "$interval"
      [ -e "$work/dumping" ] || break
      t0=$(date +%s%N)
      out=$("$covkit" live dump --reset "$srv" -o "$work/d/$r-$n") || { echo "DUMP FAILED" >>"$work/pauses"; break; }
      echo $(( ($(date +%s%N) - t0) / 1000 )) >>"$work/walls"
      sed -n 's/.* stopped for \([0-9.]*\) ms.*/\1/p' <<<"$out" >>"$work/pauses"
      rm -rf "$work/d/$r-$n"; mkdir -p "$work/d/$r-$n"   # (an empty one, to count)
      n=$((n + 1))
    done
  ) &
  dumper=$!
  dumping+=("$(run_wrk "$work/wrk-dump-$r")")
  rm -f "$work/dumping"
  wait "$dumper"
  echo "round $r with a dump --reset every ${interval}s: ${dumping[-1]} req/s ($(ls "$work/d" 2>/dev/null | wc -l) dumps in all so far)"
done
if grep -q FAILED "$work/pauses"; then echo "live_server: a dump failed" >&2; exit 1; fi

python3 - "$work/pauses" "$work/walls" "${plain[*]}" "${dumping[*]}" <<'EOF'
import statistics, sys
pauses = [float(x) for x in open(sys.argv[1]).read().split()]
walls = [int(x) / 1000 for x in open(sys.argv[2]).read().split()]
plain = [float(x) for x in sys.argv[3].split()]
dump = [float(x) for x in sys.argv[4].split()]
mp, md = statistics.median(plain), statistics.median(dump)
print(f"req/s without dumps: median {mp:.0f} (min {min(plain):.0f}, max {max(plain):.0f})")
print(f"req/s with dumps:    median {md:.0f} (min {min(dump):.0f}, max {max(dump):.0f})")
print(f"ratio with/without: {md / mp:.3f}")
print(f"{len(pauses)} dumps: pause min {min(pauses):.2f} ms, median {statistics.median(pauses):.2f} ms, "
      f"max {max(pauses):.2f} ms; whole `covkit live dump` median {statistics.median(walls):.0f} ms, "
      f"max {max(walls):.0f} ms")
EOF
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
