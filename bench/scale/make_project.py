#!/usr/bin/env python3
"""A synthetic C/C++ project of N objects, for measuring how covkit's cost
grows with the size of a project (bench/scale_vs_objects.py, issue 36 item 6).

  make_project.py --objects N DIR        sources of N objects and a Makefile
  make -C DIR -j2 && (cd DIR && ./prog)  builds and runs the first 48 (the templates)
  make_project.py --clone N DIR          the .gcno/.gcda of objects 48..N-1
  make_project.py --tracefile MB FILE    an lcov tracefile of about MB megabytes

Compiling 20,000 objects would take this 2-core machine the better part of
an hour, so only the first 48 objects are compiled and run (they are all
the kinds of object there are: C and C++, each family header, each template
size); object i's source is object (i mod 48)'s with its names replaced by
names of the same length (obj00003 -> obj12303, src/d000/ -> src/d123/),
and its .gcno and .gcda are the template's with the same replacement. They
are then what GCC writes for that source, but for the stamp and the
checksums, which stay the template's: they agree between the two files,
which is what gcov, lcov, gcovr and covkit check. Every source exists, so
reports read and show them as for a compiled project.

The project looks like a large code base as coverage tools see it:

* sources in directories of 100 (src/dNNN/), objects beside their own
  directories (obj/dNNN/, one .gcno and .gcda per object);
* headers shared by many objects: every object includes common.h (static
  inline functions with branches, so each object has its own copy of their
  lines, merged across all objects), and one of 16 family headers
  (include/family_K.h) shared by a sixteenth of the objects;
* templates instantiated in many places: every fourth object is C++ and
  instantiates the templates of include/templates.hpp with its own types
  (each instantiation a function of its own, merged line by line);
* code that runs and code that does not: each object has loops, switches,
  conditions and functions that are never called; main() calls every
  template's entry once (so every object has a .gcda).

Deterministic: the same N gives the same files byte for byte, and the
first M objects of a project of N > M are the project of M objects.

The tracefile (--tracefile) is written directly, without compiling: files of
400 lines with functions and branches, as many as make about MB megabytes;
its records look like those covkit or geninfo write.
"""
import argparse
import os
import sys

PER_DIR = 100
FAMILIES = 16
# Objects i and i + PERIOD have the same code under other names (families,
# C or C++, template sizes all repeat with it).
PERIOD = 48

COMMON_H = r"""#ifndef SCALE_COMMON_H
#define SCALE_COMMON_H
/* Included by every object: each has its own copy of these lines. */
static inline int common_clamp(int v, int lo, int hi) {
  if (v < lo)
    return lo;
  if (v > hi)
    return hi;
  return v;
}

static inline unsigned common_hash(const char *s) {
  unsigned h = 2166136261u;
  while (*s) {
    h ^= (unsigned char)*s++;
    h *= 16777619u;
  }
  return h;
}

static inline int common_classify(int v) {
  switch (v % 5) {
    case 0: return 10;
    case 1: return 11;
    case 2:
    case 3: return 12;
    default: return -1;
  }
}

static inline int common_unused(int v) {
  int r = 0;
  for (int i = 0; i < v; ++i)
    r += i & 1 ? i : -i;
  return r;
}
#endif
"""

FAMILY_H = r"""#ifndef SCALE_FAMILY_{k}_H
#define SCALE_FAMILY_{k}_H
/* Shared by the objects whose number is {k} modulo {n}. */
static inline int family_{k}_step(int v) {{
  if (v & 1)
    return v * 3 + 1;
  return v / 2;
}}

static inline int family_{k}_walk(int v) {{
  int steps = 0;
  while (v > 1 && steps < 1000) {{
    v = family_{k}_step(v);
    ++steps;
  }}
  return steps;
}}
#endif
"""

TEMPLATES_HPP = r"""#ifndef SCALE_TEMPLATES_HPP
#define SCALE_TEMPLATES_HPP
// Instantiated by every C++ object with types of its own.
template <typename T>
T scale_max(T a, T b) {
  return a < b ? b : a;
}

template <typename T, int N>
struct ScaleRing {
  T items[N] = {};
  int head = 0;
  void push(T v) {
    items[head] = v;
    head = (head + 1) % N;
  }
  T sum() const {
    T s = T();
    for (int i = 0; i < N; ++i)
      s = s + items[i];
    return s;
  }
  bool full() const {
    for (int i = 0; i < N; ++i)
      if (items[i] == T())
        return false;
    return true;
  }
};
#endif
"""


