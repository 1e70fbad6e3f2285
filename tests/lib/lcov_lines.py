"""Line counts of an lcov tracefile, as the oracle comparisons read them."""
import os


def lcov_lines(text):
    """(file basename, line) -> count, the highest where a line repeats"""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = os.path.basename(line[3:])
        elif line.startswith("DA:") and cur:
            n, c = line[3:].split(",")[:2]
            out[(cur, int(n))] = max(out.get((cur, int(n)), 0), int(c))
    return out
