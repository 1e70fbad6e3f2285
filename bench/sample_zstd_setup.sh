# Sourced by the sample benches: Debian 12's zstd 1.5.4 built twice from one
# source with gcc-12, `--coverage -OPT -g` (the truth, by
# tests/realcode/fetch_and_build.sh) and `-OPT -g` (what is sampled), and one
# workload script, all cached in WORKDIR. Needs ROOT, WORKDIR and OPT; sets
# TRUTH, PLAIN, CORPUS and WORKLOAD (and WORKDIR to its absolute path).
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)

# The truth build (and the source, cached).
"$ROOT/tests/realcode/fetch_and_build.sh" zstd "$WORKDIR" 12 "$OPT" >/dev/null
TRUTH=$WORKDIR/zstd-gcc12-$OPT
SRCDIR=$(find "$WORKDIR/src/libzstd" -mindepth 1 -maxdepth 1 -type d | head -n1)

# The plain build: the same source and flags, without --coverage.
PLAIN=$WORKDIR/zstd-plain-gcc12-$OPT
if [ ! -x "$PLAIN/programs/zstd" ]; then
  rm -rf "$PLAIN" && cp -a "$SRCDIR" "$PLAIN"
  (cd "$PLAIN" && CC=gcc-12 CFLAGS="-$OPT -g" make -s -j"$(nproc)" -C programs zstd >/dev/null)
fi

# The workload, the same for every run: the library's sources (2.8 MB).
CORPUS=$WORKDIR/sample-corpus
[ -s "$CORPUS" ] || cat "$SRCDIR"/lib/*/*.c "$SRCDIR"/lib/*/*.h >"$CORPUS"
# A script of its own, so that a timer or a recorder sees it whole.
WORKLOAD=$WORKDIR/sample-workload.sh
cat >"$WORKLOAD" <<'SH'
#!/usr/bin/env bash
# sample-workload.sh ZSTD CORPUS: compress and decompress at several levels,
# multithreaded with long distance matching, then test and list.
z=$1 corpus=$2
d=$(mktemp -d)
for l in 1 3 9 19; do "$z" -q -f -$l "$corpus" -o "$d/c.zst" && "$z" -q -d -f "$d/c.zst" -o "$d/out"; done
"$z" -q -f -T2 --long=24 -6 "$corpus" -o "$d/mt.zst" && "$z" -q -t --long=24 "$d/mt.zst"
"$z" -q -l "$d/mt.zst" >/dev/null
rm -rf "$d"
SH
chmod +x "$WORKLOAD"
