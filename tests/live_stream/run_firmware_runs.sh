#!/bin/bash
# The firmware example (examples/firmware) against libgcov, run after run.sh
# has built both programs in WORK: several runs on different inputs must
# give .gcda files byte-identical to libgcov's, whether the dumps come in
# one stream (binary or hex), one stream per run into the same directory
# (adding to the files already there), or mixed. Also checks that the
# freestanding runtime needs nothing but libgcov's __gcov_info_to_gcda.
#
#   run_firmware_runs.sh COVKIT WORK
#
# Exit status: 0 passed, 1 failed, 77 skipped (no gcc-12).
set -u
covkit=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v gcc-12 >/dev/null || { echo "gcc-12 is not installed: skipped"; exit 77; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
unpack="live unpack"
passed=0
failed=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
bad() { echo "FAILED $1"; failed=$((failed + 1)); }

# The runtime is freestanding: as an object it refers to nothing of libc.
gcc-12 -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -ffreestanding -nostdlib \
  -c "$root/src/runtime/gcov_stream/gcov_stream.c" -o "$work/gcov_stream_check.o"
undefined=$(nm -u "$work/gcov_stream_check.o" | awk '{print $2}' | tr '\n' ' ')
if [ "$undefined" = "__gcov_info_to_gcda " ]; then ok "freestanding: needs only __gcov_info_to_gcda"
else bad "freestanding: undefined symbols: $undefined"; fi

# The example itself: one run, hex through a console with noise.
rm -rf "$work/example"
if "$root/examples/firmware/run.sh" "$covkit" "$work/example" "s12 s40 r s70 s90" >"$work/example.log" 2>&1; then
  ok "examples/firmware/run.sh: one run identical to libgcov's"
else
  bad "examples/firmware/run.sh: $(cat "$work/example.log")"
fi
ex=$work/example
fw=$ex/fw/firmware
host=$ex/host/program
compare() {  # compare NAME DIR: DIR's unpacked files against the host's
  local name=$1 dir=$2 unit same=1
  for unit in app sensor; do
    [ -f "$dir$ex/obj/$unit.gcda" ] || { same=0; echo "$dir$ex/obj/$unit.gcda: missing"; continue; }
    cmp -s "$dir$ex/obj/$unit.gcda" "$ex/obj/$unit.gcda" || { same=0; cmp "$dir$ex/obj/$unit.gcda" "$ex/obj/$unit.gcda"; }
  done
  if [ $same = 1 ]; then ok "$name"; else bad "$name"; fi
}

# Three runs on other inputs: libgcov adds each to the files at exit.
inputs=("s12 s40 r s70 s90" "s99 x s1" "r r s60 s61 s62 s63")
rm -f "$ex/obj"/*.gcda
for i in 0 1 2; do
  "$host" "${inputs[$i]}" || true
  "$fw" "${inputs[$i]}" > "$work/run$i.log" || true
  "$fw" "${inputs[$i]}" raw > "$work/run$i.bin" || true
done

# All three dumps in one console log, with the firmware's reboots between.
cat "$work/run0.log" "$work/run1.log" "$work/run2.log" > "$work/all.log"
rm -rf "$work/one_stream"
"$covkit" $unpack "$work/all.log" -o "$work/one_stream" -q
compare "three dumps in one hex stream" "$work/one_stream"

# The same console log through a pipe ('-': standard input).
rm -rf "$work/from_stdin"
"$covkit" $unpack - -o "$work/from_stdin" -q < "$work/all.log"
compare "three dumps in one hex stream on standard input" "$work/from_stdin"

# The same as binary streams, concatenated.
cat "$work/run0.bin" "$work/run1.bin" "$work/run2.bin" > "$work/all.bin"
rm -rf "$work/one_binary"
"$covkit" $unpack "$work/all.bin" -o "$work/one_binary" -q
compare "three dumps in one binary stream" "$work/one_binary"

# One stream per run into the same directory: each adds to the files there.
rm -rf "$work/per_run"
for i in 0 1 2; do "$covkit" $unpack "$work/run$i.bin" -o "$work/per_run" -q; done
compare "three unpacks into one directory" "$work/per_run"

# Mixed: two dumps in one stream added to a directory holding the first run.
rm -rf "$work/mixed"
"$covkit" $unpack "$work/run0.log" -o "$work/mixed" -q
cat "$work/run1.bin" "$work/run2.bin" > "$work/last_two.bin"
"$covkit" $unpack "$work/last_two.bin" -o "$work/mixed" -q
compare "two dumps added to a first run" "$work/mixed"

# gcov reads what was unpacked like libgcov's own files (the notes beside).
cp "$ex/obj"/*.gcno "$work/per_run$ex/obj/"
gcov_dir=$work/per_run$ex/obj
(cd "$work" && gcov-12 -b -c -o "$gcov_dir" "$root/examples/firmware/app.c" >/dev/null 2>&1 && mv app.c.gcov gcov.app.c.gcov)
(cd "$work" && "$covkit" gcov -b -c -o "$gcov_dir" "$root/examples/firmware/app.c" >/dev/null 2>&1)
if [ -s "$work/gcov.app.c.gcov" ] && cmp -s "$work/gcov.app.c.gcov" "$work/app.c.gcov" &&
   grep -q "Runs:3" "$work/app.c.gcov"; then
  ok "gcov and covkit gcov read the unpacked files alike (Runs:3)"
else
  bad "gcov vs covkit gcov on the unpacked files"
fi

echo "$passed passed, $failed failed"
[ $failed = 0 ]
