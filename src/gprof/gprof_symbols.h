#pragma once
// The functions gprof sees in a program: the ELF symbol table filtered and
// de-duplicated by gprof's rules (binutils 2.40, corefile.c/symtab.c), so
// that index numbers, cycles and ties come out as gprof prints them.
//
// Kept: global or weak symbols in code sections, and weak symbols anywhere
// that are not objects (gprof treats them as text); local symbols in code
// sections whose name is not empty, has no '$', and whose dotted suffixes are
// only ".N", ".clone.N" or ".constprop.N" (so "f.part.0" and "f.cold" are
// not functions to gprof). Symbols sharing an address: the global over the
// static, the function over the non-function, then the one whose name does
// not start with '_' (or has one '_' rather than two).
//
// Addresses are link-time addresses. glibc writes gmon.out with link-time
// addresses too (a PIE's pcs less its load address), and gprof 2.40 applies
// no offset of its own, so neither does covkit.
#include <cstdint>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::trace {

struct GprofSymbol {
  std::string name;  // as in the symbol table (mangled)
  uint64_t addr = 0;
  uint64_t end_addr = 0;  // last byte: the next symbol's address - 1; the last one ends with .text
  bool is_static = false;  // a local symbol
  bool is_func = true;     // STT_FUNC (or STT_GNU_IFUNC); calls to a non-function go to the function before it
  std::string file;        // source file of the symbol's address as BFD names it (gprof_source_files.h), "" when unknown
  int line = 0;            // and its line, 0 when unknown
};

struct GprofSymbolTable {
  std::vector<GprofSymbol> symbols;  // by address, one per address
  uint64_t text_vma = 0, text_size = 0;
  // The distinct source files in the order gprof meets them (the symbol
  // table's order): a file named in a symbol specification is the last met.
  std::vector<std::string> source_files;
};

// The table of the program at `path`. An Error (one line, no file name) when
// it is not ELF, has no .text section or no function symbols.
Expected<GprofSymbolTable> read_gprof_symbols(const std::string& path);

// Sorts candidates by address and keeps one per address by the rules above,
// then sets end addresses (the last one ends at text_end - 1). For tests and
// read_gprof_symbols.
void finalize_gprof_symbols(std::vector<GprofSymbol>& symbols, uint64_t text_end);

// Whether a local code symbol's name is one gprof accepts as a function.
bool gprof_static_name_ok(const std::string& name);
// The same on a name inside a string table ending at `end`: after a dotted
// suffix gprof's check runs on into the next name (a quirk kept, since it
// decides which functions exist).
bool gprof_static_name_ok(const char* name, const char* end);

// The symbol whose [addr, end_addr] holds `pc`, by gprof's binary search
// (which also answers for the last symbol beyond its end only as gprof does);
// -1 when none.
long gprof_symbol_at(const std::vector<GprofSymbol>& symbols, uint64_t pc);

}  // namespace covkit::trace
