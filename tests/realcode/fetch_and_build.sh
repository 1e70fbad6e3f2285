#!/usr/bin/env bash
# fetch_and_build.sh PKG WORKDIR [GCCVER [OPT]]
#
# Fetches the Debian 12 source package PKG (apt-get source), builds it with
# gcc-GCCVER and `--coverage -OPT -g` using the package's own upstream build
# system, and runs (a subset of) its test suite so that .gcda files exist.
#
#   PKG     zstd (Debian source package libzstd), zlib, jsoncpp (C++, CMake;
#           source package libjsoncpp), tinyxml2 (C++, one file), simdjson
#           (C++17 templates, AVX-512 kernels; the library and three of its
#           programs, compiled by hand), or lighttpd (a server
#           for tests/live/run_lighttpd.py; built with -fprofile-update=atomic
#           too, so counters reset under load stay exact, and without pcre2,
#           zlib, bzip2 and openssl, so it needs no library to build);
#           gcctests: GCC's own gcov test programs (source package gcc-12;
#           build_gcc_testsuite.py), each in a directory of its own;
#           sqlite (source package sqlite3: its amalgamation sqlite3.c and
#           shell.c, run on workloads/sqlite_workload.sql);
#           lua, luaswitch (source package lua5.4, its VM by computed goto
#           and by switch), bzip2 and sqlite, covkit sample's real code: built by
#           build_sample_package.sh and run on workloads/ (sample_realcode.py)
#   WORKDIR cache directory. Layout:
#             WORKDIR/src/<srcpkg>/...             unpacked Debian source (cached)
#             WORKDIR/<pkg>-gcc<VER>-<OPT>/        coverage build tree (cached)
#             WORKDIR/<pkg>-gcc<VER>-<OPT>.log     full build/test log
#   GCCVER  default 12; "clang" builds with clang (clang's --coverage files);
#           "clangN-source" with clang-N -fprofile-instr-generate
#           -fcoverage-mapping (source-based coverage: the runs' .profraw
#           files land in the tree's prof/ directory)
#   OPT     O0 (default) or O2; default taken from $COVKIT_REALCODE_OPT
#
# A finished tree contains the marker file .covkit-realcode-tree; a second call
# with the same arguments does nothing but print the summary again. Concurrent
# calls on one WORKDIR are serialised with flock.
#
# Exit status: 0 ok, 77 the package (or a build dependency / the compiler)
# cannot be fetched or installed, 1 anything else (build failure, ...).
set -euo pipefail

usage() { echo "usage: $0 PKG WORKDIR [GCCVER [O0|O2]]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 4 ] || usage
PKG=$1
WORKDIR=$2
GCCVER=${3:-12}
OPT=${4:-${COVKIT_REALCODE_OPT:-O0}}
case "$OPT" in O0|O1|O2|O3|Os|Og) ;; *) echo "$0: bad OPT '$OPT'" >&2; exit 2 ;; esac

