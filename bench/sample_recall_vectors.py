#!/usr/bin/env python3
"""Recall of branch-vector sampling as a function of the number of vectors
and of their length (issue 33 item 5), on bzip2 1.0.8 (Debian's source,
-O2 -g) against its --coverage truth (the real-code tests' builds).

Vectors are the same kind of evidence whoever takes them: the emulation's
are the next N taken branches after a random moment, a PMU's branch stack
the last N before one. The workload: compress an ~8 MB corpus (bzip2's
sources and 2 MB of a binary) at -9 and decompress it through a pipe, two
long processes; the truth is one round of it on the --coverage build.
Recordings of --rounds rounds each, in branch mode with 32-branch vectors,
are made until they hold --max-vectors vectors of bzip2 (kept, so that a
long collection can stop and resume). Cutting each vector after its 4th or
16th taken branch gives the shorter lengths (4 as the 2005 paper's BTB,
16), by the runtime's rule, so exactly what a 4- or 16-branch recording
takes at the same moment: a step is a taken branch when it is not the
instruction after its predecessor by that instruction's length (objdump's
instruction boundaries of the mapped file; a step to the same address, a
`rep` instruction's next iteration, is none). Then random subsets of 100 up to all of the
vectors, each written as recordings of their own and compared with the
truth by `covkit sample compare` (default inference: dominators). Writes
WORKDIR/recall-vectors.csv and a PNG (gnuplot) with the paper's figures
(4-entry vectors: 50% of the lines on average, 80% at best) and the 10 s
and 60 s marks of a PMU sampling at 4 kHz drawn beside.

  bench/sample_recall_vectors.py [--covkit build/covkit] [--workdir DIR]
        [--png docs/images/sample-recall-vectors.png] [--max-vectors 100000]

Environment: COVKIT_REALCODE_CACHE (the builds' cache; default build/realcode).
The recordings use block stepping at --period (default 1 ms; the kernel's
CPU-time timers fire at its tick, 4 ms here, at the soonest); 10^5 vectors
took ~26 minutes here at load ~18, their comparisons ~30 more."""
import argparse
import csv
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAGIC = 0x314B5343
KIND_IMAGE, KIND_MAPPING, KIND_SAMPLE, KIND_BRANCHES = 1, 2, 3, 8
PAPER_AVERAGE, PAPER_BEST = 0.50, 0.80
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from objdump_lengths import Lengths  # noqa: E402  (the test's oracle: run_block_step.py)

PMU_HZ = 4000  # perf record's default sampling frequency (docs/covkit-sample.md: under 3% with a branch stack)


def run(argv, **kw):
    return subprocess.run(argv, check=True, **kw)


def setup(cache):
    """The --coverage build (truth) and the plain one, as the real-code tests make them."""
    run([os.path.join(ROOT, "tests/realcode/fetch_and_build.sh"), "bzip2", cache, "12", "O2"],
        stdout=subprocess.DEVNULL)
    truth = os.path.join(cache, "bzip2-gcc12-O2")
    plain = os.path.join(cache, "bzip2-plain-gcc12-O2")
    if not os.path.exists(os.path.join(plain, ".covkit-sample-plain")):
        src_root = os.path.join(cache, "src", "bzip2")
        src = [os.path.join(src_root, d) for d in os.listdir(src_root) if os.path.isdir(os.path.join(src_root, d))][0]
        shutil.rmtree(plain, ignore_errors=True)
        run(["cp", "-a", src, plain])
        run([os.path.join(ROOT, "tests/realcode/build_sample_package.sh"), "bzip2", plain],
            env=dict(os.environ, CC="gcc-12", CFLAGS="-O2 -g", LDFLAGS=""), stdout=subprocess.DEVNULL)
        open(os.path.join(plain, ".covkit-sample-plain"), "w").close()
    return truth, plain


