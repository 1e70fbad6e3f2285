#!/usr/bin/env python3
"""How covkit's cost grows with a project's size (issue 36 item 6), with
gcovr and lcov + genhtml beside it while they stay under a time limit.

  bench/scale_vs_objects.py [--covkit build/covkit] [--objects 100,300,1000,3000,10000]
                            [--tracefiles 16,64,256] [--peer-limit 180] [--work DIR]
                            [--csv FILE] [--png docs/images/scale.png]

1. Generates (bench/scale/make_project.py) a synthetic project of the
   largest N objects, builds its 48 template objects with gcc-12 --coverage,
   runs them once and makes the .gcno/.gcda of the other objects from
   theirs (the same bytes but for names; see make_project.py). The project
   is kept in --work and reused (a project of N holds the project of every
   M < N as its first M objects).
2. For each N, a tree of the first N objects' .gcno and .gcda files (hard
   links, plus main's) is what every tool reads, and each command runs once,
   timed by /usr/bin/time (wall, user + system CPU, peak RSS):
     covkit report TREE                       terminal table
     covkit report --lcov F TREE              lcov tracefile
     covkit report --html DIR TREE            HTML site
     covkit merge -o OUT TREE COPY            two .gcda trees added up
     covkit gcov -b -c (one run per object directory, from the project root)
     gcovr -r ROOT -j<cores> --html-details   while under --peer-limit
     lcov -c + genhtml --branch-coverage      while under --peer-limit
   A peer is skipped at a size where the linear extrapolation of its last
   CPU time passes --peer-limit seconds (said in the table; CPU, as the
   wall time of a shared machine follows its other load).
3. Tracefiles of the given sizes in MB (make_project.py --tracefile): covkit
   report -a (terminal, --lcov, --html) and covkit merge of two of them,
   with lcov -a and genhtml under the same limit.
4. Fits cost = a * N^k by least squares on log-log over the sizes >= the
   second one (start-up is most of the smallest), prints k per command (1:
   linear) for CPU time (user + system of the process tree: on a shared
   2-core machine the wall time says more about the neighbours), wall time
   and peak memory, and the ratios to the peers, and writes the CSV and a
   PNG of CPU time and peak memory (gnuplot).
Exit 0 (a measurement); 2 on setup errors.
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run_timed(cmd, cwd, timeout, stdout=subprocess.DEVNULL):
    """(wall s, cpu s, peak MB, rc) of cmd run under /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.monotonic()
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf.name] + cmd, cwd=cwd,
                               stdout=stdout, stderr=subprocess.PIPE, timeout=timeout)
            rc = p.returncode
            err = p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return (time.monotonic() - t0, float("nan"), float("nan"), 124)
        wall = time.monotonic() - t0
        fields = tf.read().split()
        if rc != 0:
            print(f"    !! {' '.join(cmd[:3])} ... exited {rc}: {err.strip().splitlines()[-1:] if err.strip() else ''}",
                  file=sys.stderr)
        try:
            _, u, s, m = fields[-4:]
            return (wall, float(u) + float(s), float(m) / 1024, rc)
        except ValueError:
            return (wall, float("nan"), float("nan"), rc)


def run_shell_timed(script, cwd, timeout):
    """A script of thousands of commands: from a file (an argument that long passes the kernel's limit)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
        f.write(script)
        f.flush()
        return run_timed(["bash", f.name], cwd, timeout)


def build_project(work, n, jobs, cc, cxx):
    root = os.path.join(work, "project")
    marker = os.path.join(root, ".built")
    if os.path.exists(marker) and int(open(marker).read().split()[0]) >= n:
        return root, int(open(marker).read().split()[0])
    print(f"generating a project of {n} objects in {root}; building its 48 template objects (make -j{jobs}), "
          "running them, cloning the rest (see bench/scale/make_project.py) ...", file=sys.stderr)
    subprocess.run([sys.executable, os.path.join(HERE, "scale/make_project.py"), "--objects", str(n), root], check=True)
    t0 = time.monotonic()
    subprocess.run(["make", "-s", f"-j{jobs}", f"CC={cc}", f"CXX={cxx}"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    for dirpath, _, files in os.walk(os.path.join(root, "obj")):
        for f in files:
            if f.endswith(".gcda"):
                os.unlink(os.path.join(dirpath, f))
    subprocess.run(["./prog"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(HERE, "scale/make_project.py"), "--clone", str(n), root], check=True)
    print(f"  built in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    with open(marker, "w") as f:
        f.write(f"{n}\n")
    return root, n


def object_paths(root, n):
    """The first n objects' paths below obj/ (without extension), and main."""
    out = []
    for i in range(n):
        out.append(f"obj/d{i // 100:03d}/obj{i:05d}")
    out.append("obj/main")
    return out


