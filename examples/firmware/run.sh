#!/bin/sh
# The firmware example, end to end: builds the same application twice with
# gcc-12 --coverage, as a "firmware" (-fprofile-info-section; its board code
# dumps the counters as hex lines through a fake UART on stdout, with
# src/runtime/gcov_stream) and as a hosted program (libgcov writes .gcda
# files at exit), runs both on the same input, turns the firmware's console
# log back into .gcda files with `covkit live unpack` and compares them with
# libgcov's byte for byte.
#
#   examples/firmware/run.sh [COVKIT [WORKDIR [INPUT]]]
#
# COVKIT defaults to build/covkit, WORKDIR to a fresh temporary directory,
# INPUT to "s12 s40 r s70 s90". Exit status 0 when every file is identical.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
covkit=${1:-$root/build/covkit}
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/covkit-firmware-XXXXXX")}
input=${3:-s12 s40 r s70 s90}
cc=${CC:-gcc-12}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/obj" "$work/fw" "$work/host" "$work/unpacked"
mkdir -p "$work/obj" "$work/fw" "$work/host"

# The two builds must compile to the same object paths, with the same seed:
# GCC derives a static function's id from the object's name, and stamps
# each compilation with the time unless given a seed.
flags="--coverage -O0 -frandom-seed=covkit-firmware-example"

# The oracle: the application registered with libgcov as usual, so that
# the program writes obj/*.gcda at exit.
for unit in app sensor; do
  $cc $flags -c "$here/$unit.c" -o "$work/obj/$unit.o"
done
$cc -O2 -c "$here/host_main.c" -o "$work/host/host_main.o"
$cc --coverage -o "$work/host/program" "$work/host/host_main.o" "$work/obj/app.o" "$work/obj/sensor.o"

# The firmware: the same application with its gcov information in the
# gcov_info section instead (same object paths, same notes files); the
# board code and the runtime plain (the dump must not count itself), the
# runtime freestanding. libgcov (linked by --coverage) provides
# __gcov_info_to_gcda.
for unit in app sensor; do
  $cc $flags -fprofile-info-section=gcov_info -c "$here/$unit.c" -o "$work/obj/$unit.o"
done
$cc -std=c11 -O2 -ffreestanding -c "$root/src/runtime/gcov_stream/gcov_stream.c" -o "$work/fw/gcov_stream.o"
$cc -O2 -I"$root/src/runtime/gcov_stream" -c "$here/firmware_main.c" -o "$work/fw/firmware_main.o"
$cc --coverage -o "$work/fw/firmware" "$work/fw/firmware_main.o" "$work/obj/app.o" "$work/obj/sensor.o" \
  "$work/fw/gcov_stream.o"

# Both run on the same input; the firmware writes no .gcda, only its log.
"$work/fw/firmware" "$input" > "$work/console.log" || true
if ls "$work/obj"/*.gcda >/dev/null 2>&1; then
  echo "run.sh: the firmware wrote .gcda files itself" >&2
  exit 1
fi
"$work/host/program" "$input" || true

# Back into files: the names are the absolute paths the objects were
# compiled for, kept below the output directory.
"$covkit" live unpack "$work/console.log" -o "$work/unpacked"
status=0
for unit in app sensor; do
  if cmp "$work/unpacked$work/obj/$unit.gcda" "$work/obj/$unit.gcda"; then
    echo "$unit.gcda: identical to libgcov's"
  else
    status=1
  fi
done
exit $status
