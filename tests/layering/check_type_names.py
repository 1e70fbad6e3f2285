#!/usr/bin/env python3
"""One definition per type name: a struct or class declared at namespace
scope (outside an anonymous namespace) in two files of src/ with the same
namespace is two definitions of one entity, an ODR violation that compiles
and links and then corrupts memory (sample::FunctionSymbol was defined by
binary_image.h and elf_module_file.h; AddressSanitizer found it as a heap
overflow). Names private to a file (types and constexpr constants in an
anonymous namespace of a .cc file) must be unique within its folder: the
folder's files are compiled in batches (CMake's unity build), where two such
names are one redefinition. Prints each clash as NAME: FILES, exits 1 when
there is any.

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
CONSTANT = re.compile(r"^(?:static )?constexpr [\w:<>, ]+?[ *&]+(\w+)(?:\[\w*\])? =")


def definitions(path):
    """(qualified name, private) for every type defined at namespace scope and
    every constexpr constant of an anonymous namespace; private: inside one."""
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
                private = None in stack
                named = [n for n in stack if n]
                m = TYPE.match(line)
                if m and ("{" in line or line.rstrip().endswith((":", "final"))):
                    out.append(("::".join(named + [m.group(1)]), private))
                m = CONSTANT.match(line)
                if m and private:
                    out.append(("::".join(named + [m.group(1)]), True))
    return out


def clashes(src):
    where = {}
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if name.endswith((".h", ".cc")):
                path = os.path.join(folder, name)
                for qualified, private in definitions(path):
                    if private and not name.endswith(".cc"):
                        continue
                    # A private name is one per folder (a unity batch), a public one per tree.
                    key = "%s (private to files of %s/)" % (qualified, os.path.relpath(folder, src)) if private else qualified
                    where.setdefault(key, set()).add(os.path.relpath(path, src))
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
        write("s/e.cc", "namespace x::s {\nnamespace {\nstruct Sym {\n};\nconstexpr const char* kName = \"e\";\n}  // namespace\n}  // namespace x::s\n")
        write("s/f.cc", "namespace x::s {\nnamespace {\nconstexpr std::string_view kName = \"f\";\nconstexpr int kOther = 1;\n}  // namespace\n}  // namespace x::s\n")
        write("t/g.cc", "namespace x::s {\nnamespace {\nstruct Sym {\n};\nconstexpr int kOther = 2;\n}  // namespace\n}  // namespace x::s\n")
        got = clashes(d)
        want = {"x::s::Sym": ["s/a.h", "s/b.h"],
                "x::s::Sym (private to files of s/)": ["s/c.cc", "s/e.cc"],
                "x::s::kName (private to files of s/)": ["s/e.cc", "s/f.cc"]}
        if got != want:
            print("self-test failed: got %r" % got)
            return 1
    print("self-test: the planted clashes were found (public types in a tree, private names in a folder); "
          "private names in other folders, other namespaces and declarations were not")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = clashes(sys.argv[1])
    for name, files in sorted(found.items()):
        print("%s: defined in %s (one definition per name: rename one or share it)" % (name, ", ".join(files)))
    if found:
        return 1
    print("no type is defined twice in one namespace, no private name twice in one folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
