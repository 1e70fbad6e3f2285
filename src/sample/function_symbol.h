#pragma once
// A function as an ELF symbol table defines it: one type (format/elf_symbols.h)
// for the analysis (binary_image), the breakpoint recorder (elf_module_file)
// and covkit trace record's filters. Two structs of one name in one namespace
// were once an ODR violation that AddressSanitizer caught as a heap overflow.
#include "format/elf_symbols.h"

namespace covkit::sample {

using format::FunctionSymbol;

}  // namespace covkit::sample
