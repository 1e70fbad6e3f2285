#!/usr/bin/env python3
"""One definition per type name: a struct or class declared at namespace
scope (outside an anonymous namespace) in two files of src/ with the same
namespace is two definitions of one entity, an ODR violation that compiles
and links and then corrupts memory (sample::FunctionSymbol was defined by
binary_image.h and elf_module_file.h; AddressSanitizer found it as a heap
overflow). Prints each clash as NAME: FILES, exits 1 when there is any.

  check_type_names.py SRC_DIR      check a tree
  check_type_names.py --self-test  check that a clash is found
"""
import os
import re
import sys
import tempfile

NAMESPACE = re.compile(r'^namespace ([\w:]+) \{')
ANONYMOUS = re.compile(r'^namespace \{')
CLOSE = re.compile(r'^\}\s*//\s*namespace')
TYPE = re.compile(r"^(?:struct|class|union) (\w+)\b(?!::)[^;]*$")


def definitions(path):
    """(qualified name) for every type defined at namespace scope, outside anonymous namespaces."""
    stack, out = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if NAMESPACE.match(line):
                stack.append(NAMESPACE.match(line).group(1))
            elif ANONYMOUS.match(line):
                stack.append(None)
            elif CLOSE.match(line) and stack:
                stack.pop()
            else:
                m = TYPE.match(line)
                if m and None not in stack and ("{" in line or line.rstrip().endswith((":", "final"))):
                    out.append("::".join(stack + [m.group(1)]))
    return out


def clashes(src):
    where = {}
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if name.endswith((".h", ".cc")):
                path = os.path.join(folder, name)
                for qualified in definitions(path):
                    where.setdefault(qualified, set()).add(os.path.relpath(path, src))
    return {name: sorted(files) for name, files in where.items() if len(files) > 1}


def self_test():
    with tempfile.TemporaryDirectory() as d:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        write("s/a.h", "namespace x::s {\n\nstruct Sym {\n  int a;\n};\n\n}  // namespace x::s\n")
        write("s/b.h", "namespace x::s {\n\nstruct Sym {\n  long b;\n};\nstruct Other;\n\n}  // namespace x::s\n")
        write("s/c.cc", "namespace x::s {\nnamespace {\nstruct Sym {\n};\n}  // namespace\n}  // namespace x::s\n")
        write("t/d.h", "namespace x::t {\nstruct Sym {\n};\n}  // namespace x::t\n")
        got = clashes(d)
        if got != {"x::s::Sym": ["s/a.h", "s/b.h"]}:
            print("self-test failed: got %r" % got)
            return 1
    print("self-test: the planted clash was found; anonymous namespaces, other namespaces and declarations were not")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = clashes(sys.argv[1])
    for name, files in sorted(found.items()):
        print("%s: defined in %s (one definition per name: rename one or share a header)" % (name, ", ".join(files)))
    if found:
        return 1
    print("no type is defined twice in one namespace")
    return 0


if __name__ == "__main__":
    sys.exit(main())