case "$PKG" in
  zstd|libzstd) PKG=zstd; SRCPKG=libzstd
                DEPS="make dpkg-dev xz-utils zlib1g-dev liblzma-dev liblz4-dev python3" ;;
  zlib|zlib1g)  PKG=zlib; SRCPKG=zlib
                DEPS="make dpkg-dev xz-utils" ;;
  lighttpd)     SRCPKG=lighttpd
                DEPS="make dpkg-dev xz-utils pkg-config" ;;
  jsoncpp|libjsoncpp)
                # C++ (templates and inline functions in headers, exceptions),
                # built with CMake: the C packages above have neither.
                PKG=jsoncpp; SRCPKG=libjsoncpp
                DEPS="cmake ninja-build python3 dpkg-dev xz-utils" ;;
  lua|lua5.4)   # covkit sample's real code (sample_realcode.py): the computed-goto VM
                PKG=lua; SRCPKG=lua5.4; DEPS="dpkg-dev xz-utils" ;;
  luaswitch)    # the same with the VM's switch (LUA_USE_JUMPTABLE=0)
                SRCPKG=lua5.4; DEPS="dpkg-dev xz-utils" ;;
  bzip2)        SRCPKG=bzip2; DEPS="dpkg-dev xz-utils" ;;
  sqlite|sqlite3)
                # One huge translation unit (the amalgamation, generated from
                # the Debian source with tclsh) and a switch-based VM; also
                # covkit sample's real code (build_sample_package.sh)
                PKG=sqlite; SRCPKG=sqlite3; DEPS="make dpkg-dev xz-utils tcl" ;;
  tinyxml2|libtinyxml2)
                # One C++ file (and its test program): the smallest code base
                # of the benchmarks, where start-up is most of a gcov run.
                PKG=tinyxml2; SRCPKG=tinyxml2
                DEPS="cmake ninja-build dpkg-dev xz-utils" ;;
  simdjson)     # C++17 templates in headers compiled four times (one
                # namespace per kernel: icelake/AVX-512, haswell, westmere,
                # fallback), AVX-512 intrinsics, runtime dispatch
                SRCPKG=simdjson; DEPS="dpkg-dev xz-utils" ;;
  gcctests)     # GCC's own gcov test programs (gcc-12's testsuite), each
                # built and run in a directory of its own (build_gcc_testsuite.py)
                SRCPKG=gcc-12; DEPS="dpkg-dev xz-utils python3 g++-$GCCVER" ;;
  *) echo "$0: unsupported package '$PKG' (supported: zstd, zlib, lighttpd, jsoncpp, tinyxml2, simdjson, lua, luaswitch, bzip2, sqlite, gcctests)" >&2; exit 2 ;;
esac
SOURCE_BASED=""
case "$GCCVER" in clang*-source) SOURCE_BASED=${GCCVER%-source}; SOURCE_BASED=${SOURCE_BASED#clang} ;; esac
if { [ "$PKG" = jsoncpp ] || [ "$PKG" = tinyxml2 ] || [ "$PKG" = simdjson ]; } && [ "$GCCVER" != clang ] && [ -z "$SOURCE_BASED" ]; then
  DEPS="$DEPS g++-$GCCVER"
fi

mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)
TREE=$WORKDIR/$PKG-gcc$GCCVER-$OPT
LOG=$WORKDIR/$PKG-gcc$GCCVER-$OPT.log
MARKER=$TREE/.covkit-realcode-tree
NPROC=$(nproc 2>/dev/null || echo 2)

skip() { echo "realcode: SKIP $PKG: $*" >&2; exit 77; }
die()  { echo "realcode: FAIL $PKG gcc-$GCCVER -$OPT: $* (log: $LOG)" >&2; exit 1; }
log()  { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >>"$LOG"; }
run()  { log "+ $*"; "$@" >>"$LOG" 2>&1; }

summary() {
  local ngcno ngcda ndirs
  if [ -n "$SOURCE_BASED" ]; then
    echo "realcode: $PKG $(sed -n 's/^version=//p' "$MARKER") clang-$SOURCE_BASED source-based -$OPT: $1;" \
         "$(find "$TREE/prof" -name '*.profraw' 2>/dev/null | wc -l) .profraw -> $TREE"
    return
  fi
  ngcno=$(find "$TREE" -name '*.gcno' | wc -l)
  ngcda=$(find "$TREE" -name '*.gcda' | wc -l)
  ndirs=$(find "$TREE" -name '*.gcno' -printf '%h\n' | sort -u | wc -l)
  echo "realcode: $PKG $(sed -n 's/^version=//p' "$MARKER") gcc-$GCCVER -$OPT: $1;" \
       "$ngcno .gcno ($ngcda .gcda) in $ndirs dirs -> $TREE"
}

# Serialise concurrent runs (e.g. the normal and the ASan ctest run sharing
# COVKIT_REALCODE_CACHE).
exec 9>"$WORKDIR/.lock"
flock 9

