#pragma once
// Coverage numbers as the pages show them: coloured bars, the three summary
// cards, the legend. Percentages are report::format_percent's.
#include <cstdint>
#include <string>

#include "model/project_coverage.h"

namespace covkit::report::html {

// "hi" (>= 90%), "med" (>= 75%) or "lo": the bar colour, as genhtml grades.
const char* rate_class(int64_t covered, int64_t total);
// Full-precision value for data-* sort attributes; "-1" for nothing to
// cover, which sorts below every value (percent_text.h).
std::string sort_value(int64_t covered, int64_t total);

// <span class="bar">, filled to the percentage.
void append_bar(std::string& out, int64_t covered, int64_t total);
// A table cell with bar, percentage and "covered/total".
void append_metric_cell(std::string& out, int64_t covered, int64_t total);
// Lines / Functions / Branches cards (id "totals").
void append_totals_cards(std::string& out, const model::Totals& t);

enum class LegendKind { kIndex, kSource };
// `inferred`: the source page marks lines known only by inference (covkit
// sample --show-inferred), so the legend says what its 'i' means.
// `regions`: the page shows clang's counted regions of its lines.
void append_legend(std::string& out, LegendKind kind, bool inferred = false, bool regions = false);

}  // namespace covkit::report::html
