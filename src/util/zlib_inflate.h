#pragma once
// One zlib stream (RFC 1950) inflated in memory to exactly the size its
// writer recorded, as clang's compressed profile names and coverage file
// lists are stored. Hostile sizes are refused before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "util/expected.h"

namespace covkit::util {

// The inflated bytes, or why not ("not a zlib stream", "inflates to 12
// bytes, not the 40 its header says", "claims 9 GB from 20 bytes").
Expected<std::string> zlib_inflate_exact(std::span<const uint8_t> compressed, uint64_t expected_size);

}  // namespace covkit::util
