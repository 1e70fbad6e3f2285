#!/usr/bin/env python3
"""Reference decoder of covkit trace directories (docs/trace-format.md).

Written from the format document alone, independently of the C++ reader
(src/format/trace_reader), so the two can check each other. Reads every
IMAGE.meta and IMAGE-<tid>[.<k>].ckt in DIR (IMAGE: <pid> or <pid>.<n>), resolves function addresses to names
with `nm` on the executable and the modules of the `module` lines (minus
their load bias), and replays each thread's events:

  decode_trace.py DIR            per process and thread: calls, edges, max depth
  decode_trace.py --json DIR     the same as JSON (used by the tests)

Exit status 1 when a file is damaged or a stream is not perfectly nested.
"""
import argparse
import bisect
import json
import os
import re
import struct
import subprocess
import sys

ENTER, EXIT, SPECIAL = 1, 2, 3
DEFINE, LOST, STACK, END, SYNC = 1, 2, 3, 4, 5


class FormatError(Exception):
    pass


# ---------------------------------------------------------------- .meta

def parse_meta(path):
    meta = {"pid": None, "ppid": None, "exe": None, "clock": None, "clock_reason": None, "clocksource": None,
            "calib": [], "modules": [],
            "segments": [], "threads": {}, "forks": [], "end": None, "version": None, "hooks": []}
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", "replace")
    lines = data.split("\n")
    if not data.endswith("\n"):
        lines = lines[:-1]  # a last line without '\n' is ignored
    for i, line in enumerate(lines):
        if line == "":
            continue
        key, _, rest = line.partition(" ")
        if i == 0:
            if key != "covkit-trace":
                raise FormatError(f"{path}: bad first line {line!r}")
            meta["version"] = int(rest)
            continue
        if key == "pid":
            meta["pid"] = int(rest)
        elif key == "ppid":
            meta["ppid"] = int(rest)
        elif key == "exe":
            meta["exe"] = rest
        elif key == "clock":
            meta["clock"] = rest
        elif key == "clock_reason":
            meta["clock_reason"] = rest
        elif key == "clocksource":
            meta["clocksource"] = rest
        elif key == "calib":
            c, ns = rest.split(" ")
            meta["calib"].append((int(c), int(ns)))
        elif key == "module":
            base, seen, p = rest.split(" ", 2)
            meta["modules"].append({"base": int(base, 16), "seen": int(seen), "path": p, "segments": []})
        elif key == "segment":
            base, lo, hi = (int(x, 16) for x in rest.split(" "))
            meta["segments"].append((base, lo, hi))
            for m in reversed(meta["modules"]):
                if m["base"] == base:
                    m["segments"].append((lo, hi))
                    break
        elif key == "thread":
            tid, _, name = rest.partition(" ")
            meta["threads"][int(tid)] = name
        elif key == "fork":
            t, child = rest.split(" ")
            meta["forks"].append((int(t), int(child)))
        elif key == "end":
            meta["end"] = int(rest)
        elif key == "hook":
            meta["hooks"].append(rest)
    return meta


def to_ns_fn(meta):
    cal = meta["calib"]
    if meta["clock"] == "mono" or len(cal) == 0:
        return lambda c: float(c)
    c0, n0 = cal[0]
    if len(cal) >= 2 and cal[-1][0] != c0:
        c1, n1 = cal[-1]
        slope = (n1 - n0) / (c1 - c0)
    else:
        slope = 1.0
    return lambda c: n0 + (c - c0) * slope


# ---------------------------------------------------------------- .ckt

def read_varint(buf, pos):
    v, shift = 0, 0
    while True:
        if pos >= len(buf):
            raise IndexError
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos


def parse_stream(path):
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 64 or buf[:8] not in (b"CKTRACE1", b"CKTRACE2"):
        raise FormatError(f"{path}: bad header")
    pid, tid, start, flags = struct.unpack_from("<IIQI", buf, 8)
    hdr_calls, hdr_events, hdr_lost = struct.unpack_from("<QQQ", buf, 32)
    st = {"pid": pid, "tid": tid, "start": start, "ended_flag": bool(flags & 1), "events": [],
          "defines": {}, "lost": 0, "stack": [], "end_event": False, "truncated": False,
          "bytes": len(buf), "data_bytes": 0, "all_events": 0,
          "header_counts": (hdr_calls, hdr_events, hdr_lost) if flags & 2 else None}
    pos, now = 64, start
    events = st["events"]
    while pos < len(buf):
        ev_start = pos
        lead = buf[pos]
        if lead == 0:
            break
        kind = lead & 3
        if kind == 0:
            raise FormatError(f"{path}: kind 0 at offset {pos}")
        try:
            pos += 1
            delta = lead >> 3
            if lead & 4:
                more, pos = read_varint(buf, pos)
                delta |= more << 5
            now += delta
            if kind == ENTER:
                fid, pos = read_varint(buf, pos)
                if fid not in st["defines"]:
                    raise FormatError(f"{path}: enter of undefined id {fid} at offset {ev_start}")
                events.append((ENTER, now, st["defines"][fid]))
            elif kind == EXIT:
                events.append((EXIT, now, None))
            else:
                sub, pos = read_varint(buf, pos)
                if sub == DEFINE:
                    fid, pos = read_varint(buf, pos)
                    if pos + 8 > len(buf):
                        raise IndexError
                    (addr,) = struct.unpack_from("<Q", buf, pos)
                    pos += 8
                    st["defines"][fid] = addr
                elif sub == LOST:
                    n, pos = read_varint(buf, pos)
                    st["lost"] += n
                elif sub == STACK:
                    n, pos = read_varint(buf, pos)
                    ids = []
                    for _ in range(n):
                        fid, pos = read_varint(buf, pos)
                        ids.append(st["defines"][fid])
                    if events or st["stack"]:
                        raise FormatError(f"{path}: stack event after other events")
                    st["stack"] = ids
                elif sub == SYNC:
                    counter, pos = read_varint(buf, pos)
                    at, pos = read_varint(buf, pos)
                    if counter != now or at != ev_start:
                        raise FormatError(f"{path}: sync at offset {ev_start} says {counter} at {at}")
                elif sub == END:
                    st["all_events"] += 1
                    st["end_event"] = True
                    st["data_bytes"] = pos - 64
                    if pos < len(buf) and buf[pos] != 0:
                        raise FormatError(f"{path}: events after end")
                    break
                else:
                    raise FormatError(f"{path}: unknown special {sub} at offset {ev_start}")
        except IndexError:
            st["truncated"] = True  # a final event cut short
            pos = ev_start
            break
        st["all_events"] += 1
        st["data_bytes"] = pos - 64
    st["last_time"] = now
    return st


# ---------------------------------------------------------------- symbols

_nm_cache = {}


def symbols_of(path):
    if path in _nm_cache:
        return _nm_cache[path]
    table = ([], [])
    try:
        syms = {}
        # .symtab first (static functions), then .dynsym (stripped libraries)
        for extra in ([], ["-D"]):
            out = subprocess.run(["nm", "-C", "--defined-only"] + extra + [path], capture_output=True,
                                 text=True, check=False).stdout
            for line in out.splitlines():
                m = re.match(r"^([0-9a-fA-F]+) ([tTwWiI]) (.*?)(@.*)?$", line)
                if m:
                    syms.setdefault(int(m.group(1), 16), m.group(3))
        addrs = sorted(syms)
        table = (addrs, [syms[a] for a in addrs])
    except OSError:
        pass
    _nm_cache[path] = table
    return table


def resolver(meta):
    modules = meta["modules"]

    def resolve(addr):
        cands = [m for m in modules if any(lo <= addr < hi for lo, hi in m["segments"])]
        if not cands:
            return f"0x{addr:x}"
        m = max(cands, key=lambda m: m["seen"])
        addrs, names = symbols_of(m["path"])
        off = addr - m["base"]
        i = bisect.bisect_right(addrs, off) - 1
        if i < 0:
            return f"0x{addr:x}"
        if addrs[i] == off:
            return names[i]
        return f"{names[i]}+0x{off - addrs[i]:x}"
    return resolve


# ---------------------------------------------------------------- replay

def replay(st, resolve, to_ns, timed=()):
    """`timed`: names of functions whose every enter time is listed (enters_ns)."""
    calls, edges, errors = {}, {}, []
    enters_ns = {name: [] for name in timed}
    stack = [resolve(a) for a in st["stack"]]
    times = [None] * len(stack)
    callee_seen = [True] * len(stack)
    max_depth = len(stack)
    min_leaf_ns = None
    longest_ns = {}  # function -> its longest closed call
    first_enter_ns, last_exit_ns = {}, {}  # function -> the time of its first enter, of its last exit
    for kind, t, addr in st["events"]:
        if kind == ENTER:
            name = resolve(addr)
            first_enter_ns.setdefault(name, to_ns(t))
            if name in enters_ns:
                enters_ns[name].append(to_ns(t))
            caller = stack[-1] if stack else "<root>"
            calls[name] = calls.get(name, 0) + 1
            key = f"{caller} -> {name}"
            edges[key] = edges.get(key, 0) + 1
            if callee_seen:
                callee_seen[-1] = True
            stack.append(name)
            times.append(t)
            callee_seen.append(False)
            max_depth = max(max_depth, len(stack))
        else:
            if not stack:
                errors.append(f"exit without an open frame at counter {t}")
                continue
            name = stack.pop()
            t0 = times.pop()
            leaf = not callee_seen.pop()
            last_exit_ns[name] = to_ns(t)
            if t0 is not None:
                longest_ns[name] = max(longest_ns.get(name, 0), to_ns(t) - to_ns(t0))
            if leaf and t0 is not None:
                d = to_ns(t) - to_ns(t0)
                min_leaf_ns = d if min_leaf_ns is None else min(min_leaf_ns, d)
    return {"calls": calls, "edges": edges, "max_depth": max_depth, "open_at_end": stack,
            "errors": errors, "min_leaf_ns": min_leaf_ns, "longest_ns": longest_ns,
            "first_enter_ns": first_enter_ns, "last_exit_ns": last_exit_ns, "enters_ns": enters_ns}


