#pragma once
// A freestanding target's coverage stream: what a firmware built with GCC's
// -fprofile-info-section sends through a callback (UART, RAM buffer,
// semihosting) instead of writing .gcda files. GCC 13's format, which
// `gcov-tool merge-stream` reads: for each translation unit, a "gcfn"
// header naming the .gcda file (__gcov_filename_to_gcfn) followed by the
// file's bytes (__gcov_info_to_gcda), in the target's byte order:
//
//   u32 0x6763666e ("gcfn")   u32 version   u32 n   n bytes: the name, NUL included
//   u32 0x67636461 ("gcda")   u32 version   u32 stamp   u32 checksum
//   records (function, counters) ...         u32 0
//
// Unlike a file libgcov writes, the data carries no object summary: the
// target does not know the program's other files, nor earlier runs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/gcda.h"

namespace covkit::format {

inline constexpr uint32_t kFilenameMagic = 0x6763666e;  // "gcfn"

// One translation unit's data as the stream carries it.
struct StreamEntry {
  std::string filename;    // the .gcda path the object was compiled for (bytes as sent)
  size_t offset = 0;       // of the "gcfn" word in the stream
  size_t data_offset = 0;  // of the "gcda" word in the stream
  DataFile data;           // offsets in its records are relative to data_offset
};

struct GcovStream {
  std::vector<StreamEntry> entries;  // in stream order
};

}  // namespace covkit::format
