#pragma once
// The functions of a module whose symbol table was stripped: the symbols
// that remain (.dynsym's exported ones) first, then every .eh_frame FDE
// that no symbol covers, named fn_<hex address> (as Ghidra's FUN_<address>
// and IDA's sub_<address> name code they find without a symbol).
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "format/eh_frame.h"
#include "sample/function_symbol.h"

namespace covkit::sample {

// "fn_401136": lower-case hex of the ELF virtual address, no 0x.
std::string unnamed_function_name(uint64_t vaddr);

// `symbols` (any order) plus the FDE ranges that overlap no symbol and no
// `excluded` [begin, end) range (the PLT sections: the linker gives them
// FDEs, but their stubs are named through the GOT); an FDE overlapping an
// earlier kept one is left out, so the result is disjoint where the FDEs
// are. Sorted by address. `added` (optional) counts the FDE functions.
std::vector<FunctionSymbol> add_fde_functions(std::vector<FunctionSymbol> symbols,
                                              std::span<const format::FdeRange> fdes,
                                              std::span<const std::pair<uint64_t, uint64_t>> excluded,
                                              size_t* added = nullptr);

}  // namespace covkit::sample
