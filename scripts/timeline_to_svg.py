#!/usr/bin/env python3
"""timeline_to_svg.py TIMELINE.json OUT.svg [options]

Draws a Chrome trace-event JSON file (as written by `covkit trace timeline`)
as a static SVG flame chart, for documentation where no trace viewer runs:

  * one lane per thread (pid, tid), named from the "M" metadata events;
  * every "X" (complete) event is a box at [ts, ts+dur], one row per call
    depth (the depth comes from nesting: a call lies within its caller);
  * names are clipped into the boxes; a box's <title> (hover tooltip) gives
    its name, duration and source;
  * a time axis in milliseconds.

Zoomed out, most calls are narrower than a pixel: on each row a box that
falls entirely on pixels already covered is not drawn (the SVG stays small;
the count is printed). Python 3 standard library only.
"""
import argparse
import colorsys
import hashlib
import json
import math
import sys
from xml.sax.saxutils import escape


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--width", type=int, default=1400, help="SVG width in px (default 1400)")
    p.add_argument("--row-height", type=int, default=14, help="height of one call depth (default 14)")
    p.add_argument("--label-width", type=int, default=130, help="width of the thread names column")
    p.add_argument("--max-depth", type=int, default=0, help="draw at most N depths per lane (0: all)")
    p.add_argument("--title", default=None, help="title line (default: the process names)")
    p.add_argument("--hide-empty", action="store_true",
                   help="leave out threads that have no events")
    return p.parse_args()


