#!/usr/bin/env bash
# make_trace_docs.sh [WORKDIR]
#
# Regenerates the images of the section "A real program" in
# docs/covkit-trace.md: a trace of the `zstd` command-line tool of the Debian 12
# source package libzstd (1.5.4+dfsg2), built with -finstrument-functions and
# compressing a tarball of its own source with two worker threads.
#
#   docs/images/trace-zstd-callgraph.svg   covkit trace graph --threshold 3
#   docs/images/trace-zstd-timeline.svg    covkit trace timeline, drawn by
#                                          scripts/timeline_to_svg.py
#
# Everything else stays in WORKDIR (default: $COVKIT_REALCODE_CACHE, else
# /tmp/covkit-trace-docs), which has the layout of tests/realcode/fetch_and_build.sh,
# so an existing realcode cache supplies the source without a download:
#
#   WORKDIR/src/libzstd/...            apt-get source libzstd (cached)
#   WORKDIR/zstd-trace/                the instrumented build
#   WORKDIR/zstd-src.tar               the input (the upstream tarball, 7.9 MB)
#   WORKDIR/trace/                     the trace directory (~220 MB, 63 M calls;
#                                      the views read it a block at a time)
#   WORKDIR/report.txt                 covkit trace report --limit 15
#   WORKDIR/callgraph.png              the call graph as PNG, to look at
#   WORKDIR/timeline.json.gz           the Chrome trace JSON (ui.perfetto.dev,
#                                      chrome://tracing); ~0.8 MB uncompressed
#   WORKDIR/timeline.png               the timeline SVG as rendered by Chromium
#
# Environment: COVKIT (default build/covkit), CC (default gcc-12),
# THRESHOLD (default 3), MIN_DURATION (default 20us).
# Needs: apt-get source (root, or a cached source), make, xz, python3;
# chromium only for timeline.png.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
WORKDIR=${1:-${COVKIT_REALCODE_CACHE:-/tmp/covkit-trace-docs}}
COVKIT=${COVKIT:-$ROOT/build/covkit}
CC=${CC:-gcc-12}
THRESHOLD=${THRESHOLD:-3}
MIN_DURATION=${MIN_DURATION:-20us}
IMAGES=$ROOT/docs/images
NPROC=$(nproc 2>/dev/null || echo 2)

say() { printf '+ %s\n' "$*" >&2; }
die() { echo "make_trace_docs: $*" >&2; exit 1; }
[ -x "$COVKIT" ] || die "$COVKIT not built (ninja -C build covkit covkit-trace)"
command -v "$CC" >/dev/null || die "$CC not found"
mkdir -p "$WORKDIR" "$IMAGES"
WORKDIR=$(cd "$WORKDIR" && pwd -P)

# ---------------------------------------------------------------------------
# 1. apt-get source libzstd (Debian 12: 1.5.4+dfsg2-5), with a deb-src entry
#    added the way tests/realcode/fetch_and_build.sh adds it.
# ---------------------------------------------------------------------------
SRCROOT=$WORKDIR/src/libzstd
have_deb_src() {
  grep -Eqs '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    || grep -Eqs '^Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources
}
add_deb_src() {  # the (non-security) "Types: deb" stanzas again as deb-src
  local src=/etc/apt/sources.list.d/debian.sources
  local dst=/etc/apt/sources.list.d/covkit-src.sources
  [ -f "$src" ] || die "no deb-src entry and no $src to derive one from"
  awk '
    function flush() {
      if (isdeb && !sec && body != "") printf "Types: deb-src\n%s\n", body
      body = ""; isdeb = 0; sec = 0
    }
    /^[[:space:]]*$/ { flush(); next }
    /^#/ { next }
    /^Types:/ { if ($0 ~ /[[:space:]]deb([[:space:]]|$)/) isdeb = 1; next }
    /^(URIs|Suites):/ { if ($0 ~ /security/) sec = 1 }
    { body = body $0 "\n" }
    END { flush() }
  ' "$src" >"$dst"
}
if [ ! -f "$SRCROOT/.fetched" ]; then
  if ! have_deb_src; then
    [ "$(id -u)" = 0 ] || die "no deb-src entry in the apt sources, and not root to add one"
    say "adding a deb-src entry"; add_deb_src
  fi
  say "apt-get update && apt-get source libzstd"
  apt-get update -q >/dev/null
  rm -rf "$SRCROOT" && mkdir -p "$SRCROOT"
  # APT::Sandbox::User=root: the _apt user may not write into WORKDIR.
  (cd "$SRCROOT" && apt-get source -q -o APT::Sandbox::User=root libzstd >/dev/null)
  touch "$SRCROOT/.fetched"
