#pragma once
// gmon.out, the profile a program built with `gcc -pg` writes at exit
// (glibc's gmon; layout in <sys/gmon_out.h>): a 20-byte header ("gmon",
// version, 12 spare bytes), then tagged records until the end of the file:
//   0  PC histogram: low pc, high pc (pointer-sized), bucket count, profiling
//      rate (u32), dimension (15 bytes, "seconds"), its abbreviation ('s'),
//      then one u16 count per bucket
//   1  call-graph arc: caller's pc, callee's pc (pointer-sized), count (u32)
//   2  basic-block counts: block count (u32), then (address, count) pairs,
//      both pointer-sized
// Records only, no meaning: trace/gprof_profile gives them one. Little-endian
// 64-bit files only (x86-64, what glibc writes here).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/expected.h"

namespace covkit::format {

struct GmonHistogram {
  // [low_pc, high_pc), link-time addresses. As in gprof, a high pc below
  // the low pc, or no buckets, is read as written: what it means is
  // trace/gprof_profile's business (gprof makes it a histogram that
  // credits no function).
  uint64_t low_pc = 0, high_pc = 0;
  uint32_t prof_rate = 0;            // samples per second
  std::string dimension;             // up to its first NUL ("seconds")
  char dimension_abbrev = 0;         // 's'
  std::vector<uint16_t> buckets;     // equal slices of [low_pc, high_pc)
  uint64_t offset = 0;               // of the record's tag byte in the file
};

struct GmonArc {
  uint64_t from_pc = 0, self_pc = 0;  // a call site in the caller, the callee's entry (mcount's return address)
  uint32_t count = 0;
};

struct GmonBlockCount {
  uint64_t address = 0, count = 0;
};

struct GmonFile {
  uint32_t version = 0;
  std::vector<GmonHistogram> histograms;  // in file order
  std::vector<GmonArc> arcs;              // in file order (gprof's lists depend on it)
  std::vector<GmonBlockCount> block_counts;
};

inline constexpr size_t kGmonHeaderSize = 20;

// True when `bytes` starts with the "gmon" magic.
bool has_gmon_magic(std::span<const uint8_t> bytes);

// The records of one file. A truncated record, an unknown tag, a wrong magic
// or an unsupported version gives an Error whose offset is where the fault is
// (the caller names the file). Nothing is allocated beyond what the file holds.
Expected<GmonFile> parse_gmon(std::span<const uint8_t> bytes);

// read_file + parse_gmon; the Error's message is complete and names no file.
Expected<GmonFile> read_gmon(const std::string& path);

}  // namespace covkit::format
