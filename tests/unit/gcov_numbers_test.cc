// report/gcov_numbers: percentages and counts exactly as gcov prints them.
// Expectations checked against gcov-12 -b / -H output (e.g. a branch taken
// 1 time in 200 prints "0%", 1 in 1000 prints "1%", 999 in 1000 "100%").
#include "report/gcov/gcov_numbers.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

namespace covkit::report {
namespace gcov_numbers_test {

TEST(FormatGcov, RoundsLikePrintf) {
  EXPECT_EQ(format_gcov(999, 1000, 0, false), "100%");  // 99.9 rounds up: never "complete" in truth
  EXPECT_EQ(format_gcov(199, 200, 0, false), "100%");
  EXPECT_EQ(format_gcov(1, 3, 0, false), "33%");
  EXPECT_EQ(format_gcov(2, 3, 0, false), "67%");
  EXPECT_EQ(format_gcov(1, 2, 0, false), "50%");
  EXPECT_EQ(format_gcov(3, 3, 0, false), "100%");
}

TEST(FormatGcov, TinyNonZeroRatiosShowAsOnePercent) {
  EXPECT_EQ(format_gcov(1, 1000, 0, false), "1%");
  EXPECT_EQ(format_gcov(1, 201, 0, false), "1%");
  EXPECT_EQ(format_gcov(1, 1000000, 0, false), "1%");
}

TEST(FormatGcov, HalfAPercentIsNotTinyAndRoundsToEven) {
  // 1/200 = 0.5%: not below 0.5, so printf("%.0f", 0.5) gives "0".
  EXPECT_EQ(format_gcov(1, 200, 0, false), "0%");
  // 2.5% and 3.5% round to even as well.
  EXPECT_EQ(format_gcov(1, 40, 0, false), "2%");
  EXPECT_EQ(format_gcov(7, 200, 0, false), "4%");
}

// Whole percentages are computed without printf: the same text as
// printf("%.0f%%") for every ratio of small counts (ties, tiny and large
// ratios, negative and zero denominators) and for counts near the limits.
TEST(FormatGcov, WholePercentsEqualPrintfs) {
  auto printf_text = [](int64_t top, int64_t bottom) {
    float ratio = bottom ? 100.0f * float(top) / float(bottom) : 0.0f;
    if (ratio > 0.0f && ratio < 0.5f) ratio = 1.0f;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f%%", double(ratio));
    return std::string(buf);
  };
  for (int64_t bottom = -3; bottom <= 400; ++bottom)
    for (int64_t top = -3; top <= bottom + 3; ++top)
      ASSERT_EQ(format_gcov(top, bottom, 0, false), printf_text(top, bottom)) << top << "/" << bottom;
  const int64_t big = std::numeric_limits<int64_t>::max();
  for (int64_t top : {int64_t(0), int64_t(1), big / 3, big - 1, big, -big})
    for (int64_t bottom : {int64_t(1), int64_t(7), big / 2, big, int64_t(-1)})
      EXPECT_EQ(format_gcov(top, bottom, 0, false), printf_text(top, bottom)) << top << "/" << bottom;
}

TEST(FormatGcov, TwoDecimals) {
  EXPECT_EQ(format_gcov(1, 3, 2, false), "33.33%");
  EXPECT_EQ(format_gcov(2, 3, 2, false), "66.67%");
  EXPECT_EQ(format_gcov(1, 8, 2, false), "12.50%");
  EXPECT_EQ(format_gcov(15, 15, 2, false), "100.00%");
  EXPECT_EQ(format_gcov(0, 15, 2, false), "0.00%");
  // Only the 0-decimal form bumps tiny ratios.
  EXPECT_EQ(format_gcov(1, 100000, 2, false), "0.00%");
  // Single precision: 1/3 of 100 is 33.3333320617...
  EXPECT_EQ(format_gcov(1, 3, 5, false), "33.33333%");
}

TEST(FormatGcov, ZeroDenominator) {
  EXPECT_EQ(format_gcov(0, 0, 0, false), "0%");
  EXPECT_EQ(format_gcov(5, 0, 2, false), "0.00%");
}

TEST(FormatGcov, ZeroNumerator) { EXPECT_EQ(format_gcov(0, 1000, 0, false), "0%"); }

TEST(FormatGcov, NegativeDecimalsPrintTheCount) {
  EXPECT_EQ(format_gcov(12345, 7, -1, false), "12345");
  EXPECT_EQ(format_gcov(12345, 7, -1, true), "12.3k");
  EXPECT_EQ(format_gcov(-3, 7, -1, false), "-3");
}

TEST(FormatGcov, MoreThanAHundredPercent) {
  // Calls that return more often than called (longjmp) show such figures.
  EXPECT_EQ(format_gcov(3, 2, 0, false), "150%");
}

TEST(FormatCount, Plain) {
  EXPECT_EQ(format_count(0, false), "0");
  EXPECT_EQ(format_count(999, false), "999");
  EXPECT_EQ(format_count(1000, false), "1000");
  EXPECT_EQ(format_count(-1, false), "-1");
  EXPECT_EQ(format_count(std::numeric_limits<int64_t>::max(), false), "9223372036854775807");
  EXPECT_EQ(format_count(std::numeric_limits<int64_t>::min(), false), "-9223372036854775808");
}

TEST(FormatCount, HumanReadable) {
  EXPECT_EQ(format_count(999, true), "999");
  EXPECT_EQ(format_count(1000, true), "1.0k");
  EXPECT_EQ(format_count(1049, true), "1.0k");
  EXPECT_EQ(format_count(1050, true), "1.0k");  // 1.05f is 1.04999995...
  EXPECT_EQ(format_count(1051, true), "1.1k");
  EXPECT_EQ(format_count(999499, true), "999.5k");
  EXPECT_EQ(format_count(999500, true), "1.0M");  // moves to the next unit at half of it
  EXPECT_EQ(format_count(1234567, true), "1.2M");
  EXPECT_EQ(format_count(25000000, true), "25.0M");
  EXPECT_EQ(format_count(int64_t{3} * 1000 * 1000 * 1000, true), "3.0G");
  EXPECT_EQ(format_count(int64_t{1} << 40, true), "1.1T");
  EXPECT_EQ(format_count(int64_t{5} * 1000 * 1000 * 1000 * 1000 * 1000, true), "5.0P");
  EXPECT_EQ(format_count(-5000, true), "-5000");  // below 1000: never shortened
}

TEST(FormatCount, HumanReadableExtremes) {
  // gcov's `count + divisor / 2` wraps for counts near 2^63, so it stops at
  // 'k': gcov-12 -H prints a counter of INT64_MAX as "9223372474941440.0k".
  EXPECT_EQ(format_count(std::numeric_limits<int64_t>::max(), true), "9223372474941440.0k");
  EXPECT_EQ(format_count(int64_t{1000} * 1000 * 1000 * 1000 * 1000 * 1000, true), "1.0E");
}

// The appenders the .gcov text uses: the same text, right-aligned.
TEST(AppendNumbers, SameTextAsFormatPadded) {
  std::string out = "x";
  append_count(out, 42, false, 9);
  EXPECT_EQ(out, "x       42");
  out.clear();
  append_count(out, 1234567, true, 9);
  EXPECT_EQ(out, "     1.2M");
  out.clear();
  append_count(out, 1234567890123, false, 9);  // wider than the column: not cut
  EXPECT_EQ(out, "1234567890123");
  out.clear();
  append_gcov(out, 1, 3, 0, false);
  EXPECT_EQ(out, format_gcov(1, 3, 0, false));
  out.clear();
  append_gcov(out, 7, 200, -1, false, 4);
  EXPECT_EQ(out, "   7");
  out.clear();
  append_count(out, std::numeric_limits<int64_t>::min(), false);
  EXPECT_EQ(out, format_count(std::numeric_limits<int64_t>::min(), false));
}

}  // namespace
}  // namespace covkit::report
