#pragma once
// The program `covkit trace record` runs: finding it on PATH, and telling
// from its symbol tables whether it was built with -finstrument-functions or
// -pg (mcount, or __fentry__ with -mfentry).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "util/expected.h"

namespace covkit::trace {

struct ProgramInfo {
  bool elf = false;               // libelf could read it as an ELF file
  bool references_hooks = false;  // __cyg_profile_func_enter in .symtab or .dynsym (undefined or defined)
  bool defines_hooks = false;     // ... defined there: a tracing runtime is linked in
  bool references_pg_hooks = false;  // mcount, _mcount or __fentry__ (-pg [-mfentry]), undefined or defined
  bool defines_pg_hooks = false;     // ... defined there (a runtime linked in, or a static glibc's)
  bool dynamic = false;           // has an interpreter (PT_INTERP), so LD_PRELOAD applies
  std::string interpreter;        // PT_INTERP's path (the dynamic loader), "" when none
  bool patchable = false;         // has __patchable_function_entries (-fpatchable-function-entry)
};

// Reads the symbol tables of the ELF file at `path` (nothing is run).
ProgramInfo inspect_program(const std::string& path);

// Why a program cannot be run, in a shell's words and with its exit status:
// "command not found" or "No such file or directory" (127), "Is a
// directory" or "Permission denied" (126, found but not runnable).
struct NotRunnable : Error {
  int status = 127;
  NotRunnable(std::string why, int s) : Error(std::move(why)), status(s) {}
};

// `prog` as execvp would find it: as given when it holds a '/', else the
// first executable regular file of that name in $PATH.
Expected<std::string, NotRunnable> find_program(const std::string& prog);

}  // namespace covkit::trace
