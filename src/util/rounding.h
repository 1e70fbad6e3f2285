#pragma once
// Arithmetic that would otherwise call the maths library (libm): covkit is
// linked without it, so that no command pays for loading it at start-up
// (bench/startup_vs_gcov.py); the few commands that need a function only
// libm has load it themselves (sample/coverage_compare).
#include <cmath>
#include <cstdint>

namespace covkit::util {

// std::llround's rounding (halves away from zero) of 0 <= v < 2^64, as an
// unsigned count: exact, since v - trunc(v) is. (llround itself overflows
// above 2^63.) Negative values and NaN give 0, values from 2^64 on the largest.
inline uint64_t round_to_count(double v) {
  if (!(v > 0)) return 0;
  if (v >= 18446744073709551616.0) return UINT64_MAX;
  const uint64_t whole = uint64_t(v);
  return v - double(whole) >= 0.5 ? whole + 1 : whole;
}

// std::fmod(v, 1.0): the fraction of v, with v's sign; exact.
inline double fraction(double v) {
  // From 2^52 on, every double is a whole number.
  if (!(v < 4503599627370496.0 && v > -4503599627370496.0)) return v == v ? v * 0.0 : v;
  const double f = v - double(int64_t(v));
  return f == 0 ? std::copysign(0.0, v) : f;  // fmod(-1, 1) is -0 (an instruction, no call)
}

}  // namespace covkit::util
