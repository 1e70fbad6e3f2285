#pragma once
// How every view shows a coverage percentage: the terminal table, the HTML,
// the Markdown summary and the gate messages. One rule, genhtml's (lcov
// 1.16), which gcovr 5 follows too except for its truncation:
//   * one decimal, rounded to nearest (halves up): 2/3 is "66.7%";
//   * "100.0%" only when everything is covered (a partly covered set at
//     99.95% or more shows "99.9%"), "0.0%" only when nothing is (anything
//     covered shows at least "0.1%"), so a failing gate never prints 100%;
//   * "-" when there is nothing to cover (0/0), which sorts below every value.
// Machine formats (Cobertura rates, lcov counts) keep their own conventions.
#include <cstdint>
#include <string>

namespace covkit::report {

std::string format_percent(int64_t covered, int64_t total);

// For a failed gate's message: format_percent's text, unless rounding would
// show a value that meets `limit` (80: 79.96% would print as "80.0%"); then
// the truncated value with two or more decimals, as many as it takes
// ("79.96%").
std::string format_percent_below(int64_t covered, int64_t total, double limit);

// For sorting: the exact percentage, or -1 when there is nothing to cover.
double percent_sort_key(int64_t covered, int64_t total);

// covered1/total1 < covered2/total2 exactly (no rounding), with "nothing to
// cover" below every value.
bool percent_less(int64_t covered1, int64_t total1, int64_t covered2, int64_t total2);

}  // namespace covkit::report
