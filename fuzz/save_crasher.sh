#!/bin/sh
# Minimizes a crashing input found by a fuzzer and saves it as a coverage
# file pair under tests/badinput/crashers/, where the badinput test replays
# it through `covkit gcov` with every option set.
#
#   fuzz/save_crasher.sh TARGET ARTIFACT NAME [SECONDS]
#
# TARGET is fuzz_gcno, fuzz_gcda or fuzz_session; NAME becomes NAME.gcno
# and/or NAME.gcda (a session input [flags][notes length][notes][data] is
# split in two). Crashes are minimized for SECONDS (default 60; 0 keeps the
# input as it is, e.g. when minimizing drifts to another bug); timeouts and
# out-of-memory inputs are saved as they are. A session input whose data half
# is empty still gets an (empty) NAME.gcda.
set -eu
target=${1:?usage: save_crasher.sh TARGET ARTIFACT NAME [SECONDS]}
artifact=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
name=${3:?name}
secs=${4:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
dest=$root/tests/badinput/crashers
mkdir -p "$dest"
work=$(mktemp -d "${TMPDIR:-/tmp}/covkit-min-XXXXXX")
trap 'rm -rf "$work"' EXIT
input=$artifact
case $(basename "$artifact") in
  crash-*)
    if [ "$secs" -gt 0 ]; then
      (cd "$work" && "$build/fuzz/$target" -minimize_crash=1 -max_total_time="$secs" -timeout=10 \
          -exact_artifact_path="$work/min" "$artifact" >"$work/log" 2>&1) || true
      [ -s "$work/min" ] && input=$work/min
    fi
    ;;
esac
case $target in
  fuzz_gcno) cp "$input" "$dest/$name.gcno" ;;
  fuzz_gcda) cp "$input" "$dest/$name.gcda" ;;
  fuzz_session)
    python3 - "$input" "$dest/$name" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<I", data, 1)[0] if len(data) >= 5 else 0
rest = data[5:]
n = min(n, len(rest))
open(sys.argv[2] + ".gcno", "wb").write(rest[:n])
open(sys.argv[2] + ".gcda", "wb").write(rest[n:])
PY
    ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
ls -l "$dest/$name".* 