def c_object(t):
    fam = t % FAMILIES
    i = f"{t:05d}"
    return f"""#include "common.h"
#include "family_{fam}.h"

static int obj{i}_table[16];

static int obj{i}_fill(int n) {{
  int s = 0;
  for (int k = 0; k < 16; ++k) {{
    obj{i}_table[k] = common_clamp(n * k - {t % 97}, 0, 1000);
    s += obj{i}_table[k];
  }}
  return s;
}}

static int obj{i}_choose(int v) {{
  switch (v & 7) {{
    case 0:
      return common_classify(v);
    case 1:
    case 2:
      return family_{fam}_walk(v + {t});
    case 3:
      return v > 100 ? v - 100 : v + 100;
    default:
      break;
  }}
  if (v > 50 && v < 60)
    return 1;
  return 0;
}}

static int obj{i}_never(int v) {{
  int r = 0;
  while (v-- > 0) {{
    if (v % 3 == 0)
      r += common_unused(v);
    else
      r -= v;
  }}
  return r;
}}

int obj{i}_unused_api(int v) {{ return obj{i}_never(v) + (int)common_hash("unused"); }}

int obj{i}_run(int n) {{
  int total = obj{i}_fill(n);
  for (int k = 0; k < n; ++k)
    total += obj{i}_choose(k);
  if (total < 0)
    total = obj{i}_never(n);
  return total + (int)(common_hash("obj{i}") & 7);
}}
"""


def cxx_object(t):
    fam = t % FAMILIES
    i = f"{t:05d}"
    return f"""#include "common.h"
#include "family_{fam}.h"
#include "templates.hpp"

namespace obj{i} {{
struct Point {{
  int x = 0, y = 0;
  Point operator+(const Point& o) const {{ return Point{{x + o.x, y + o.y}}; }}
  bool operator==(const Point& o) const {{ return x == o.x && y == o.y; }}
  bool operator<(const Point& o) const {{ return x < o.x || (x == o.x && y < o.y); }}
}};

static int work(int n) {{
  ScaleRing<int, 8> ints;
  ScaleRing<Point, {4 + t % 3}> points;
  for (int k = 0; k < n; ++k) {{
    ints.push(common_clamp(k, 0, 5));
    points.push(Point{{k, family_{fam}_step(k)}});
  }}
  Point m = scale_max(points.items[0], points.items[1]);
  int r = ints.sum() + points.sum().x + m.y + scale_max(n, {t % 13});
  if (ints.full() && !points.full())
    r += 1;
  return r + common_classify(r);
}}
}}  // namespace obj{i}

extern "C" int obj{i}_unused_api(int v) {{ return scale_max(v, 0) + (int)common_hash("never"); }}

extern "C" int obj{i}_run(int n) {{ return obj{i}::work(n); }}
"""


def is_cxx(i):
    return i % 4 == 3


def source_name(i):
    return f"src/d{i // PER_DIR:03d}/obj{i:05d}.{'cc' if is_cxx(i) else 'c'}"


def object_name(i):
    return f"obj/d{i // PER_DIR:03d}/obj{i:05d}"


def object_source(i):
    """Object i's source: its template's, with the template's names replaced
    by its own (each name the same length: 'obj' and five digits)."""
    t = i % PERIOD
    text = cxx_object(t) if is_cxx(t) else c_object(t)
    return text.replace(f"obj{t:05d}", f"obj{i:05d}")


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_project(n, root):
    """Sources of n objects; a Makefile that compiles the first PERIOD (the
    templates) and main, which calls them."""
    write_if_changed(os.path.join(root, "include/common.h"), COMMON_H)
    for k in range(FAMILIES):
        write_if_changed(os.path.join(root, f"include/family_{k}.h"), FAMILY_H.format(k=k, n=FAMILIES))
    write_if_changed(os.path.join(root, "include/templates.hpp"), TEMPLATES_HPP)
    for i in range(n):
        write_if_changed(os.path.join(root, source_name(i)), object_source(i))
    m = min(n, PERIOD)
    decls = "".join(f"int obj{i:05d}_run(int);\n" for i in range(m))
    calls = "".join(f"  total += obj{i:05d}_run(argc + {i % 7});\n" for i in range(m))
    write_if_changed(os.path.join(root, "src/main.c"),
                     f'#include <stdio.h>\n{decls}\nint main(int argc, char **argv) {{\n  long total = 0;\n  (void)argv;\n'
                     f'{calls}  printf("%ld\\n", total);\n  return 0;\n}}\n')
    objs = " ".join([object_name(i) + ".o" for i in range(m)] + ["obj/main.o"])
    mk = f"""# Generated by bench/scale/make_project.py: compiles the {m} template objects
CC ?= gcc-12
CXX ?= g++-12
FLAGS = --coverage -O0 -g -Iinclude
all: prog
obj/%.o: src/%.c
\t@mkdir -p $(@D)
\t$(CC) $(FLAGS) -c $< -o $@
obj/%.o: src/%.cc
\t@mkdir -p $(@D)
\t$(CXX) $(FLAGS) -c $< -o $@
prog: {objs}
\t$(CXX) --coverage -o $@ $^
"""
    write_if_changed(os.path.join(root, "Makefile"), mk)