def colour(name):
    """A stable warm colour per function name (flame-graph style)."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:8], 16)
    hue = (h % 1000) / 1000.0 * 0.16        # red .. yellow
    sat = 0.55 + ((h >> 10) % 100) / 400.0  # .55 .. .80
    val = 0.88 + ((h >> 20) % 100) / 1000.0
    r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
    return "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


def nice_step(span, target_ticks=10):
    raw = span / target_ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def fmt_dur(us):
    if us >= 1e6:
        return "%.3f s" % (us / 1e6)
    if us >= 1e3:
        return "%.3f ms" % (us / 1e3)
    return "%.3f us" % us


def main():
    a = parse_args()
    with open(a.input) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc

    procs, threads, lanes = {}, {}, {}
    for e in events:
        ph = e.get("ph")
        key = (e.get("pid", 0), e.get("tid", 0))
        if ph == "M" and e.get("name") == "process_name":
            procs[key[0]] = e.get("args", {}).get("name", str(key[0]))
        elif ph == "M" and e.get("name") == "thread_name":
            threads[key] = e.get("args", {}).get("name", str(key[1]))
            lanes.setdefault(key, [])
        elif ph == "X":
            lanes.setdefault(key, []).append(e)
    if a.hide_empty:
        lanes = {k: v for k, v in lanes.items() if v}
    if not any(lanes.values()):
        sys.exit("%s: no complete (\"X\") events" % a.input)

    # Depth by nesting; the events of a thread come in call order, but sort
    # anyway (start ascending, longer first) to accept any valid file.
    t0, t1 = math.inf, -math.inf
    laid = {}
    eps = 1e-6
    for key, evs in lanes.items():
        evs.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        stack, out = [], []
        for e in evs:
            s, d = e["ts"], e.get("dur", 0)
            while stack and not (s >= stack[-1][0] - eps and s + d <= stack[-1][1] + eps):
                stack.pop()
            depth = len(stack)
            stack.append((s, s + d))
            out.append((depth, s, d, e))
            t0, t1 = min(t0, s), max(t1, s + d)
        laid[key] = out
    t0 = 0.0 if t0 > 0 else t0  # ts are counted from the trace start

    W, RH, LW = a.width, a.row_height, a.label_width
    plot_x, plot_w = LW, W - LW - 10
    top = 46  # title + axis
    lane_gap = 8
    scale = plot_w / (t1 - t0)

    def x_of(ts):
        return plot_x + (ts - t0) * scale

    order = sorted(laid)
    lane_y, y = {}, top
    for key in order:
        depths = max((d for d, _, _, _ in laid[key]), default=-1) + 1
        if a.max_depth:
            depths = min(depths, a.max_depth)
        lane_y[key] = (y, max(depths, 1))
        y += max(depths, 1) * RH + lane_gap + 14
    H = y + 4

    o = []
    o.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'viewBox="0 0 %d %d" font-family="DejaVu Sans, Arial, sans-serif">' % (W, H, W, H))
    o.append('<rect width="100%" height="100%" fill="#ffffff"/>')
    title = a.title or ", ".join(procs.values()) or a.input
    o.append('<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>' % (8, escape(title)))

    # time axis (ms)
    span_ms = (t1 - t0) / 1000.0
    step = nice_step(span_ms)
    o.append('<g font-size="10" fill="#444">')
    k = 0
    while k * step <= span_ms + 1e-9:
        ms = k * step
        x = x_of(t0 + ms * 1000.0)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>' % (x, top - 10, x, H - 4))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (x, top - 14, ("%g" % ms) + (" ms" if k == 0 else "")))
        k += 1
    o.append('</g>')

    drawn = skipped = 0
    for key in order:
        ly, depths = lane_y[key]
        pid, tid = key
        name = threads.get(key, "thread %d" % tid)
        label = "%s %d" % (name, tid) if name != str(tid) else "thread %d" % tid
        if tid == pid:
            label += " (main)"
        o.append('<rect x="0" y="%d" width="%d" height="%d" fill="#f4f4f4"/>'
                 % (ly - 13, W, depths * RH + 13 + 3))
        o.append('<text x="6" y="%d" font-size="11" font-weight="bold">%s</text>' % (ly - 2, escape(label)))
        o.append('<text x="6" y="%d" font-size="9" fill="#666">pid %d</text>' % (ly + 10, pid))
        covered = {}  # depth -> rightmost pixel already filled
        o.append('<g font-size="9">')
        for depth, s, d, e in laid[key]:
            if a.max_depth and depth >= a.max_depth:
                skipped += 1
                continue
            x0, x1 = x_of(s), x_of(s + d)
            px0, px1 = math.floor(x0), math.ceil(x1)  # whole pixels
            if px1 - px0 < 1:
                px1 = px0 + 1
            if px1 <= covered.get(depth, -1):
                skipped += 1
                continue
            px0 = max(px0, covered.get(depth, -1))
            covered[depth] = px1
            w = px1 - px0
            by = ly + depth * RH
            n = e.get("name", "?")
            args = e.get("args") or {}
            src = ""
            if "file" in args and "line" in args:
                src = "  %s:%s" % (args["file"].rsplit("/", 1)[-1], args["line"])
            tip = "%s  %s%s" % (n, fmt_dur(d), src)
            # (a 1 px gap shows where one wide call ends and the next begins)
            rect = '<rect x="%g" y="%d" width="%g" height="%d" fill="%s"' % (
                px0, by, w - 1 if w >= 4 else w, RH - 1, colour(n))
            if w >= 6:  # tooltip (in a browser) for boxes one can point at
                o.append('%s><title>%s</title></rect>' % (rect, escape(tip)))
            else:
                o.append(rect + '/>')
            maxch = int((w - 4) / 5.6)  # ~5.6 px per character at 9 px
            if maxch >= 3:
                text = n if len(n) <= maxch else n[:maxch - 1] + "\u2026"
                o.append('<text x="%g" y="%d">%s</text>' % (px0 + 2, by + RH - 4, escape(text)))
            drawn += 1
        o.append('</g>')
    o.append('<text x="%d" y="%d" font-size="9" fill="#888" text-anchor="end">%d calls drawn; '
             '%d narrower than what is already drawn at their depth are merged into it</text>'
             % (W - 8, 16, drawn, skipped))
    o.append('</svg>')
    with open(a.output, "w") as f:
        f.write("\n".join(o) + "\n")
    print("%s: %d lanes, %.3f ms, %d boxes drawn, %d merged" %
          (a.output, len(order), span_ms, drawn, skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
