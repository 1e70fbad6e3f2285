"""Checks of every int3 a breakpoint recording planted, against objdump
(GNU binutils) as the oracle: each planted address is the start of an
instruction objdump lists, and none is padding, i.e. no nop (or int3)
of a run that follows an unconditional jmp or a ret (the alignment gcc
puts before a label; control never falls into it, and a jump targets the
label after it) -- unless a symbol starts there: a function's or a `.cold`
part's first instruction may be a nop (gcc begins an exception landing pad
with one: simdjson's `numeric_values_exception.cold`), reached by a call or
by the unwinder.

    check_plants(covkit, recording) -> (planted, problems)

Used by tests/sample_cfg/run_sample_cfg.py and the real-code sample
tests (tests/realcode/sample_realcode.py)."""
import re
import subprocess

INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
SYMBOL = re.compile(r"^([0-9a-f]+) <.*>:$")
PREFIXES = {"bnd", "notrack", "rep", "repz", "repe", "lock", "data16", "cs", "ds", "es", "ss", "fs", "gs"}


def mnemonic(text):
    words = text.split()
    while words and (words[0] in PREFIXES or words[0].startswith("rex")):
        words = words[1:]
    return words[0] if words else ""


def instructions(path):
    """{address: (mnemonic, text)} of every instruction objdump lists in the
    file, and the set of addresses where a symbol starts."""
    out, symbols = {}, set()
    p = subprocess.run(["objdump", "-d", "-z", "-w", "--no-show-raw-insn", path], capture_output=True, text=True,
                       timeout=600)
    for line in p.stdout.splitlines():
        m = INSN.match(line)
        if m:
            out[int(m.group(1), 16)] = (mnemonic(m.group(2)), m.group(2).strip())
        elif SYMBOL.match(line):
            symbols.add(int(SYMBOL.match(line).group(1), 16))
    return out, symbols


def padding(insns, symbols=frozenset()):
    """The addresses of nops and int3s in a run right after a jmp or ret
    (a symbol's start ends the run)."""
    out = set()
    after_transfer = False
    for a in sorted(insns):
        m, text = insns[a]
        if a in symbols:
            after_transfer = False
        if m in ("jmp", "ret") or m.startswith("ret"):
            after_transfer = True
            continue
        is_pad = m.startswith("nop") or m == "int3" or text.replace(" ", "") == "xchg%ax,%ax"
        if after_transfer and is_pad:
            out.add(a)
            continue
        after_transfer = False
    return out


def load_segments(path):
    """[(vaddr, offset, filesz)] of the PT_LOAD segments (readelf)."""
    p = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, timeout=60)
    segs = []
    for line in p.stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[2], 16), int(f[1], 16), int(f[4], 16)))
    return segs


def planted(covkit, recording):
    """[(file, vaddr)] of every planted site, through the recording's mappings."""
    p = subprocess.run([covkit, "sample", "dump", recording, "--no-steps"], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"sample dump {recording}: {p.stderr}")
    maps, out = {}, []
    segments = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "image":
            current = int(f[1])
            maps[current] = []
        elif f[0] == "mapping":
            lo, hi = (int(x, 16) for x in f[1].split("-"))
            kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
            maps[current].append((lo, hi, int(kv["offset"], 16), kv["path"]))
        elif f[0] == "planted":
            kv = dict(x.split("=", 1) for x in f[1:])
            image, address = int(kv["image"]), int(kv["address"], 16)
            for lo, hi, offset, path in maps.get(image, []):
                if lo <= address < hi:
                    if path not in segments:
                        segments[path] = load_segments(path)
                    off = offset + address - lo
                    for vaddr, seg_off, size in segments[path]:
                        if seg_off <= off < seg_off + size:
                            out.append((path, vaddr + off - seg_off))
                            break
                    break
    return out


def check_plants(covkit, recording):
    sites = planted(covkit, recording)
    problems, by_file = [], {}
    for path, vaddr in sites:
        by_file.setdefault(path, []).append(vaddr)
    for path, vaddrs in by_file.items():
        insns, symbols = instructions(path)
        pad = padding(insns, symbols)
        for v in vaddrs:
            if v not in insns:
                problems.append(f"{path}: {v:#x} is no instruction start (objdump)")
            elif v in pad:
                problems.append(f"{path}: {v:#x} is padding after a jmp or ret ({insns[v][1]})")
    return len(sites), problems
