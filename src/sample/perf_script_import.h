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
// cycles, and any newer perf adds) are ignored, as is a file name in
// parentheses after an address (-F ...,dso). brstack's addresses are
// absolute, so the mappings come from the binaries given: their executable
// segments at their link-time addresses, which is right for non-PIE
// programs (perf script prints no load addresses); brstackoff's offsets
// (-F pid,tid,ip,brstackoff,dso) serve PIE programs and shared libraries.
#include <string>
#include <string_view>
#include <vector>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::sample {

// How the branch entries give their addresses.
enum class PerfAddresses {
  absolute,     // brstack: the addresses the program ran at
  dso_offsets,  // brstackoff: offsets in the file named after each address
};

// `binaries`: ELF files whose executable segments become every image's
// mappings. With PerfAddresses::dso_offsets every entry must name its file
// (perf script -F ...,brstackoff,dso: "0xOFF(/path/file)/0xOFF(/path/file)/...");
// an offset in one of `binaries` (by path, else by file name) becomes the
// address that file's mappings hold it at, one in another file an address
// no mapping holds. perf's offsets are file offsets for shared objects and
// PIE programs (ET_DYN), link addresses for ET_EXEC programs. The sample's
// IP is absolute: kept only where it is in an ET_EXEC binary. Errors name
// the line.
Expected<format::SampleRecording> import_perf_script(std::string_view text, const std::vector<std::string>& binaries,
                                                     PerfAddresses addresses = PerfAddresses::absolute);

}  // namespace covkit::sample
