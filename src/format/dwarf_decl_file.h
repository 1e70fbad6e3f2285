#pragma once
// The source file a DIE's DW_AT_decl_file names, for every DWARF version.

#include <elfutils/libdw.h>

namespace covkit::format {

// dwarf_decl_file() of libdw 0.188 (Debian 12) answers NULL for file
// index 0, which meant "no file" up to DWARF 4 but is the unit's primary
// source file in DWARF 5: clang's default, so every function clang
// compiles in the main file would lose its file. This looks index 0 up in
// the unit's file table when the unit is DWARF 5 or later.
const char* declared_file(Dwarf_Die* die);

}  // namespace covkit::format
