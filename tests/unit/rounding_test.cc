// util/rounding: llround's and fmod's results without libm (covkit is linked
// without it, for start-up), checked against libm itself, which this test
// links, on the values where rounding is delicate.
#include "util/rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace covkit::util {
namespace rounding_test {

TEST(RoundToCount, IsLlroundWhereLlroundIsDefined) {
  const double cases[] = {0.0, 0.4, 0.5, 0.6, 1.5, 2.5, 2.4999999999999996, 0.49999999999999994,
                          4503599627370495.5, 4503599627370496.0, 9007199254740993.0, 1e15 + 0.5,
                          123456.789, 9.2e18};
  for (double v : cases) EXPECT_EQ(round_to_count(v), uint64_t(std::llround(v))) << v;
  std::mt19937_64 random(36);
  for (int i = 0; i < 100000; ++i) {
    const double v = std::ldexp(double(random() >> 11), int(random() % 70) - 60);
    ASSERT_EQ(round_to_count(v), uint64_t(std::llround(v))) << v;
  }
}

TEST(RoundToCount, ClampsWhatLlroundCannotHold) {
  EXPECT_EQ(round_to_count(-0.7), 0u);
  EXPECT_EQ(round_to_count(std::numeric_limits<double>::quiet_NaN()), 0u);
  EXPECT_EQ(round_to_count(1.5e19), 15000000000000000000u);  // above 2^63: llround overflows
  EXPECT_EQ(round_to_count(1e30), UINT64_MAX);
}

TEST(Fraction, IsFmodByOne) {
  const double cases[] = {0.0, -0.0, 0.25, -0.25, 1.0, -1.0, -3.0, 7.75, -7.75, 1e17, -1e17, 4503599627370495.5,
                          std::numeric_limits<double>::infinity()};
  for (double v : cases) {
    const double want = std::fmod(v, 1.0), got = fraction(v);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << v;
    } else {
      EXPECT_EQ(got, want) << v;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << v;
    }
  }
  std::mt19937_64 random(37);
  for (int i = 0; i < 100000; ++i) {
    const double v = std::ldexp(double(int64_t(random()) >> 11), int(random() % 60) - 50);
    ASSERT_EQ(fraction(v), std::fmod(v, 1.0)) << v;
  }
}

}  // namespace rounding_test
}  // namespace covkit::util
