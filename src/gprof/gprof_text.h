#pragma once
// gprof's text output of a GprofProfile, byte for byte what `gprof -b`
// prints (binutils 2.40, GNU style, or BSD style with -T): the flat profile, the call graph and
// its index by function name. The explanations gprof prints without -b are
// never printed. Names are demangled as gprof does (bfd_demangle).
#include <string>

#include "gprof/gprof_profile.h"

namespace covkit::trace {

struct GprofTextOptions {
  bool flat = true, graph = true;
  bool ignore_zeros = true;  // gprof's default; -z shows functions never called and never sampled
  bool bsd = false;          // -T: BSD layout (call graph first, wider columns, times in ms)
  int width = 80;            // -w: the index's line width (three columns)
};

std::string gprof_text(GprofProfile& profile, const GprofTextOptions& options);

// gprof's display name: the demangled name (bfd_demangle with parameters),
// any leading '.'/'$' and '@suffix' kept around it; the name itself when it
// is not mangled.
std::string gprof_display_name(const std::string& name);

// The basic-block count records (address, count, function), one per line
// after a heading; "" when there are none. gprof reads them only with -l.
std::string gprof_block_counts_text(const GprofProfile& profile, const GprofSymbolTable& symbols);

}  // namespace covkit::trace
