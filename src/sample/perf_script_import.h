#pragma once
// Hardware branch stacks recorded by perf, imported as a SampleRecording
// (mode "perf"), so that the analysis treats real LBR/BRS/BRBE vectors and
// the single-step emulation alike. Input: the text of
//
//   perf script -F pid,tid,ip,brstack
//
// one sample per line: "PID/TID IP 0xFROM/0xTO/P/-/-/0 ..." with the branch
// entries NEWEST first (perf's order; SampleRecording keeps them oldest
// first). The fields after FROM/TO (mispredicted, in-transaction, abort,
// cycles, and any newer perf adds) are ignored. Addresses are absolute, so
// the mappings come from the binaries given: their executable segments at
// their link-time addresses, which is right for non-PIE programs (perf
// script prints no load addresses).
#include <string>
#include <string_view>
#include <vector>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::sample {

// `binaries`: ELF files whose executable segments become every image's
// mappings. Errors name the line.
Expected<format::SampleRecording> import_perf_script(std::string_view text, const std::vector<std::string>& binaries);

}  // namespace covkit::sample