fi
SRCDIR=$(find "$SRCROOT" -mindepth 1 -maxdepth 1 -type d | head -n1)
VERSION=$(sed -n 's/^Version: //p' "$SRCROOT"/*.dsc | head -n1)
[ -n "$SRCDIR" ] || die "no unpacked source in $SRCROOT"
say "source: libzstd $VERSION in $SRCDIR"

# ---------------------------------------------------------------------------
# 2. Build programs/zstd with -finstrument-functions. Setting CFLAGS on the
#    command line replaces zstd's -O3 and warning flags; the Makefile still
#    adds -DZSTD_MULTITHREAD -pthread (and zlib/lzma/lz4 when present).
# ---------------------------------------------------------------------------
BUILD=$WORKDIR/zstd-trace
ZCFLAGS="-O1 -g -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include"
STAMP="$VERSION $CC $ZCFLAGS"
if [ "$(cat "$BUILD/.covkit-trace-docs" 2>/dev/null)" != "$STAMP" ]; then
  rm -rf "$BUILD" && cp -a "$SRCDIR" "$BUILD"
  say "make -C programs zstd CC=$CC CFLAGS=\"$ZCFLAGS\" MOREFLAGS="
  nice make -s -j"$NPROC" -C "$BUILD/programs" zstd CC="$CC" CFLAGS="$ZCFLAGS" MOREFLAGS= \
    >"$WORKDIR/build.log" 2>&1 || { tail -20 "$WORKDIR/build.log"; die "build failed"; }
  echo "$STAMP" >"$BUILD/.covkit-trace-docs"
fi
ZSTD=$BUILD/programs/zstd

# ---------------------------------------------------------------------------
# 3. Record: compress the upstream source tarball (7.9 MB) with two worker
#    threads. -B1MiB cuts it into 8 jobs of 1 MiB; without it, level 3 makes
#    jobs of 8 MiB and the whole file is one job on one worker.
#    The process has 5 threads: main, the asynchronous read and write pools of
#    programs/fileio_asyncio.c, and the two ZSTDMT workers.
# ---------------------------------------------------------------------------
xz -dc "$SRCROOT"/*.orig.tar.xz >"$WORKDIR/zstd-src.tar"
cd "$WORKDIR"
say "covkit trace record -o trace -- zstd -T2 -B1MiB -q -f -o out.zst zstd-src.tar"
rm -rf "$WORKDIR/trace" "$WORKDIR/trace.old"  # record would keep an earlier one as trace.old
"$COVKIT" trace record -o "$WORKDIR/trace" -- "$ZSTD" -T2 -B1MiB -q -f -o out.zst zstd-src.tar
"$ZSTD" -q -d -c out.zst | cmp -s - zstd-src.tar || die "out.zst does not decompress to the input"

# ---------------------------------------------------------------------------
# 4. Report, call graph, timeline.
# ---------------------------------------------------------------------------
say "covkit trace report trace --limit 15"
"$COVKIT" trace report "$WORKDIR/trace" --limit 15 >"$WORKDIR/report.txt"
sed -n '1,20p;/^Maximum call depth/,$p' "$WORKDIR/report.txt"

say "covkit trace graph trace -o docs/images/trace-zstd-callgraph.svg --threshold $THRESHOLD"
"$COVKIT" trace graph "$WORKDIR/trace" -o "$IMAGES/trace-zstd-callgraph.svg" --threshold "$THRESHOLD"
"$COVKIT" trace graph "$WORKDIR/trace" -o "$WORKDIR/callgraph.png" --threshold "$THRESHOLD"

say "covkit trace timeline trace -o timeline.json --min-duration $MIN_DURATION"
"$COVKIT" trace timeline "$WORKDIR/trace" -o "$WORKDIR/timeline.json" --min-duration "$MIN_DURATION"
say "scripts/timeline_to_svg.py timeline.json docs/images/trace-zstd-timeline.svg"
python3 "$ROOT/scripts/timeline_to_svg.py" "$WORKDIR/timeline.json" "$IMAGES/trace-zstd-timeline.svg" \
  --title "zstd -T2 -B1MiB (Debian libzstd $VERSION, -O1 -finstrument-functions): calls of $MIN_DURATION or more"
gzip -9 -c "$WORKDIR/timeline.json" >"$WORKDIR/timeline.json.gz"

if command -v chromium >/dev/null; then
  h=$(grep -o -m1 'height="[0-9]*"' "$IMAGES/trace-zstd-timeline.svg" | tr -dc 0-9)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$WORKDIR/timeline.png" --window-size=1400,"${h:-1000}" \
    "file://$IMAGES/trace-zstd-timeline.svg" >/dev/null 2>&1 \
    || echo "make_trace_docs: chromium could not render the timeline (not needed)" >&2
fi

ls -l "$IMAGES"/trace-zstd-*.svg "$WORKDIR"/timeline.json* "$WORKDIR"/*.png >&2 2>/dev/null || true
du -sh "$WORKDIR/trace" >&2