def make_corpus(cache, plain):
    """~8 MB: bzip2's sources and some binary bytes (bzip2 takes other paths on them)."""
    path = os.path.join(cache, "recall-vectors-corpus")
    if not os.path.exists(path):
        text = b"".join(open(os.path.join(plain, n), "rb").read()
                        for n in sorted(os.listdir(plain)) if n.endswith((".c", ".h")))
        binary = open(sys.executable, "rb").read()[:2_000_000]
        with open(path + ".tmp", "wb") as f:
            while f.tell() < 6_000_000:
                f.write(text)
            f.write(binary)
        os.rename(path + ".tmp", path)
    return path


def workload(exe, corpus, rounds):
    """Compress at -9 and decompress through a pipe (two long processes), `rounds` times."""
    one = f'"{exe}" -9 -c "{corpus}" | "{exe}" -d -c | cmp -s - "{corpus}" || echo "bzip2 round FAILED" >&2'
    return ["/bin/sh", "-c", f"for i in $(seq {rounds}); do {one}; done"]


def records(path):
    """(kind, bytes) of each record of a .cks file."""
    data = open(path, "rb").read()
    at = 0
    while at + 16 <= len(data):
        magic, kind, _flags, size = struct.unpack_from("<IHHI", data, at)
        if magic != MAGIC or size < 16 or at + size > len(data):
            break
        yield kind, data[at:at + size]
        at += size


def mapping(data):
    """(start, end, file offset, path) of a MAPPING record."""
    start, end, offset = struct.unpack_from("<QQQ", data, 16)
    id_size, path_size = struct.unpack_from("<II", data, 56)
    path = data[64 + id_size:64 + id_size + path_size].split(b"\0", 1)[0].decode(errors="replace")
    return start, end, offset, path


def pool(rec, exe, files, samples):
    """Adds rec's {(rec, file): [records]}, and the (rec, file, index) of every sample with steps in an image of `exe`."""
    for name in sorted(os.listdir(rec)):
        if not name.endswith(".cks"):
            continue
        recs = list(records(os.path.join(rec, name)))
        files[(rec, name)] = recs
        ours = False
        for i, (kind, data) in enumerate(recs):
            if kind == KIND_IMAGE:
                ours = os.path.realpath(data[32:].split(b"\0", 1)[0].decode(errors="replace")) == os.path.realpath(exe)
            elif kind == KIND_SAMPLE and ours and struct.unpack_from("<I", data, 24)[0] > 1:
                samples.append((rec, name, i))


def instruction_length(maps, sizes, addr):
    """The length of the instruction at `addr` by the image's mappings; 0: not known."""
    for start, end, offset, path in reversed(maps):
        if start <= addr < end:
            length = sizes.of(path, addr - start + offset)
            # over 15 bytes is no instruction: a gap objdump skipped
            return length if length is not None and length <= 15 else 0
    return 0


def truncated(data, length, maps, sizes, memo, key):
    """A SAMPLE record cut after its `length`-th taken step, by the runtime's
    rule (docs/sample-format.md): a step that is not the previous
    instruction's address plus its length, nor the same address again.
    Where the length is not known (code objdump does not list), a step 1 to
    15 bytes on counts as the next instruction, as the runtime does without
    its decoder."""
    tid, nstack, nsteps, taken = struct.unpack_from("<IIII", data, 16)
    if key not in memo:  # the step after which the cut goes (0: none), found once per vector and length
        memo[key] = 0
        steps = struct.unpack_from(f"<{nsteps}Q", data, 40 + 8 * nstack)
        n = 0
        for i in range(1, nsteps):
            delta = (steps[i] - steps[i - 1]) % (1 << 64)
            size = instruction_length(maps, sizes, steps[i - 1])
            if delta != 0 and (delta != size if size else not 1 <= delta <= 15):
                n += 1
                if n >= length:
                    memo[key] = i + 1
                    break
    keep = memo[key]
    if not keep or keep == nsteps:
        return data
    size = 40 + 8 * (nstack + keep)
    magic, kind, _flags, _size, reserved = struct.unpack_from("<IHHII", data, 0)
    head = struct.pack("<IHHIIIIII", magic, kind, 1, size, reserved, tid, nstack, keep, length)
    return head + data[32:40 + 8 * (nstack + keep)]


