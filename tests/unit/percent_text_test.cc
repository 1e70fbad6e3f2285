// report/percent_text: the one percentage rule of the terminal table, the
// HTML and the Markdown (genhtml's): one decimal rounded to nearest, 100.0%
// and 0.0% only when exactly true, "-" when there is nothing to cover.
#include "report/percent_text.h"

#include <gtest/gtest.h>

namespace covkit::report {
namespace percent_text_test {

TEST(FormatPercent, RoundsToNearestTenth) {
  EXPECT_EQ(format_percent(2, 3), "66.7%");  // rounded, not truncated
  EXPECT_EQ(format_percent(1, 3), "33.3%");
  EXPECT_EQ(format_percent(577, 1000), "57.7%");
  EXPECT_EQ(format_percent(5, 8), "62.5%");
  EXPECT_EQ(format_percent(1, 16), "6.3%");  // 6.25: halves round up
  EXPECT_EQ(format_percent(13, 20), "65.0%");
  EXPECT_EQ(format_percent(9994, 10000), "99.9%");
}

TEST(FormatPercent, HundredAndZeroOnlyWhenExact) {
  EXPECT_EQ(format_percent(1000, 1000), "100.0%");
  EXPECT_EQ(format_percent(9995, 10000), "99.9%");  // 99.95 would round to 100.0
  EXPECT_EQ(format_percent(9999, 10000), "99.9%");
  EXPECT_EQ(format_percent(999999, 1000000), "99.9%");
  EXPECT_EQ(format_percent(0, 7), "0.0%");
  EXPECT_EQ(format_percent(1, 10000), "0.1%");  // 0.01 would round to 0.0
  EXPECT_EQ(format_percent(1, 2000000), "0.1%");
  EXPECT_EQ(format_percent(4, 10000), "0.1%");
}

TEST(FormatPercent, NothingToCoverIsADash) {
  EXPECT_EQ(format_percent(0, 0), "-");
  EXPECT_EQ(format_percent(0, -1), "-");
}

TEST(FormatPercent, HugeCountsDoNotOverflow) {
  constexpr int64_t kBig = int64_t(1) << 62;
  EXPECT_EQ(format_percent(kBig - 1, kBig), "99.9%");
  EXPECT_EQ(format_percent(kBig / 3, kBig), "33.3%");
  EXPECT_EQ(format_percent(1, kBig), "0.1%");
}

// A failed gate never prints a number that would pass it.
TEST(FormatPercentBelow, AddsDecimalsWhenRoundingWouldMeetTheLimit) {
  EXPECT_EQ(format_percent_below(13, 20, 66), "65.0%");        // already below: the usual text
  EXPECT_EQ(format_percent_below(7996, 10000, 80), "79.96%");  // "80.0%" would meet 80
  EXPECT_EQ(format_percent_below(79995, 100000, 80), "79.99%");
  EXPECT_EQ(format_percent_below(99895, 100000, 99.9), "99.89%");
  EXPECT_EQ(format_percent_below(7999999, 8000000, 99.99999), "99.9%");  // below the limit already
  EXPECT_EQ(format_percent_below(2, 3, 66.7), "66.66%");
  EXPECT_EQ(format_percent_below(9999, 10000, 100), "99.9%");  // the 100% rule already holds
  EXPECT_EQ(format_percent_below(0, 0, 50), "-");
}

TEST(PercentOrder, NothingToCoverSortsBelowEveryValue) {
  EXPECT_LT(percent_sort_key(0, 0), percent_sort_key(0, 5));
  EXPECT_LT(percent_sort_key(0, 5), percent_sort_key(1, 5));
  EXPECT_LT(percent_sort_key(1, 3), percent_sort_key(2, 3));
  EXPECT_EQ(percent_sort_key(5, 5), 100.0);
  EXPECT_TRUE(percent_less(0, 0, 0, 5));
  EXPECT_FALSE(percent_less(0, 5, 0, 0));
  EXPECT_FALSE(percent_less(0, 0, 0, 0));
  EXPECT_TRUE(percent_less(1, 3, 1, 2));
  EXPECT_FALSE(percent_less(2, 4, 1, 2));                                                // equal ratios
  EXPECT_TRUE(percent_less(999999999999, 1000000000000, 1000000000000, 1000000000000));  // exact, no rounding
}

}  // namespace
}  // namespace covkit::report
