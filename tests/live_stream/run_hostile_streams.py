#!/usr/bin/env python3
"""Hostile streams for `covkit live unpack`: each must fail with exit status 1
and one line on stderr naming the stream and the byte at fault, and leave the
output directory exactly as it was (nothing half written, nothing written
outside it). Streams are crafted here, byte by byte, in GCC 12's layout.

  run_hostile_streams.py COVKIT WORKDIR

Exit status: 0 passed, 1 failed.
"""
import os
import struct
import subprocess
import sys
import time

GCFN, GCDA, VERSION = 0x6763666E, 0x67636461, 0x4232322A
TAG_FUNCTION, TAG_ARCS = 0x01000000, 0x01A10000


def word(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def gcfn(name):
    raw = name.encode() + b"\0"
    return word(GCFN) + word(VERSION) + word(len(raw)) + raw


def gcda(counters, checksum=0xC0FFEE):
    body = word(GCDA) + word(VERSION) + word(0xFFFFFFFF) + word(checksum)
    body += word(TAG_FUNCTION) + word(12) + word(1) + word(0x1111) + word(0x2222)
    body += word(TAG_ARCS) + word(8 * len(counters)) + b"".join(struct.pack("<q", c) for c in counters)
    return body + word(0)


def entry(name, counters, checksum=0xC0FFEE):
    return gcfn(name) + gcda(counters, checksum)


def hex_lines(data, prefix=""):
    lines = []
    for at in range(0, len(data), 32):
        chunk = data[at:at + 32]
        lines.append(hex_line(at, chunk, prefix))
    lines.append(hex_line(len(data), b"", prefix))
    return "".join(lines)


def hex_line(offset, chunk, prefix=""):
    check = (sum(struct.pack(">I", offset)) + sum(chunk)) & 0xFF
    return f"{prefix}:gcov:{offset:08x}:{chunk.hex()}:{check:02x}\r\n"


class Failure(Exception):
    pass


def snapshot(root):
    """Every path below root with its bytes (links as their target)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                out[p] = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[p] = f.read()
            else:
                out[p] = "dir"
    return out


def main():
    covkit, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    command = ["live", "unpack"]
    out = os.path.join(work, "out")
    outside = os.path.join(work, "outside")
    os.makedirs(outside, exist_ok=True)
    good = entry("/b/app.gcda", [3, 4])
    # A first, good unpack: the directory then holds a file every hostile run
    # must leave as it is.
    first = os.path.join(work, "good.bin")
    with open(first, "wb") as f:
        f.write(good)
    p = subprocess.run([covkit, *command, first, "-o", out, "-q"], capture_output=True, text=True)
    if p.returncode != 0:
        raise Failure(f"good stream refused: {p.stderr}")

    lying = gcfn("/b/app.gcda") + gcda([1, 2])[:36] + word(TAG_ARCS) + word(0x7FFFFFF8) + word(1)
    cases = {
        # name: (bytes, the byte offset the message must name, a phrase it must hold)
        "truncated_counters": (good + good[:-9], len(good) + len(gcfn("/b/app.gcda")) + 36, "runs past the end"),
        "truncated_end_word": (good + good[:-4], 2 * len(good) - 4, "the stream ends inside this file's data"),
        "lying_length": (lying, len(gcfn("/b/app.gcda")) + 36, "runs past the end"),
        "corrupt_magic": (good + b"junkjunkjunk", len(good), "expected the \"gcfn\" header"),
        "absolute_dotdot": (entry("/b/../../../etc/passwd.gcda", [1]), 0, "'..' component"),
        "dotdot_relative": (entry("../escape.gcda", [1]), 0, "'..' component"),
        "not_gcda": (entry("/etc/passwd", [1]), 0, "does not end in .gcda"),
        "other_build": (entry("/b/app.gcda", [1, 1], checksum=0xBAD), None, "checksums differ"),
        "huge_name": (word(GCFN) + word(VERSION) + word(0xFFFFFFF0), 8, "at most 4096"),
        "hex_lost_line": (None, None, "a line was lost or repeated"),
        "hex_garbled": (None, None, "check digits"),
        "hex_cut_off": (None, None, "has no end line"),
    }
    two = good + entry("/b/lib.gcda", [9] * 20)
    lines = hex_lines(two, "[uart] ").splitlines(keepends=True)
    hex_cases = {
        "hex_lost_line": "".join(lines[:1] + lines[2:]),
        "hex_garbled": "".join(lines[:1] + [lines[1].replace(":gcov:00000020:", ":gcov:00000020:ff", 1)] + lines[2:]),
        "hex_cut_off": "".join(lines[:-1]),
    }
    failures = []
    before = snapshot(work)
    for name, (data, at, phrase) in cases.items():
        path = os.path.join(work, f"{name}.stream")
        with open(path, "wb") as f:
            f.write(data if data is not None else hex_cases[name].encode())
        p = subprocess.run([covkit, *command, path, "-o", out, "-q"], capture_output=True, text=True)
        lines_err = p.stderr.splitlines()
        try:
            if p.returncode != 1:
                raise Failure(f"exit status {p.returncode}")
            if len(lines_err) != 1:
                raise Failure(f"{len(lines_err)} lines on stderr: {p.stderr!r}")
            line = lines_err[0]
            if phrase not in line:
                raise Failure(f"'{phrase}' not in: {line}")
            if name != "other_build" and path not in line:
                raise Failure(f"the stream is not named: {line}")
            if at is not None and f"byte {at}:" not in line:
                raise Failure(f"byte {at} is not named: {line}")
            if name.startswith("hex_") and " line " not in line and "line " not in line:
                raise Failure(f"no line number: {line}")
            after = {k: v for k, v in snapshot(work).items() if not k.endswith(".stream")}
            if after != {k: v for k, v in before.items() if not k.endswith(".stream")}:
                raise Failure("the work directory changed")
            print(f"ok {name}: {line}")
        except Failure as e:
            failures.append(f"{name}: {e}")
            print(f"FAILED {name}: {e}")

    # 20 GB of nothing (a sparse file): refused quickly, nothing written.
    huge = os.path.join(work, "nothing.stream")
    with open(huge, "wb") as f:
        f.truncate(20 << 30)
    start = time.monotonic()
    p = subprocess.run([covkit, *command, huge, "-o", out, "-q"], capture_output=True, text=True)
    took = time.monotonic() - start
    os.unlink(huge)
    if p.returncode != 1 or len(p.stderr.splitlines()) != 1 or "not a console log" not in p.stderr:
        failures.append(f"20 GB of zeros: status {p.returncode}, {p.stderr!r}")
    else:
        print(f"ok 20 GB of zeros ({took:.1f}s): {p.stderr.strip()}")
    # An absolute name goes below the output directory, as under GCOV_PREFIX.
    target = os.path.join(outside, "victim.gcda")
    absolute = os.path.join(work, "absolute.stream")
    with open(absolute, "wb") as f:
        f.write(entry(target, [5]))
    p = subprocess.run([covkit, *command, absolute, "-o", out, "-q"], capture_output=True, text=True)
    below = out + target
    if p.returncode != 0 or not os.path.isfile(below) or os.path.exists(target):
        failures.append(f"absolute name: status {p.returncode}, {p.stderr!r}, below: {os.path.isfile(below)}")
    else:
        print(f"ok absolute name {target} written to {below}")
    if snapshot(outside):
        failures.append("something was written outside the output directory")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print(f"{len(cases) + 2} passed, 0 failed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