def write_subset(recs_dirs, files, chosen, out, length, sizes, memo):
    """One subset directory per chunk recording (compare adds them together); their paths."""
    shutil.rmtree(out, ignore_errors=True)
    outs = []
    for k, rec in enumerate(recs_dirs):
        d = os.path.join(out, str(k))
        os.makedirs(d)
        shutil.copy(os.path.join(rec, "recording.json"), d)
        outs.append(d)
    for (rec, name), recs in files.items():
        with open(os.path.join(out, str(recs_dirs.index(rec)), name), "wb") as f:
            keep_branches = False
            maps = []
            for i, (kind, data) in enumerate(recs):
                if kind == KIND_MAPPING:
                    maps.append(mapping(data))
                elif kind == KIND_SAMPLE:
                    keep_branches = (rec, name, i) in chosen
                    if not keep_branches:
                        continue
                    data = truncated(data, length, maps, sizes, memo, (rec, name, i, length))
                elif kind == KIND_BRANCHES and not keep_branches:
                    continue
                f.write(data)
    return outs


def compare(covkit, recs, truth, plain):
    p = run([covkit, "sample", "compare", *recs, "--against", truth, "--path-map", f"{plain}={truth}", "-q",
             "--csv-summary"], capture_output=True, text=True)
    return float(p.stdout.strip().split(",")[0])