def make_view(root, n, dest, exts=(".gcno", ".gcda")):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    for o in object_paths(root, n):
        for ext in exts:
            src = os.path.join(root, o + ext)
            if not os.path.exists(src):
                continue
            d = os.path.join(dest, o + ext)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            os.link(src, d)


def fit_exponent(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y == y and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--covkit", default=os.path.join(REPO, "build/covkit"))
    ap.add_argument("--objects", default="100,300,1000,3000,10000")
    ap.add_argument("--tracefiles", default="16,64,256",
                    help="tracefile sizes in MB ('' for none; covkit's peak is ~7x the size)")
    ap.add_argument("--peer-limit", type=float, default=180.0,
                    help="CPU seconds: a peer is not run where it would take more (default 180)")
    ap.add_argument("--add-csv", default=None,
                    help="rows of an earlier run's CSV for the commands and sizes this run does not "
                         "measure (say, the tracefiles), for the fits and the plot")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--work", default=None, help="build and scratch directory (default: build/scale-bench)")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--png", default=None, help="write the plot here (needs gnuplot)")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--gcc", default="12")
    a = ap.parse_args()

    covkit = os.path.abspath(a.covkit)
    if not os.access(covkit, os.X_OK):
        sys.exit(f"scale_vs_objects.py: {covkit} is not executable")
    for tool in (["/usr/bin/time", "make", f"gcc-{a.gcc}", f"gcov-{a.gcc}"] +
                 ([] if a.no_peers else ["gcovr", "lcov", "genhtml"])):
        if not shutil.which(tool):
            print(f"scale_vs_objects.py: {tool} not found", file=sys.stderr)
            sys.exit(2)
    sizes = sorted(int(x) for x in a.objects.split(",") if x)
    traces = sorted(int(x) for x in a.tracefiles.split(",") if x)
    jobs = os.cpu_count() or 1
    work = os.path.abspath(a.work or os.path.join(os.path.dirname(covkit), "scale-bench"))
    os.makedirs(work, exist_ok=True)
    gcov = f"gcov-{a.gcc}"
    print(f"covkit: {covkit}\nwork: {work}   cores: {jobs}   peer limit: {a.peer_limit:.0f} s   "
          f"load average at start: {open('/proc/loadavg').read().split()[:3]}")

    root, built = build_project(work, max(sizes), jobs, f"gcc-{a.gcc}", f"g++-{a.gcc}")
    scratch = os.path.join(work, "scratch")
    rows = []  # (series, x, wall, cpu, mb, note)
    peer_last = {}  # series -> (x, wall)

    def peer_ok(series, x):
        if a.no_peers:
            return False
        last = peer_last.get(series)
        if last is None:
            return True
        return last[1] == last[1] and last[1] * x / last[0] <= a.peer_limit

    def record(series, x, res, note=""):
        wall, cpu, mb, rc = res
        if rc != 0:
            note = (note + " " if note else "") + f"FAILED rc={rc}"
            wall = cpu = mb = float("nan")
        rows.append((series, x, wall, cpu, mb, note))
        print(f"  {series:<22} {x:>8} {wall:9.3f} s wall {cpu:9.3f} s cpu {mb:9.1f} MB  {note}", flush=True)
        return cpu

    def skip(series, x):
        if a.no_peers:
            return
        rows.append((series, x, float("nan"), float("nan"), float("nan"), "skipped (over the peer limit)"))
        print(f"  {series:<22} {x:>8}  skipped: its last CPU time extrapolates past {a.peer_limit:.0f} s", flush=True)

    for n in sizes:
        view = os.path.join(scratch, "tree")
        copy = os.path.join(scratch, "copy")
        out = os.path.join(scratch, "out")
        make_view(root, n, view)
        make_view(root, n, copy, exts=(".gcda",))
        nlines = sum(1 for _ in object_paths(root, n))
        print(f"\n== {n} objects ({nlines} with main) ==", flush=True)

        def fresh_out():
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)

        fresh_out()
        record("covkit report (terminal)", n, run_timed([covkit, "report", "-r", root, view], out, a.timeout))
        fresh_out()
        record("covkit report --lcov", n,
               run_timed([covkit, "report", "-r", root, "--lcov", os.path.join(out, "c.info"), view], out, a.timeout))
        fresh_out()
        record("covkit report --html", n,
               run_timed([covkit, "report", "-r", root, "--html", os.path.join(out, "html"), view], out, a.timeout))
        fresh_out()
        record("covkit merge (.gcda)", n,
               run_timed([covkit, "merge", "-o", os.path.join(out, "merged"), view, copy], out, a.timeout))
        # gcov as lcov and gcovr run it: from where the compiler ran, one
        # invocation per object directory (here with all its objects).
        dirs = {}
        for o in object_paths(root, n):
            dirs.setdefault(os.path.dirname(o), []).append(os.path.relpath(os.path.join(view, o + ".gcno"), root))
        script = "set -e\n" + "".join(
            f"{covkit} gcov -b -c -o {os.path.join(view, d)} {' '.join(objs)} >/dev/null\n" for d, objs in dirs.items())
        record("covkit gcov -b -c", n, run_shell_timed(script, root, a.timeout))
        subprocess.run("rm -f -- *.gcov", shell=True, cwd=root)

        if peer_ok("gcovr --html-details", n):
            fresh_out()
            os.makedirs(os.path.join(out, "gcovr"))
            peer_last["gcovr --html-details"] = (n, record("gcovr --html-details", n, run_timed(
                ["gcovr", "-r", root, "-j", str(jobs), "--gcov-executable", gcov, "--gcov-ignore-parse-errors",
                 "--html-details", os.path.join(out, "gcovr/index.html"), view], out, a.timeout)))
        else:
            skip("gcovr --html-details", n)
        if peer_ok("lcov -c + genhtml", n):
            fresh_out()
            r1 = run_timed(["lcov", "-q", "-c", "-d", view, "-o", os.path.join(out, "l.info"), "--rc",
                            "lcov_branch_coverage=1", "--gcov-tool", gcov], out, a.timeout)
            r2 = run_timed(["genhtml", "-q", "--branch-coverage", "-o", os.path.join(out, "lh"),
                            os.path.join(out, "l.info")], out, a.timeout) if r1[3] == 0 else r1
            both = (r1[0] + r2[0], r1[1] + r2[1], max(r1[2], r2[2]), r1[3] or r2[3])
            peer_last["lcov -c + genhtml"] = (n, record("lcov -c + genhtml", n, both))
        else:
            skip("lcov -c + genhtml", n)

    peer_last.clear()
    for mb in traces:
        tf = os.path.join(work, f"trace-{mb}.info")
        if not os.path.exists(tf):
            subprocess.run([sys.executable, os.path.join(HERE, "scale/make_project.py"), "--tracefile", str(mb), tf],
                           check=True)
        tf2 = os.path.join(scratch, "trace-copy.info")
        if os.path.exists(tf2):
            os.unlink(tf2)
        os.link(tf, tf2)
        real_mb = os.path.getsize(tf) / 1e6
        print(f"\n== tracefile of {real_mb:.0f} MB ==", flush=True)
        out = os.path.join(scratch, "out")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        record("covkit report -a (terminal)", mb, run_timed([covkit, "report", "-a", tf], out, a.timeout))
        record("covkit report -a --lcov", mb,
               run_timed([covkit, "report", "-a", tf, "--lcov", os.path.join(out, "c.info")], out, a.timeout))
        record("covkit report -a --html", mb,
               run_timed([covkit, "report", "-a", tf, "--html", os.path.join(out, "html")], out, a.timeout))
        record("covkit merge (tracefiles)", mb,
               run_timed([covkit, "merge", "-o", os.path.join(out, "m.info"), tf, tf2], out, a.timeout))
        if peer_ok("lcov -a (merge)", mb):
            peer_last["lcov -a (merge)"] = (mb, record("lcov -a (merge)", mb, run_timed(
                ["lcov", "-q", "--rc", "lcov_branch_coverage=1", "-a", tf, "-a", tf2, "-o",
                 os.path.join(out, "l.info")], out, a.timeout)))
        else:
            skip("lcov -a (merge)", mb)
        if peer_ok("genhtml", mb):
            peer_last["genhtml"] = (mb, record("genhtml", mb, run_timed(
                ["genhtml", "-q", "--branch-coverage", "--ignore-errors", "source", "-o", os.path.join(out, "gh"),
                 tf], out, a.timeout)))
        else:
            skip("genhtml", mb)
        os.unlink(tf2)
    shutil.rmtree(scratch, ignore_errors=True)
    if a.add_csv:
        measured = {(r[0], r[1]) for r in rows}
        with open(a.add_csv, newline="") as f:
            for r in csv.DictReader(f):
                if (r["command"], int(r["size"])) not in measured and "skipped" not in r["note"]:
                    rows.append((r["command"], int(r["size"]), float(r["wall_s"]), float(r["cpu_s"]),
                                 float(r["peak_mb"]), (r["note"] + " " if r["note"] else "") + f"(from {a.add_csv})"))

    rows.sort(key=lambda r: r[1])  # stable: each command's sizes in order, for the lines drawn

    # --- fits and ratios ---------------------------------------------------
    series = []
    for r in rows:
        if r[0] not in series:
            series.append(r[0])
    print("\n== growth: cost = a * size^k, fitted on log-log over all sizes but the smallest ==")
    print(f"   {'command':<28} {'k (cpu)':>8} {'k (wall)':>9} {'k (memory)':>11}   cpu per unit at the largest size")
    fits = {}
    for s in series:
        pts = [r for r in rows if r[0] == s and r[2] == r[2]]
        xs_all = sorted({r[1] for r in rows if r[0] == s})
        use = [r for r in pts if len(xs_all) < 3 or r[1] != xs_all[0]]
        k = fit_exponent([r[1] for r in use], [r[3] for r in use])
        kw = fit_exponent([r[1] for r in use], [r[2] for r in use])
        km = fit_exponent([r[1] for r in use], [r[4] for r in use])
        fits[s] = k
        big = max(pts, key=lambda r: r[1]) if pts else None
        unit = "object" if "-a" not in s and "tracefile" not in s and "lcov -a" not in s and s != "genhtml" else "MB"
        per = f"{1000 * big[3] / big[1]:.2f} ms per {unit} ({big[1]})" if big else "-"
        print(f"   {s:<28} {k:8.2f} {kw:9.2f} {km:11.2f}   {per}")
    print("\n== ratios at each size where both ran: peer / covkit, CPU time (wall time) ==")
    pairs = [("gcovr --html-details", "covkit report --html"), ("lcov -c + genhtml", "covkit report --html"),
             ("lcov -a (merge)", "covkit merge (tracefiles)"), ("genhtml", "covkit report -a --html")]
    for peer, ours in pairs:
        for r in rows:
            if r[0] != peer or r[2] != r[2]:
                continue
            o = [q for q in rows if q[0] == ours and q[1] == r[1] and q[2] == q[2]]
            if o and o[0][3] > 0:
                print(f"   {peer:<22} / {ours:<26} at {r[1]:>6}: {r[3] / o[0][3]:7.1f}x  ({r[2] / o[0][2]:.1f}x)")
    print(f"load average at end: {open('/proc/loadavg').read().split()[:3]}")

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["command", "size", "wall_s", "cpu_s", "peak_mb", "note"])
            for r in rows:
                w.writerow([r[0], r[1], f"{r[2]:.4f}", f"{r[3]:.4f}", f"{r[4]:.1f}", r[5]])
    if a.png:
        plot(rows, series, fits, a.png, work)
    return 0


