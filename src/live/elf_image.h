#pragma once
// The little of ELF that finding libgcov's records needs: where a module's
// segments load (program headers, read from the process itself, so they are
// right even when the file on disk was rebuilt since) and the value of a few
// symbols (from the file's .symtab, or its .dynsym when it is stripped).
// ELF64 in the machine's own byte order only; everything is bounds-checked.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::live {

struct LoadSegment {
  uint64_t vaddr = 0, memsz = 0, offset = 0;
  bool writable = false, executable = false;
};

struct ElfLoadInfo {
  uint16_t type = 0;  // ET_EXEC or ET_DYN
  std::vector<LoadSegment> loads;
};

// `head` holds the file's first bytes (at least the ELF header and the
// program headers); nullopt-like error when it is no ELF64 of this machine.
Expected<ElfLoadInfo> parse_load_info(std::span<const uint8_t> head);
// Where the program headers end (so a caller knows how much to read).
Expected<uint64_t> program_headers_end(std::span<const uint8_t> ehdr);

struct SymbolTable { bool present = false; std::vector<std::pair<std::string, uint64_t>> found; };
// Looks up `names` (defined symbols) in the section .symtab (`dynamic`
// false) or .dynsym (true) of a whole ELF file.
Expected<SymbolTable> find_symbols(std::span<const uint8_t> file, bool dynamic,
                                   const std::vector<std::string_view>& names);
std::optional<uint64_t> symbol_value(const SymbolTable& table, std::string_view name);

}  // namespace covkit::live
