#pragma once
// gprof -s: the gmon.sum file, the gmon.out files added up into one that
// gprof (and covkit) read as they read the inputs (binutils 2.40 gmon_io.c,
// gmon_out_write). Its records, in gprof's order:
//  - the header: "gmon", version 1, 12 spare bytes (zero here; gprof writes
//    whatever its stack held);
//  - each histogram range once, its buckets added up (16 bits each, as the
//    format holds them), with the first file's rate and dimension;
//  - the arcs tallied on gprof's -s symbols, its line symbols
//    (gprof_line_symbols.h): one record per (line symbol of the call site,
//    function called), the callers by address, each caller's callees
//    newest first, with the symbols' addresses and the summed counts.
#include <string>
#include <vector>

#include "gprof/gprof_profile.h"

namespace covkit::trace {

// The bytes of gmon.sum; `profile` built from `inputs`, `symbols` the line
// symbols. Basic-block records are not written (callers refuse them).
std::string gprof_sum_file(const GprofProfile& profile, const std::vector<GprofSymbol>& symbols,
                           const std::vector<GprofInput>& inputs);

}  // namespace covkit::trace
