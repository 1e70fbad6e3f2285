#!/usr/bin/env python3
"""Plots of covkit sample's accuracy (bench/sample_accuracy.sh's CSV files)
as SVG, with no plotting library: recall against the number of runs added
together (one line per mode and period), and recall against the period
(runs = the most each series has).

  bench/sample_plots.py CSV... -o DIR   writes DIR/sample-recall-runs.svg and
                                        DIR/sample-recall-period.svg
"""
import argparse
import csv
import os
from collections import defaultdict

W, H, L, R, T, B = 560, 340, 60, 150, 30, 50
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"]


def period_ms(text):
    if not text:
        return None
    for unit, scale in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


def axes(title, xlabel, xticks, ylabel="recall"):
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="DejaVu Sans, sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="18" font-size="14">{title}</text>']
    for i in range(0, 11, 2):
        y = T + (H - T - B) * (1 - i / 10)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{i * 10}%</text>')
    for label, x in xticks:
        out.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">{label}</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">{xlabel}</text>')
    out.append(f'<text x="14" y="{(T + H - B) / 2}" transform="rotate(-90 14 {(T + H - B) / 2})" text-anchor="middle">{ylabel}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>')
    return out


def series_lines(out, series, xpos):
    for i, (name, points) in enumerate(sorted(series.items())):
        color = COLORS[i % len(COLORS)]
        # pc dashed, modes through perf_event_open dotted (colors repeat).
        dash = ' stroke-dasharray="5,3"' if name.startswith("pc") else ' stroke-dasharray="2,2"' if name.startswith("perf") else ""
        pts = [(xpos(x), T + (H - T - B) * (1 - y)) for x, y in sorted(points)]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>' %
                   (color, dash, " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)))
        for x, y in pts:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
        ly = T + 14 + 18 * i
        out.append(f'<line x1="{W - R + 10}" y1="{ly - 4}" x2="{W - R + 28}" y2="{ly - 4}" stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{W - R + 32}" y="{ly}">{name}</text>')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    rows = []
    for path in args.csv:
        with open(path) as f:
            rows += list(csv.DictReader(f))
    by_runs = defaultdict(list)
    best = {}
    for r in rows:
        name = r["mode"] + (f" {r['period']}" if r["period"] else "")
        runs, recall = int(r["runs"]), float(r["recall"])
        by_runs[name].append((runs, recall))
        if r["period"] and (r["mode"] not in best or True):
            key = (r["mode"], period_ms(r["period"]))
            if key not in best or runs > best[key][0]:
                best[key] = (runs, recall)
    max_runs = max(x for pts in by_runs.values() for x, _ in pts)
    xr = lambda x: L + (W - L - R) * ((x - 1) / max(max_runs - 1, 1))
    out = axes("covkit sample: recall against runs added together (zstd -O2)", "runs",
               [(str(n), xr(n)) for n in range(1, max_runs + 1)])
    series_lines(out, by_runs, xr)
    out.append("</svg>")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "sample-recall-runs.svg"), "w") as f:
        f.write("\n".join(out) + "\n")

    by_period = defaultdict(list)
    for (mode, ms), (runs, recall) in best.items():
        by_period[mode].append((ms, recall))
    periods = sorted({ms for pts in by_period.values() for ms, _ in pts})
    import math
    lo, hi = math.log10(periods[0]), math.log10(periods[-1])
    xp = lambda ms: L + (W - L - R) * ((math.log10(ms) - lo) / max(hi - lo, 1e-9))
    out = axes("covkit sample: recall against the period (most runs added)", "period (ms of thread CPU time, log)",
               [(f"{p:g}", xp(p)) for p in periods])
    series_lines(out, by_period, xp)
    out.append("</svg>")
    with open(os.path.join(args.out, "sample-recall-period.svg"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
