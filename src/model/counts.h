#pragma once
// Counter arithmetic that wraps instead of overflowing: hostile or racy data
// files can hold any 64-bit value, and gcov's results on them are the
// two's-complement ones.
#include <cstdint>

namespace covkit::model {

inline int64_t add_counts(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t sub_counts(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }

}  // namespace covkit::model