if [ -f "$MARKER" ]; then
  summary "cached"
  exit 0
fi
: >"$LOG"

# --------------------------------------------------------------------------
# 1. tools and build dependencies
# --------------------------------------------------------------------------
APT_UPDATED=0
apt_update() {
  [ $APT_UPDATED = 1 ] && return 0
  run apt-get update -q || return 1
  APT_UPDATED=1
}
need_pkgs() {   # install the Debian packages in $@ that are not installed yet
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
      || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return 0
  [ "$(id -u)" = 0 ] || { log "not root, cannot install: ${missing[*]}"; return 1; }
  apt_update || return 1
  DEBIAN_FRONTEND=noninteractive run apt-get install -y -q --no-install-recommends "${missing[@]}"
}

if [ "$GCCVER" = clang ]; then
  command -v clang >/dev/null || need_pkgs clang || skip "clang not available"
elif [ -n "$SOURCE_BASED" ]; then
  command -v "clang-$SOURCE_BASED" >/dev/null || need_pkgs "clang-$SOURCE_BASED" || skip "clang-$SOURCE_BASED not available"
elif ! command -v "gcc-$GCCVER" >/dev/null || ! command -v "gcov-$GCCVER" >/dev/null \
   || ! command -v "gcov-dump-$GCCVER" >/dev/null; then
  need_pkgs "gcc-$GCCVER" || skip "gcc-$GCCVER/gcov-$GCCVER not available"
fi
# shellcheck disable=SC2086
need_pkgs $DEPS || skip "cannot install build dependencies: $DEPS"

# --------------------------------------------------------------------------
# 2. deb-src entry + apt-get source (cached in WORKDIR/src)
# --------------------------------------------------------------------------
have_deb_src() {
  grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    || grep -Eqs '^Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources
}
add_deb_src() {
  local src=/etc/apt/sources.list.d/debian.sources
  local dst=/etc/apt/sources.list.d/covkit-src.sources
  if [ -f "$src" ]; then
    # Copy the (non-security) stanzas with Types: deb as Types: deb-src.
    awk '
      function flush() {
        if (isdeb && !sec && body != "") printf "Types: deb-src\n%s\n", body
        body = ""; isdeb = 0; sec = 0
      }
      /^[[:space:]]*$/ { flush(); next }
      /^#/ { next }
      /^Types:/ { if ($0 ~ /[[:space:]]deb([[:space:]]|$)/) isdeb = 1; next }
      /^URIs:/ { if ($0 ~ /security/) sec = 1 }
      /^Suites:/ { if ($0 ~ /security/) sec = 1 }
      { body = body $0 "\n" }
      END { flush() }
    ' "$src" >"$dst.tmp"
  elif [ -f /etc/apt/sources.list ]; then
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list | grep -v security >"$dst.tmp" || true
    dst=/etc/apt/sources.list.d/covkit-src.list
    mv "$dst.tmp" "$dst" 2>/dev/null || true
  fi
  [ -s "$dst.tmp" ] && mv "$dst.tmp" "$dst"
  rm -f "$dst.tmp"
  log "added deb-src entry $dst"
  APT_UPDATED=0
}

SRCROOT=$WORKDIR/src/$SRCPKG
if [ ! -f "$SRCROOT/.fetched" ]; then
  if ! have_deb_src; then
    [ "$(id -u)" = 0 ] || skip "no deb-src entry and not root"
    add_deb_src
    have_deb_src || skip "could not add a deb-src entry"
  fi
  apt_update || skip "apt-get update failed"
  rm -rf "$SRCROOT" && mkdir -p "$SRCROOT"
  # APT::Sandbox::User=root: the _apt user cannot write into WORKDIR.
  (cd "$SRCROOT" && run apt-get source -q -o APT::Sandbox::User=root "$SRCPKG") \
    || skip "apt-get source $SRCPKG failed"
  touch "$SRCROOT/.fetched"
