#pragma once
#include <cstdint>
#include <span>
#include <unordered_map>

#include "format/gcda.h"
#include "format/gcno_reader.h"  // HeaderError

namespace covkit::format {

using DataResult = Expected<DataFile, HeaderError>;

// How much of a .gcda to decode. A reader that only counts (gcov, reports)
// knows from the notes file which functions have how many arc counters and
// needs no other counters: a huge or hostile file then costs no memory.
struct DataReadLimits {
  // When set: arc counters are decoded only for a function (by ident) that
  // has exactly that many; other arc records keep their length only, which
  // is all gcov looks at before it calls them a profile mismatch.
  const std::unordered_map<uint32_t, size_t>* arcs_by_function = nullptr;
  // Decode value-profile counters and unknown records (kept for rewriting
  // the file); without them those records keep only their tag and length.
  bool everything = true;
};

// Parses a whole .gcda image. Never reads outside `data`.
DataResult read_data(std::span<const uint8_t> data, const DataReadLimits& limits = {});

}  // namespace covkit::format
