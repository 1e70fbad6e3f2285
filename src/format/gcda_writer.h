#pragma once
// Serialises a DataFile in the layout of its version (byte order native unless
// `swapped`), as libgcov would write it. Used for merging and live dumps.
#include <cstdint>
#include <vector>

#include "format/gcda.h"

namespace covkit::format {

std::vector<uint8_t> write_data(const DataFile& file);

// Marks counter records whose values are all zero the way GCC >= 11 stores them.
void compact_zero_counters(DataFile& file);

}  // namespace covkit::format
