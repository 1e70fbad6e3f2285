#pragma once
// What `covkit trace record` needs besides running the program: finding it
// on PATH, telling whether it was built with -finstrument-functions, and
// reading durations such as 10us.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace covkit::trace {

struct ProgramInfo {
  bool elf = false;               // libelf could read it as an ELF file
  bool references_hooks = false;  // __cyg_profile_func_enter in .symtab or .dynsym (undefined or defined)
  bool defines_hooks = false;     // ... defined there: a tracing runtime is linked in
  bool dynamic = false;           // has an interpreter (PT_INTERP), so LD_PRELOAD applies
};

// Reads the symbol tables of the ELF file at `path` (nothing is run).
ProgramInfo inspect_program(const std::string& path);

// `prog` as execvp would find it: as given when it holds a '/', else the
// first executable regular file of that name in $PATH.
std::optional<std::string> find_program(const std::string& prog);

// "500ns", "10us", "2ms", "1.5s", or plain nanoseconds -> ns.
std::optional<uint64_t> parse_duration_ns(std::string_view text);

}  // namespace covkit::trace
