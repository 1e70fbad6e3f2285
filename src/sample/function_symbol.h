#pragma once
// A function as an ELF symbol table defines it. One type for the analysis
// (binary_image) and the breakpoint recorder (elf_module_file): two structs
// of one name in one namespace were an ODR violation that AddressSanitizer
// caught as a heap overflow.
#include <cstdint>
#include <string>

namespace covkit::sample {

struct FunctionSymbol {
  std::string name;  // as the symbol table spells it (mangled); gcc's foo.cold is its own symbol
  uint64_t address = 0, size = 0;  // ELF virtual address (file-relative for PIE)
};

}  // namespace covkit::sample
