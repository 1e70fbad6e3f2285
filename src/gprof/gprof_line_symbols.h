#pragma once
// gprof's line symbols (binutils 2.40 corefile.c, core_create_line_syms),
// which it uses instead of functions with -l and -s: walking .text address
// by address, a new symbol wherever BFD's answer for the address (source
// file, line, function name) differs from the last symbol's; addresses BFD
// has no answer for (no debug information, line 0) start none. gprof then
// adds the function symbols; at one address the function wins.
//
// The answer only changes where a line-table row, a function's range or a
// unit's range starts or ends, so only those addresses are asked. The
// function is the innermost (smallest) subprogram or inlined subroutine
// holding the address, named by its linkage name, else its name (through
// DW_AT_abstract_origin and DW_AT_specification); the file and line are
// gprof_source_files.h's.
#include <string>
#include <vector>

#include "gprof/gprof_symbols.h"
#include "util/expected.h"

namespace covkit::trace {

// The program's line symbols merged with `functions` (its function
// symbols), by address as gprof_symbols.h orders them: function symbols
// keep is_func, line symbols have is_func false and the static-ness of the
// function holding them. Without debug information: `functions` as they are.
Expected<std::vector<GprofSymbol>> read_gprof_line_symbols(const std::string& path, const GprofSymbolTable& functions);

}  // namespace covkit::trace
