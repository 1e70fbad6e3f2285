#!/usr/bin/env python3
"""The files of a runtime folder (src/runtime/NAME/*.c) call one another one
way only: a file uses the functions and variables of the files below it and
never, through any chain, of itself. So each file can be read, and tested,
with only what is below it in mind (issue 34: breakpoints.c <-> signal_guard.c
and handlers.c -> thread.c -> process.c -> handlers.c were such cycles).

A file *uses* another when it names a function or variable that the other
defines (non-static, at file scope). Prints a cycle of each group of files
that reach one another (`a.c -> b.c -> a.c`) and exits 1 when there is one.

  check_runtime_calls.py DIR...     check the .c files of each folder
  check_runtime_calls.py --self-test
"""
import os
import re
import sys
import tempfile

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
# A function defined at file scope and not static: `int name(...) {`.
FUNCTION = re.compile(r"^(?!static\b)(?:[A-Za-z_][\w\s\*]*?[\s\*])(\w+)\s*\([^;{]*\)\s*\{", re.M)
# Variables defined at file scope and not static or extern: `int a, b;`, `struct x y;`, `T v = ...;`.
VARIABLE = re.compile(r"^(?!static\b|extern\b|typedef\b|return\b)(?:struct\s+)?[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*[\s\*]+"
                      r"(\w+(?:\s*,\s*\w+)*)\s*(?:=[^;]*)?;", re.M)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


def strip(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def definitions(text):
    names = set(FUNCTION.findall(text))
    for group in VARIABLE.findall(text):
        names.update(n.strip() for n in group.split(","))
    return names


def uses(folder):
    """file -> set of files whose definitions it names."""
    texts = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".c"):
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                texts[name] = strip(f.read())
    owner = {}
    for name, text in texts.items():
        for d in definitions(text):
            owner.setdefault(d, name)
    graph = {}
    for name, text in texts.items():
        graph[name] = {owner[i] for i in set(IDENT.findall(text)) if i in owner and owner[i] != name}
    return graph


def cycles(graph):
    """Strongly connected components of more than one file: (a cycle through the first, the files)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append((path_through(graph, set(comp)), sorted(comp)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def path_through(graph, comp):
    """A cycle inside the component, from its first file back to it."""
    start = min(comp)
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(graph[v] & comp):
            if w == start:
                chain = [v]
                while prev[chain[-1]] is not None:
                    chain.append(prev[chain[-1]])
                return list(reversed(chain)) + [start]
            if w not in prev:
                prev[w] = v
                todo.append(w)
    return [start, start]


def check(folders):
    found = []
    for folder in folders:
        for chain, comp in cycles(uses(folder)):
            extra = " (files that reach one another: %s)" % ", ".join(comp) if len(comp) > len(chain) - 1 else ""
            found.append("%s: %s%s" % (folder, " -> ".join(chain), extra))
    return found


def self_test():
    with tempfile.TemporaryDirectory() as d:
        files = {
            "a.c": "int shared_flag;\nint a_fn(void) { return b_fn(); }\n",
            "b.c": "static int helper(void) { return 0; }\nint b_fn(void) { return shared_flag + c_fn(); }\n",
            "c.c": "/* a_fn() in a comment is no use */ int c_fn(void) { return 1; }\n",
            "d.c": "int d_fn(void) { return e_fn(); }\n",
            "e.c": "int e_fn(void) { return d_fn(); }\n",
        }
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        got = check([d])
        want = [d + ": a.c -> b.c -> a.c", d + ": d.c -> e.c -> d.c"]
        if sorted(got) != sorted(want):
            print("self-test failed: want %r, got %r" % (want, got))
            return 1
    print("self-test: both planted cycles were found, and nothing else")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    found = check(sys.argv[1:])
    for f in found:
        print(f)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