META_NAME = re.compile(r"(\d+)(?:\.(\d+))?\.meta")          # IMAGE.meta, IMAGE = <pid>[.<n>]
STREAM_NAME = re.compile(r"(\d+(?:\.\d+)?)-(\d+)(?:\.\d+)?\.ckt")  # IMAGE-<tid>[.<k>].ckt


def image_key(image):
    pid, _, n = image.partition(".")
    return (int(pid), int(n or 0))


def decode_dir(d, timed=()):
    result = {"dir": d, "processes": [], "errors": []}
    names = sorted(os.listdir(d))
    metas = {}
    for n in names:
        m = META_NAME.fullmatch(n)
        if m:
            try:
                metas[n[:-len(".meta")]] = parse_meta(os.path.join(d, n))
            except (FormatError, ValueError) as e:
                result["errors"].append(str(e))
    streams = {}
    for n in names:
        m = STREAM_NAME.fullmatch(n)
        if not m:
            continue
        image, tid = m.group(1), int(m.group(2))
        pid = image_key(image)[0]
        try:
            st = parse_stream(os.path.join(d, n))
        except (FormatError, KeyError) as e:
            result["errors"].append(str(e))
            continue
        if (st["pid"], st["tid"]) != (pid, tid):
            result["errors"].append(f"{n}: header says {st['pid']}-{st['tid']}")
        if st["header_counts"] is not None:
            calls = sum(1 for e in st["events"] if e[0] == ENTER)
            if st["header_counts"] != (calls, st["all_events"], st["lost"]):
                result["errors"].append(f"{n}: header counts (calls, events, lost) {st['header_counts']}, "
                                        f"decoded {(calls, st['all_events'], st['lost'])}")
        streams.setdefault(image, []).append(st)
    for image in sorted(set(metas) | set(streams), key=image_key):
        meta = metas.get(image)
        pid = image_key(image)[0]
        if meta is None:
            result["errors"].append(f"{image}: thread streams without {image}.meta")
            continue
        resolve, to_ns = resolver(meta), to_ns_fn(meta)
        proc = {"pid": pid, "image": image, "ppid": meta["ppid"], "exe": meta["exe"], "clock": meta["clock"],
                "clock_reason": meta["clock_reason"], "clocksource": meta["clocksource"], "calib_pairs": meta["calib"],
                "hooks": meta["hooks"], "calib": len(meta["calib"]), "end": meta["end"] is not None, "forks": meta["forks"],
                "modules": [m["path"] for m in meta["modules"]], "threads": []}
        for st in sorted(streams.get(image, []), key=lambda s: s["tid"]):
            r = replay(st, resolve, to_ns, timed)
            calls_total = sum(1 for e in st["events"] if e[0] == ENTER)
            proc["threads"].append({
                "tid": st["tid"], "name": meta["threads"].get(st["tid"], ""),
                "ended": st["ended_flag"], "end_event": st["end_event"], "truncated": st["truncated"],
                "lost": st["lost"], "initial_stack": [resolve(a) for a in st["stack"]],
                "events": len(st["events"]), "enters": calls_total, "header_counts": st["header_counts"],
                "file_bytes": st["bytes"], "data_bytes": st["data_bytes"], **r})
            for e in r["errors"]:
                result["errors"].append(f"{image}-{st['tid']}: {e}")
        result["processes"].append(proc)
    return result


def print_text(res):
    for p in res["processes"]:
        print(f"process {p['image']} (ppid {p['ppid']}) {p['exe']} clock={p['clock']}"
              f" end={'yes' if p['end'] else 'no'} forks={[c for _, c in p['forks']]}")
        for t in p["threads"]:
            print(f"  thread {t['tid']} '{t['name']}': {t['enters']} calls, max depth {t['max_depth']},"
                  f" lost {t['lost']}, ended {t['ended']}, {t['data_bytes']} bytes")
            if t["initial_stack"]:
                print(f"    initial stack: {' > '.join(t['initial_stack'])}")
            for name, n in sorted(t["calls"].items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"    {n:>10}  {name}")
            for e, n in sorted(t["edges"].items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"    {n:>10}  {e}")
            if t["open_at_end"]:
                print(f"    open at end: {' > '.join(t['open_at_end'])}")
    for e in res["errors"]:
        print(f"error: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    res = decode_dir(args.dir)
    if args.json:
        json.dump(res, sys.stdout, indent=1, sort_keys=True)
        print()
    else:
        print_text(res)
    return 1 if res["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
