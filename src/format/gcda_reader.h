#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "format/gcda.h"
#include "format/gcno_reader.h"  // HeaderError

namespace covkit::format {

using DataResult = Expected<DataFile, HeaderError>;

// The notes' functions' numbers of arc counters, looked up by ident: sorted
// by ident, and of equal idents (a hostile notes file) the first in the
// notes counts. A sorted array rather than a hash map: a node allocated per
// function was ~1.5% of `covkit gcov`'s instructions on a real object.
class ArcCounts {
 public:
  // `counts[i]`: the i-th function's ident and number of arc counters.
  explicit ArcCounts(std::vector<std::pair<uint32_t, size_t>> counts);
  // The number of arc counters of the function `ident`, or nullptr when
  // the notes have no such function.
  const size_t* find(uint32_t ident) const;

 private:
  struct Entry {
    uint32_t ident;
    uint32_t order;  // in the notes: the first of equal idents wins
    size_t arcs;
  };
  std::vector<Entry> entries_;
};

// How much of a .gcda to decode. A reader that only counts (gcov, reports)
// knows from the notes file which functions have how many arc counters and
// needs no other counters: a huge or hostile file then costs no memory.
struct DataReadLimits {
  // When set: arc counters are decoded only for a function (by ident) that
  // has exactly that many; other arc records keep their length only, which
  // is all gcov looks at before it calls them a profile mismatch.
  const ArcCounts* arcs_by_function = nullptr;
  // Decode value-profile counters and unknown records (kept for rewriting
  // the file); without them those records keep only their tag and length.
  bool everything = true;
};

// Parses a whole .gcda image. Never reads outside `data`.
DataResult read_data(std::span<const uint8_t> data, const DataReadLimits& limits = {});

}  // namespace covkit::format