def plot(csv_path, png):
    rows = list(csv.DictReader(open(csv_path)))
    lengths = sorted({int(r["vector_length"]) for r in rows})
    xs = [int(r["vectors"]) for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        series = []
        for n in lengths:
            data = os.path.join(tmp, f"v{n}.dat")
            with open(data, "w") as f:
                for r in rows:
                    if int(r["vector_length"]) == n:
                        f.write(f'{r["vectors"]} {float(r["recall"]) * 100:.2f}\n')
            series.append(f"'{data}' using 1:2 with linespoints lw 2 pt 7 title '{n}-branch vectors (covkit, bzip2)'")
        script = f"""
set terminal pngcairo size 900,640 font 'DejaVu Sans,11' noenhanced
set output '{png}'
set logscale x
set xrange [{min(xs) * 0.8}:{max(max(xs), PMU_HZ * 60) * 1.25}]
set arrow from {PMU_HZ * 10}, graph 0 to {PMU_HZ * 10}, graph 1 nohead dt 4 lc rgb 'red'
set arrow from {PMU_HZ * 60}, graph 0 to {PMU_HZ * 60}, graph 1 nohead dt 4 lc rgb 'red'
set label 'PMU at 4 kHz: 10 s' at {PMU_HZ * 10 / 1.08}, graph 0.06 right tc rgb 'red'
set label '60 s' at {PMU_HZ * 60 * 1.08}, graph 0.06 tc rgb 'red'
set yrange [0:100]
set grid
set key below
set xlabel 'branch vectors (samples) in the run'
set ylabel 'recall: % of the lines --coverage saw run'
set title 'covkit sample branch mode: recall vs vectors and vector length (bzip2 1.0.8 -O2)'
plot {', '.join(series)}, \\
  {PAPER_AVERAGE * 100} with lines dt 2 lw 2 lc rgb 'gray40' title '2005 paper, 4-entry BTB vectors: average (50%)', \\
  {PAPER_BEST * 100} with lines dt 3 lw 2 lc rgb 'black' title '2005 paper, 4-entry BTB vectors: best (80%)'
"""
        run(["gnuplot"], input=script, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--covkit", default=os.path.join(ROOT, "build", "covkit"))
    ap.add_argument("--workdir", default=os.environ.get("COVKIT_REALCODE_CACHE", os.path.join(ROOT, "build", "realcode")))
    ap.add_argument("--png", default=os.path.join(ROOT, "docs", "images", "sample-recall-vectors.png"))
    ap.add_argument("--period", default="1ms")
    ap.add_argument("--max-vectors", type=int, default=100000)
    ap.add_argument("--no-record", action="store_true", help="compare with the chunks recorded so far (no new ones)")
    ap.add_argument("--lengths", default="4,16,32")
    ap.add_argument("--repeats", type=int, default=3, help="random subsets per point (averaged)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds of the workload per recording (chunk)")
    ap.add_argument("--fresh", action="store_true", help="record anew (else chunks recorded before are reused)")
    ap.add_argument("--plot-only", action="store_true", help="draw the PNG from an existing CSV")
    args = ap.parse_args()
    covkit = os.path.abspath(args.covkit)
    cache = os.path.abspath(args.workdir)
    os.makedirs(cache, exist_ok=True)
    csv_path = os.path.join(cache, "recall-vectors.csv")
    if args.plot_only:
        plot(csv_path, os.path.abspath(args.png))
        return 0
    truth, plain = setup(cache)
    exe_truth, exe_plain = os.path.join(truth, "bzip2"), os.path.join(plain, "bzip2")

    corpus = make_corpus(cache, plain)

    # The truth: one round of the workload on the --coverage build.
    for d, _, names in os.walk(truth):
        for n in names:
            if n.endswith(".gcda"):
                os.remove(os.path.join(d, n))
    run(workload(exe_truth, corpus, 1), stdout=subprocess.DEVNULL)

    rows = []
    rng = random.Random(33)
    lengths = [int(x) for x in args.lengths.split(",")]
    # Recordings of CHUNK rounds each (so that a long collection can stop
    # and resume), until they hold --max-vectors vectors of bzip2.
    chunks, files, samples = [], {}, []
    while True:
        rec = os.path.join(cache, f"recall-vectors-{max(lengths)}.{len(chunks)}.rec")
        if not os.path.exists(os.path.join(rec, "recording.json")) or args.fresh:
            if len(samples) >= args.max_vectors or args.no_record:
                break
            shutil.rmtree(rec, ignore_errors=True)
            shutil.rmtree(rec + ".old", ignore_errors=True)
            print(f"recording {max(lengths)}-branch vectors: chunk {len(chunks)}, {len(samples)} vectors so far",
                  file=sys.stderr, flush=True)
            run([covkit, "sample", "record", "--mode", "branch", "--source", "runtime", "--period", args.period,
                 "--vector-length", str(max(lengths)), "-o", rec, "--", *workload(exe_plain, corpus, args.rounds)],
                stdout=subprocess.DEVNULL)
        chunks.append(rec)
        pool(rec, exe_plain, files, samples)
        if len(samples) >= args.max_vectors:
            break
    print(f"{len(samples)} vectors of bzip2 in {len(chunks)} recordings", file=sys.stderr)
    counts = []
    n = 100
    while n < min(len(samples), args.max_vectors):
        counts.append(n)
        n = n * 3 if str(n)[0] == "1" else n * 10 // 3
    counts.append(min(len(samples), args.max_vectors))
    sub = os.path.join(cache, "recall-vectors-subset")
    sizes, memo = Lengths(), {}
    for length in lengths:
        for n in counts:
            recalls = []
            for _ in range(args.repeats if n < len(samples) else 1):
                chosen = set(rng.sample(samples, n))
                subset = write_subset(chunks, files, chosen, sub, length, sizes, memo)
                recalls.append(compare(covkit, subset, truth, plain))
            recall = sum(recalls) / len(recalls)
            rows.append({"vector_length": length, "vectors": n, "recall": f"{recall:.4f}",
                         "min": f"{min(recalls):.4f}", "max": f"{max(recalls):.4f}"})
            print(f"{length:3d}-branch vectors {n:7d}: recall {recall * 100:5.1f}% "
                  f"({min(recalls) * 100:.1f}..{max(recalls) * 100:.1f})", flush=True)
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["vector_length", "vectors", "recall", "min", "max"])
        w.writeheader()
        w.writerows(rows)
    os.makedirs(os.path.dirname(os.path.abspath(args.png)), exist_ok=True)
    plot(csv_path, os.path.abspath(args.png))
    print(f"wrote {csv_path} and {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