fi
DSC=$(ls "$SRCROOT"/*.dsc | head -n1)
VERSION=$(sed -n 's/^Version: //p' "$DSC")
SRCDIR=$(find "$SRCROOT" -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -n "$SRCDIR" ] || die "no unpacked source in $SRCROOT"
log "source $SRCPKG $VERSION in $SRCDIR"

# --------------------------------------------------------------------------
# 3. build (in place: the .gcda paths are compiled into the binaries, so the
#    tree must be built where it will stay)
# --------------------------------------------------------------------------
rm -rf "$TREE"
# (gcctests and sqlite build from a few files of the source: not a 146 MB copy)
if [ "$PKG" = gcctests ] || [ "$PKG" = sqlite ]; then mkdir -p "$TREE"; else cp -a "$SRCDIR" "$TREE"; fi
if [ "$GCCVER" = clang ]; then export CC=clang CXX=clang++; else export CC=gcc-$GCCVER CXX=g++-$GCCVER; fi
export CFLAGS="--coverage -$OPT -g" CXXFLAGS="--coverage -$OPT -g"
if [ "$PKG" = lighttpd ]; then CFLAGS="$CFLAGS -fprofile-update=atomic"; fi
export LDFLAGS="--coverage"
if [ -n "$SOURCE_BASED" ]; then
  # Source-based coverage: one .profraw per process, in the tree's prof/.
  export CC=clang-$SOURCE_BASED CXX=clang++-$SOURCE_BASED
  export CFLAGS="-fprofile-instr-generate -fcoverage-mapping -$OPT -g" CXXFLAGS="-fprofile-instr-generate -fcoverage-mapping -$OPT -g"
  export LDFLAGS="-fprofile-instr-generate" LLVM_PROFILE_FILE=$TREE/prof/%p.profraw
fi
unset CPPFLAGS MOREFLAGS || true
export LC_ALL=C

t0=$SECONDS
build_zstd() {
  cd "$TREE" || return 1
  # programs/ compiles the whole library again into its own object directory
  # (programs/obj/conf_<hash>/), with the CLI: at -O2 that one build, driven
  # by the CLI runs below, is the -O2 variant. lib/, examples/ and the test
  # programs (each compiles the library once more, `gcc -o prog a.c b.c ...`,
  # giving prog-a.gcno names) are built at -O0 only: at -O2 they took CI
  # minutes of its critical path and add the same code, compiled the same.
  if [ "$OPT" = O0 ]; then
    run make -j"$NPROC" -C lib libzstd.a || return 1
  fi
  run make -j"$NPROC" -C programs zstd || return 1
  if [ "$OPT" = O0 ]; then
    run make -j"$NPROC" -C examples all || return 1
    # The test programs run below, and longmatch (never run: objects without
    # a .gcda). Not fullbench or decodecorpus: two more copies of the
    # library, ~17 s of CI's critical path, in a naming mode the others give.
    run make -j"$NPROC" -C tests fuzzer zstreamtest poolTests invalidDictionaries legacy longmatch || return 1
  fi
}
test_zstd() {
  cd "$TREE"
  local z=$TREE/programs/zstd d=$TREE/rc-tmp
  mkdir -p "$d"
  # CLI exercises (run in the background alongside the unit tests: 2 cores).
  (
    set +e
    cd "$d"
    cat "$TREE"/lib/*/*.c "$TREE"/lib/*/*.h >corpus
    for l in 1 3 5 7 12 19; do
      "$z" -q -f -$l corpus -o c$l.zst && "$z" -q -d -f c$l.zst -o d$l && cmp -s corpus d$l || echo "zstd -$l roundtrip FAILED"
    done
    "$z" -q -f -T2 -6 --long=24 corpus -o mt.zst && "$z" -q -t mt.zst --long=24 || echo "zstd -T2 FAILED"
    "$z" -q -f --ultra -20 "$TREE/lib/zstd.h" -o u.zst && "$z" -q -t u.zst || echo "zstd --ultra FAILED"
    "$z" -q -f --fast=3 corpus -o fast.zst && "$z" -q -t fast.zst || echo "zstd --fast FAILED"
    "$z" -q -f --rsyncable -T2 corpus -o rs.zst && "$z" -q -t rs.zst || echo "zstd --rsyncable FAILED"
    "$z" -q -f --adapt corpus -o ad.zst && "$z" -q -t ad.zst || echo "zstd --adapt FAILED"
    "$z" -q -f --patch-from="$TREE/lib/zstd.h" "$TREE/lib/zdict.h" -o p.zst \
      && "$z" -q -d -f --patch-from="$TREE/lib/zstd.h" p.zst -o p.out && cmp -s p.out "$TREE/lib/zdict.h" \
      || echo "zstd --patch-from FAILED"
    for f in gzip xz lzma lz4; do
      "$z" -q -f --format=$f corpus -o c.$f && "$z" -q -d -f c.$f -o dc.$f && cmp -s corpus dc.$f \
        || echo "zstd --format=$f FAILED (format maybe not compiled in)"
    done
    "$z" -q -f --train "$TREE"/lib/*/*.c -o dict --maxdict=16K && \
      "$z" -q -f -D dict "$TREE/lib/common/xxhash.c" -o dx.zst && "$z" -q -t -D dict dx.zst \
      || echo "zstd --train FAILED"
    "$z" -q -f --train-fastcover "$TREE"/lib/*/*.c -o dict2 --maxdict=16K || echo "train-fastcover FAILED"
    "$z" -q -f --train-legacy "$TREE"/lib/*/*.c -o dict3 --maxdict=16K || echo "train-legacy FAILED"
    "$z" -l -v c3.zst mt.zst >/dev/null || echo "zstd -l FAILED"
    "$z" -q -b1 -e3 -i0 corpus >/dev/null 2>&1 || echo "zstd -b FAILED"
    "$z" -q -t "$TREE"/tests/golden-decompression/* >/dev/null 2>&1
    "$z" -q -t "$TREE"/tests/golden-compression/* >/dev/null 2>&1
    "$z" -q -d -c <c1.zst | cmp -s - corpus || echo "zstd stdin FAILED"
    # (zstd 1.5.4 segfaults if the --output-dir-flat directory does not exist)
    mkdir -p "$d/flat"
    "$z" -q -r -f "$TREE/lib/legacy" --output-dir-flat "$d/flat" || echo "zstd -r FAILED"
    "$z" -h >/dev/null 2>&1; "$z" -H >/dev/null 2>&1; "$z" -V >/dev/null 2>&1
    "$z" --no-such-option >/dev/null 2>&1
    exit 0
  ) >>"$LOG.cli" 2>&1 &
  local clipid=$!
  if [ "$OPT" = O0 ]; then
    cd "$TREE/tests"
    # (zstd's cli-tests are not run: ~40 s of CPU beside the CLI exercises
    # above, which already drive programs/ through its options.)
    # Fixed seeds; -t1 skips the (slow) basic unit tests of fuzzer.
    run timeout 300 ./fuzzer -s1234 -t1 -i20 || log "WARNING: fuzzer failed"
    run timeout 300 ./zstreamtest -s1234 -t1 -i200 --no-big-tests || log "WARNING: zstreamtest failed"
    run timeout 300 ./zstreamtest --newapi -s1234 -t1 -i50 --no-big-tests || log "WARNING: zstreamtest --newapi failed"
    run timeout 300 ./poolTests || log "WARNING: poolTests failed"
    run timeout 300 ./legacy || log "WARNING: legacy failed"
    run timeout 300 ./invalidDictionaries || log "WARNING: invalidDictionaries failed"
  fi
  if [ "$OPT" = O0 ]; then
    run timeout 300 make -C "$TREE/examples" test || log "WARNING: examples test failed"
  fi
  wait "$clipid" || true
  cat "$LOG.cli" >>"$LOG"; rm -f "$LOG.cli"
  rm -rf "$d" "$TREE"/tests/tmp* "$TREE"/tests/cli-tests/scratch 2>/dev/null || true
}

build_zlib() {
  cd "$TREE" || return 1
  run ./configure || return 1
  run make -j"$NPROC" all || return 1
}
test_zlib() {
  cd "$TREE"
  run make test || log "WARNING: make test failed"
  run make test64 || true
  local d=$TREE/rc-tmp; mkdir -p "$d"
  ( set +e
    cat "$TREE"/*.c >"$d/corpus"
    for l in 1 6 9 -f -h; do
      "$TREE/minigzip" -c "-${l#-}" "$d/corpus" | "$TREE/minigzip" -d -c | cmp -s - "$d/corpus" || echo "minigzip $l FAILED"
    done
  ) >>"$LOG" 2>&1
  rm -rf "$d"
}

build_lighttpd() {
  cd "$TREE" || return 1
  run ./configure --without-pcre2 --without-zlib --without-bzip2 --without-openssl \
      --prefix="$TREE/inst" || return 1
  run make -j"$NPROC" || return 1
}
test_lighttpd() {
  # Only a start: the server is driven by its test. -tt loads the modules too.
  cd "$TREE"
  printf 'server.document-root = "%s"\nserver.port = 1\n' "$TREE" >rc-test.conf
  run ./src/lighttpd -tt -f rc-test.conf -m "$TREE/src/.libs" || log "WARNING: lighttpd -tt failed"
  run ./src/lighttpd -v
  rm -f rc-test.conf
}

build_jsoncpp() {
  # The static library only (the shared and object ones are the same sources
  # compiled twice more); the build type None: the flags are CXXFLAGS alone.
  run cmake -S "$TREE" -B "$TREE/build" -G Ninja -DCMAKE_BUILD_TYPE=None \
      -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON -DBUILD_OBJECT_LIBS=OFF \
      -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF -DJSONCPP_WITH_PKGCONFIG_SUPPORT=OFF \
      -DJSONCPP_WITH_CMAKE_PACKAGE=OFF || return 1
  run ninja -C "$TREE/build" -j"$NPROC" || return 1
}
test_jsoncpp() {
  # Its unit tests (jsoncpp_test) and the reader/writer round trips of
  # test/data through jsontestrunner_exe.
  cd "$TREE/build"
  run timeout 300 ctest --output-on-failure || log "WARNING: ctest failed"
}

build_tinyxml2() {
  # The static library and xmltest, its test program.
  run cmake -S "$TREE" -B "$TREE/build" -G Ninja -DCMAKE_BUILD_TYPE=None \
      -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=ON -Dtinyxml2_BUILD_TESTING=ON || return 1
  run ninja -C "$TREE/build" -j"$NPROC" || return 1
}
test_tinyxml2() {
  cd "$TREE/build"
  run timeout 300 ctest --output-on-failure || log "WARNING: ctest failed"
}

# simdjson: the library (src/simdjson.cpp: every kernel in one object) and
# three of its programs, compiled by hand (its CMake's test targets download
# their data): the DOM tests, the On Demand number tests and the quickstart,
# run from the tree's root (their data: jsonexamples/). On an AVX-512 CPU
# the runtime dispatch runs the icelake kernel.
SIMDJSON_PROGS="tests/dom/basictests tests/ondemand/ondemand_number_tests examples/quickstart/quickstart_ondemand"
build_simdjson() {
  cd "$TREE" || return 1
  local inc="-std=c++17 -Iinclude -Isrc -Itests -Itests/ondemand" p
  # shellcheck disable=SC2086
  run $CXX $CXXFLAGS $inc -c src/simdjson.cpp -o src/simdjson.o || return 1
  for p in $SIMDJSON_PROGS; do
    # shellcheck disable=SC2086
    run $CXX $CXXFLAGS $inc -c "$p.cpp" -o "$p.o" && run $CXX $CXXFLAGS -o "$p" "$p.o" src/simdjson.o $LDFLAGS || return 1
  done
}
test_simdjson() {
  cd "$TREE" || return 1
  run tests/dom/basictests || log "WARNING: basictests failed"
  run tests/ondemand/ondemand_number_tests || log "WARNING: ondemand_number_tests failed"
  ( cd jsonexamples && run ../examples/quickstart/quickstart_ondemand ) || log "WARNING: quickstart_ondemand failed"
}

# covkit sample's real code: built by the script its plain build uses too,
# and run on the workload its recordings run (the test runs it again on a
# clean tree: these .gcda only show the tree works).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_lua() { run "$HERE/build_sample_package.sh" lua "$TREE"; }
build_luaswitch() { run "$HERE/build_sample_package.sh" luaswitch "$TREE"; }
build_bzip2() { run "$HERE/build_sample_package.sh" bzip2 "$TREE"; }
test_lua() { run "$TREE/src/lua" "$HERE/workloads/lua_workload.lua" 1 || log "WARNING: the Lua workload failed"; }
test_luaswitch() { test_lua; }
# The amalgamation is generated once per source (cached next to it, under
# the lock), with the host compiler and no coverage flags: only sqlite3.c,
# shell.c and sqlite3.h are copied into the tree and compiled there.
sqlite_amalgamation() {
  local amalg=$SRCROOT/amalgamation
  if [ ! -f "$amalg/.done" ]; then
    rm -rf "$amalg" && mkdir -p "$amalg" || return 1
    ( cd "$amalg" && unset CFLAGS CXXFLAGS LDFLAGS && export CC=cc \
      && run "$SRCDIR/configure" --disable-tcl && run make sqlite3.c shell.c sqlite3.h ) || return 1
    touch "$amalg/.done"
  fi
  cp "$amalg/sqlite3.c" "$amalg/shell.c" "$amalg/sqlite3.h" "$TREE/"
}
build_sqlite() { sqlite_amalgamation && run "$HERE/build_sample_package.sh" sqlite "$TREE"; }
test_sqlite() { run "$HERE/workloads/sqlite_workload.sh" "$TREE/sqlite3" "$TREE/rc-tmp" || log "WARNING: the SQLite workload failed"; rm -rf "$TREE/rc-tmp"; }
build_gcctests() { run python3 "$HERE/build_gcc_testsuite.py" "$SRCDIR" "$TREE" "$CC" "$CXX" "$OPT"; }
test_gcctests() { :; }  # each program ran once where it was built
test_bzip2() { run "$HERE/workloads/bzip2_workload.sh" "$TREE/bzip2" "$TREE" || log "WARNING: the bzip2 workload failed"; }

log "building $PKG with CC=$CC CXX=$CXX CFLAGS='$CFLAGS' LDFLAGS='$LDFLAGS'"
( "build_$PKG" ) || die "build failed"
tb=$((SECONDS - t0))
log "build took ${tb}s"
t1=$SECONDS
( "test_$PKG" ) || die "tests failed to run"
tt=$((SECONDS - t1))
log "tests took ${tt}s"

if [ -n "$SOURCE_BASED" ]; then
  nprof=$(find "$TREE/prof" -name '*.profraw' 2>/dev/null | wc -l)
  [ "$nprof" -gt 0 ] || die "no .profraw files were produced"
else
  ngcda=$(find "$TREE" -name '*.gcda' | wc -l)
  [ "$ngcda" -gt 0 ] || die "no .gcda files were produced"
fi

{
  echo "pkg=$PKG"
  echo "srcpkg=$SRCPKG"
  echo "version=$VERSION"
  echo "gccver=$GCCVER"
  echo "opt=$OPT"
  echo "cc=$("$CC" --version | head -n1)"
  echo "root=$TREE"
  echo "build_seconds=$tb"
  echo "test_seconds=$tt"
} >"$MARKER"
summary "built in ${tb}s, tests ${tt}s"