def clone_objects(n, root):
    """The .gcno and .gcda of objects PERIOD..n-1: their template's bytes,
    with the template's names (source path, function names) replaced by the
    object's, of the same length. What the compiler would write for the
    object's source, but for the stamp and the checksums, which stay the
    template's (they agree between the two files, which is what readers check)."""
    cache = {}
    for i in range(PERIOD, n):
        t = i % PERIOD
        if t not in cache:
            cache[t] = tuple(open(os.path.join(root, object_name(t) + ext), "rb").read() for ext in (".gcno", ".gcda"))
        notes, data = cache[t]
        notes = notes.replace(source_name(t).encode(), source_name(i).encode())
        notes = notes.replace(f"obj{t:05d}".encode(), f"obj{i:05d}".encode())
        base = os.path.join(root, object_name(i))
        os.makedirs(os.path.dirname(base), exist_ok=True)
        for ext, content in ((".gcno", notes), (".gcda", data)):
            with open(base + ext + ".new", "wb") as f:
                f.write(content)
            os.replace(base + ext + ".new", base + ext)


def make_tracefile(megabytes, path):
    target = megabytes * 1024 * 1024
    written = 0
    lines_per_file = 400
    with open(path, "w") as out:
        j = 0
        while written < target:
            rec = [f"TN:\nSF:/synthetic/src/d{j // PER_DIR:03d}/file{j}.c\n"]
            fns = [(1 + 20 * k, f"file{j}_fn{k}") for k in range(lines_per_file // 20)]
            rec += [f"FN:{ln},{name}\n" for ln, name in fns]
            rec += [f"FNDA:{(j * 7 + k) % 5},{name}\n" for k, (ln, name) in enumerate(fns)]
            rec.append(f"FNF:{len(fns)}\nFNH:{sum(1 for k in range(len(fns)) if (j * 7 + k) % 5)}\n")
            brf = brh = 0
            for ln in range(3, lines_per_file, 10):
                for b in range(2):
                    c = (ln * 31 + b + j) % 4
                    rec.append(f"BRDA:{ln},0,{b},{c if c else '-' if ln % 3 else 0}\n")
                    brf += 1
                    brh += c > 0
            rec.append(f"BRF:{brf}\nBRH:{brh}\n")
            lh = 0
            for ln in range(2, lines_per_file):
                c = (ln * 13 + j) % 9
                rec.append(f"DA:{ln},{c * 1000 + ln}\n" if c else f"DA:{ln},0\n")
                lh += c > 0
            rec.append(f"LF:{lines_per_file - 2}\nLH:{lh}\nend_of_record\n")
            text = "".join(rec)
            out.write(text)
            written += len(text)
            j += 1
    return j


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--objects", type=int, help="number of objects (1..99999)")
    g.add_argument("--clone", type=int, metavar="N",
                   help="after make and a run of ./prog: the .gcno/.gcda of objects 48..N-1 from the templates'")
    g.add_argument("--tracefile", type=int, metavar="MB", help="write an lcov tracefile of about MB megabytes")
    ap.add_argument("out", help="project directory (--objects) or tracefile (--tracefile)")
    a = ap.parse_args()
    if a.objects is not None:
        if not 1 <= a.objects <= 99999:
            sys.exit("make_project.py: --objects must be 1..99999")
        make_project(a.objects, a.out)
    elif a.clone is not None:
        clone_objects(a.clone, a.out)
    else:
        files = make_tracefile(a.tracefile, a.out)
        print(f"{a.out}: {os.path.getsize(a.out)} bytes, {files} source files", file=sys.stderr)


if __name__ == "__main__":
    main()
