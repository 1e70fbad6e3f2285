#pragma once
// What the breakpoint recorder needs from a module's file on disk: where its
// segments load (to turn the plan's ELF addresses into the process's), its
// build-id (to name it in the recording) and a few symbols (function
// entries for the fallback plan, the dynamic linker's _dl_debug_state).
// Read with libelf; the file is the one /proc/PID/maps names.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "live/elf_image.h"
#include "sample/function_symbol.h"
#include "util/expected.h"

namespace covkit::sample {

struct ElfModuleFile {
  uint16_t type = 0;                     // ET_EXEC or ET_DYN
  std::vector<live::LoadSegment> loads;  // PT_LOAD, in file order
  std::string build_id;                  // lower-case hex; empty when the file has none
};

Expected<ElfModuleFile> read_elf_module(const std::string& path);

// The build-id of the file at `path` as it is now; "" when it has none or
// cannot be read (the recorders name mappings with it).
std::string file_build_id(const std::string& path);

// The file's functions and symbols (format/elf_symbols.h), as the recorder
// has always named them.
using format::function_entries;
using format::function_symbols;
using format::symbol_address;

}  // namespace covkit::sample
