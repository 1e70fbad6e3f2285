#!/usr/bin/env python3
"""The include order of covkit's folders (docs/architecture.md): a folder of
src/ may include only itself and the folders before it in

    util < format < model < clang < live < report < trace < gprof < sample < blocks < doctor < cli

and src/runtime/ (C, runs inside the user's program) includes nothing of the
others; every folder may include runtime/ headers (the contract the runtime
and the readers share). Prints each violation as FILE:LINE: what, exits 1
when there is any.

  check_layering.py SRC_DIR      check a tree
  check_layering.py --self-test  check that violations are found
"""
import os
import re
import sys
import tempfile

ORDER = ["util", "format", "model", "clang", "live", "report", "trace", "gprof", "sample", "blocks", "doctor", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def violations(src):
    found = []
    for folder, _, files in os.walk(src):
        rel = os.path.relpath(folder, src)
        top = rel.split(os.sep)[0]
        for name in sorted(files):
            if not name.endswith((".h", ".cc", ".c")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1).split("/")[0] if "/" in m.group(1) else None
                    where = "%s:%d" % (os.path.relpath(path, src), number)
                    if top == "runtime":
                        if target is not None and target in ORDER:
                            found.append("%s: the runtime includes %s (it must stand alone)" % (where, m.group(1)))
                    elif top in ORDER and target in ORDER and ORDER.index(target) > ORDER.index(top):
                        found.append("%s: %s/ includes %s, which is above it (%s)" %
                                     (where, top, m.group(1), " < ".join(ORDER)))
                    elif top in ORDER and target is not None and target not in ORDER + ["runtime"]:
                        found.append("%s: includes %s from no known folder" % (where, m.group(1)))
    return found


def self_test():
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        write("util/a.h", '#include "util/b.h"\n')
        write("model/m.cc", '#include "format/f.h"\n#include "runtime/trace/contract.h"\n')
        write("format/f.h", '#include "model/m.h"\n')
        write("runtime/trace/x.c", '#include "x.h"\n#include "util/a.h"\n')
        write("cli/c.cc", '#include "nowhere/z.h"\n')
        got = violations(d)
        want = ["format/f.h:1: format/ includes model/m.h", "runtime/trace/x.c:2: the runtime includes util/a.h",
                "cli/c.cc:1: includes nowhere/z.h"]
        missing = [w for w in want if not any(g.startswith(w) for g in got)]
        if missing or len(got) != len(want):
            print("self-test failed: want %r, got %r" % (want, got))
            return 1
    print("self-test: the three planted violations were found, and nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = violations(sys.argv[1])
    for v in found:
        print(v)
    if not found:
        print("layering: every include keeps the order %s" % " < ".join(ORDER))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