def plot(rows, series, fits, png, work):
    if not shutil.which("gnuplot"):
        print("no gnuplot: no plot (apt-get install gnuplot-nox)", file=sys.stderr)
        return
    data = os.path.join(work, "plot")
    os.makedirs(data, exist_ok=True)
    obj_series = [s for s in series if "-a" not in s and "tracefile" not in s and s not in ("genhtml",)]
    tr_series = [s for s in series if s not in obj_series]
    files = {}
    for i, s in enumerate(series):
        fn = os.path.join(data, f"s{i}.dat")
        with open(fn, "w") as f:
            for r in rows:
                if r[0] == s and r[2] == r[2]:
                    f.write(f"{r[1]} {max(r[3], 0.005):.4f} {r[4]:.1f} {r[2]:.4f}\n")
        files[s] = fn

    def plots(ss, col):
        parts = []
        for s in ss:
            k = fits.get(s, float("nan"))
            title = f"{s} (k={k:.2f})" if col == 2 and k == k else s
            dash = "dt 2" if not s.startswith("covkit") else "dt 1"
            parts.append(f"'{files[s]}' using 1:{col} with linespoints lw 2 {dash} title \"{title}\"")
        return ", \\\n  ".join(parts)

    script = f"""set terminal pngcairo size 1400,1000 font "DejaVu Sans,11"
set output '{png}'
set multiplot layout 2,2 title "covkit against gcovr and lcov as a project grows (2-core VM)"
set logscale xy
set grid
set key top left font ",9"
set title "CPU time against objects (user + system, seconds)"
set xlabel "objects"
plot {plots(obj_series, 2)}
set title "peak memory against objects (MB)"
set ylabel ""
plot {plots(obj_series, 3)}
set title "CPU time against tracefile size (user + system, seconds)"
set xlabel "tracefile MB"
plot {plots(tr_series, 2)}
set title "peak memory against tracefile size (MB)"
plot {plots(tr_series, 3)}
unset multiplot
"""
    sp = os.path.join(data, "plot.gp")
    with open(sp, "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", sp], check=False)
    print(f"plot: {png}")


if __name__ == "__main__":
    sys.exit(main())
