"""Instruction lengths by objdump (the oracle, not covkit's decoder nor the
sample runtime's rule), keyed by (file, file offset) as recordings give
their steps: the distance from an instruction start to the next one objdump
lists in the file's executable segments."""
import os
import re
import subprocess


class Lengths:
    def __init__(self):
        self.starts = {}

    def _load(self, path):
        segs = []
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
        for line in out.splitlines():
            w = line.split()
            if w and w[0] == "LOAD" and "E" in w[6:-1]:
                segs.append((int(w[2], 16), int(w[2], 16) + int(w[5], 16), int(w[1], 16)))
        starts = []
        out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", path], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            m = re.match(r"\s+([0-9a-f]+):\t", line)
            if not m:
                continue
            vaddr = int(m.group(1), 16)
            for lo, hi, off in segs:
                if lo <= vaddr < hi:
                    starts.append(vaddr - lo + off)
        starts.sort()
        return {a: b - a for a, b in zip(starts, starts[1:])}

    def of(self, path, offset):
        """The length of the instruction at `offset`; None where objdump
        has no instruction start there (or the file is not readable)."""
        if path not in self.starts:
            self.starts[path] = self._load(path) if os.path.isfile(path) else {}
        return self.starts[path].get(offset)
