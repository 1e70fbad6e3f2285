#pragma once
// The .profraw that a clang-instrumented module's own profile runtime
// (__llvm_profile_write_file) would write at this instant, built from the
// module's memory: the header, the GNU build ids, the raw __llvm_prf_data
// section, the counters (__llvm_prf_cnts), the names (__llvm_prf_names) and
// the value profile records (indirect call targets, memory operation
// sizes) the runtime keeps in lists beside the records. Raw versions 7
// (clang 13) and 8 (clang 14 to 16) in the machine's byte order; the
// runtime's continuous mode (%c) is left alone (its counters are the file).
//
// Everything read from the process is validated first (sizes, every
// record's counters inside the counters section, value lists bounded), so a
// hostile process gets a one-line error, never a file that readers choke on.
#include <cstdint>
#include <span>
#include <vector>

#include "live/memory_source.h"
#include "util/expected.h"

namespace covkit::live {

// Where one module's profile lives in the process (absolute addresses).
struct ProfileSections {
  uint64_t version_word = 0;  // __llvm_profile_raw_version: version | variant flags
  uint64_t data = 0, data_size = 0;          // __llvm_prf_data
  uint64_t counters = 0, counters_size = 0;  // __llvm_prf_cnts
  uint64_t names = 0, names_size = 0;        // __llvm_prf_names
  std::vector<std::vector<uint8_t>> build_ids;  // the module's GNU build ids, in note order
};

inline constexpr uint64_t kProfileRecordSize = 48;  // a 64-bit __llvm_profile_data

// Sizes, version and bounds checked (before any stop): `bounds` are the
// module's ranges; counters must be writable (a reset writes them).
Expected<void> check_profile_sections(const ProfileSections& s, const ModuleBounds& bounds);

struct ProfrawImage {
  std::vector<uint8_t> bytes;
  size_t records = 0;
  size_t counters = 0;
  size_t value_sites = 0;
};

// The file's bytes, every piece read through `memory` (in a stop, for one
// instant). check_profile_sections must have passed.
Expected<ProfrawImage> build_profraw(const ProfileSections& s, const MemorySource& memory);

// The counters a reset zeroes: [address, address + size).
inline std::pair<uint64_t, uint64_t> counter_span(const ProfileSections& s) { return {s.counters, s.counters_size}; }

}  // namespace covkit::live
