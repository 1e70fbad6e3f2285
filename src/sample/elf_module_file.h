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

// The functions the file defines, each as the symbol table names it:
// STT_FUNC symbols of nonzero size in executable sections (.symtab, or
// .dynsym when stripped), sorted by address (aliases each listed).
Expected<std::vector<FunctionSymbol>> function_symbols(const std::string& path);

// Entries of the functions the file defines: STT_FUNC symbols of nonzero
// size in executable sections (.symtab, or .dynsym when stripped), sorted,
// aliases once. ELF virtual addresses.
Expected<std::vector<uint64_t>> function_entries(const std::string& path);

// The value of the defined symbol `name` (.symtab first, then .dynsym).
Expected<std::optional<uint64_t>> symbol_address(const std::string& path, std::string_view name);

}  // namespace covkit::sample
