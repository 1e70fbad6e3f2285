#pragma once
// Counter arithmetic that wraps instead of overflowing: hostile or racy data
// files can hold any 64-bit value, and gcov's results on them are the
// two's-complement ones.
#include <cstdint>

namespace covkit::model {

inline int64_t add_counts(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
inline int64_t sub_counts(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }

// Adding report counts (never negative) saturates: a sum beyond 2^63-1 stays
// there instead of turning negative and unreadable in the output.
inline int64_t add_report_counts(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// llvm-cov's counts are unsigned: in a signed field a count beyond 2^63-1
// saturates there rather than turning negative.
inline int64_t saturated_count(uint64_t count) { return count > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(count); }

}  // namespace covkit::model
