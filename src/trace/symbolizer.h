#pragma once
// Function names and source locations for traced addresses, offline: ELF
// symbol tables and DWARF line tables through elfutils (libdw/libelf), with
// the load bias of each module subtracted (PIE, shared libraries, dlopen).
// One lookup per distinct address, cached; never a subprocess.
#include <cstdint>
#include <memory>
#include <string>

#include "format/trace_reader.h"

namespace covkit::trace {

struct SymbolInfo {
  std::string name;       // demangled ("0x7f12... (libfoo.so)" when unknown)
  std::string mangled;    // as in the symbol table ("" when unknown)
  std::string module;     // path of the module
  std::string file;       // source file ("" when no line information)
  uint32_t line = 0;
  bool known = false;     // found in a symbol table
};

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The function at absolute `address` in `process` at counter time `when`.
  const SymbolInfo& lookup(const format::TraceProcess& process, uint64_t address, uint64_t when);

 private:
  const SymbolInfo& library_call(const format::TraceProcess& process, uint64_t stub,
                                 const format::TraceProcess::LibraryCall& call, uint64_t when);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace covkit::trace
