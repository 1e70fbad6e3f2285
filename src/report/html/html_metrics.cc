#include "report/html/html_metrics.h"

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <memory>
#include <string_view>

#include "report/percent_text.h"

namespace covkit::report::html {

using namespace std::string_view_literals;

const char* rate_class(int64_t covered, int64_t total) {
  double p = model::percent(covered, total);
  return p >= 90.0 ? "hi" : p >= 75.0 ? "med" : "lo";
}

namespace {

// A text that depends only on a covered/total pair, made once per pair on
// each thread: a page's function table repeats a few pairs (1/1, 0/4)
// thousands of times, and formatting their percentages as doubles cost
// 4,000 instructions a cell (4% of a zstd clang report). Direct-mapped: a
// pair evicts the one in its slot.
class PairTexts {
 public:
  template <typename Make>
  std::string_view get(int64_t covered, int64_t total, Make&& make) {
    const uint64_t mixed = (uint64_t(covered) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(total) * 0xc2b2ae3d27d4eb4full);
    Slot& s = slots_[(mixed >> 56) % kSlots];
    if (!s.used || s.covered != covered || s.total != total) {
      s.text.clear();
      make(s.text);
      s.used = true;
      s.covered = covered;
      s.total = total;
    }
    return s.text;
  }

 private:
  struct Slot {
    bool used = false;
    int64_t covered = 0, total = 0;
    std::string text;
  };
  static constexpr size_t kSlots = 256;
  std::array<Slot, kSlots> slots_;
};

// Allocated on a thread's first use: as thread_local objects their 28 KiB
// were static TLS, zeroed by glibc for every thread of every covkit command
// (~7 page faults a thread), HTML or not.
PairTexts& lazily(std::unique_ptr<PairTexts>& texts) {
  if (!texts) texts = std::make_unique<PairTexts>();
  return *texts;
}
thread_local std::unique_ptr<PairTexts> sort_values, metric_cells;

}  // namespace

std::string sort_value(int64_t covered, int64_t total) {
  if (total <= 0) return "-1";
  return std::string(lazily(sort_values).get(covered, total, [&](std::string& text) {
    fmt::format_to(std::back_inserter(text), "{:.6f}", percent_sort_key(covered, total));
  }));
}

void append_bar(std::string& out, int64_t covered, int64_t total) {
  fmt::format_to(std::back_inserter(out),
                 "<span class=\"bar\" aria-hidden=\"true\"><span style=\"width:{:.1f}%\"></span></span>",
                 model::percent(covered, total));
}

// Nothing to cover (a file without branches): a dash on an empty track, not
// a green bar for nothing.
void append_metric_cell(std::string& out, int64_t covered, int64_t total) {
  if (total == 0) {
    out +=
        "<td class=\"metric na\" title=\"nothing to cover\"><span class=\"bar\" aria-hidden=\"true\"></span>"
        "<span class=\"pct\">-</span><span class=\"frac\">0/0</span></td>";
    return;
  }
  out += lazily(metric_cells).get(covered, total, [&](std::string& cell) {
    fmt::format_to(std::back_inserter(cell), "<td class=\"metric {}\">", rate_class(covered, total));
    append_bar(cell, covered, total);
    fmt::format_to(std::back_inserter(cell), "<span class=\"pct\">{}</span><span class=\"frac\">{}/{}</span></td>",
                   format_percent(covered, total), covered, total);
  });
}

namespace {

void append_card(std::string& out, const char* cls, const char* label, int64_t covered, int64_t total) {
  if (total == 0) {
    fmt::format_to(std::back_inserter(out),
                   "<div class=\"card {} na\"><h3>{}</h3><div class=\"pct\">-</div>"
                   "<span class=\"bar\" aria-hidden=\"true\"></span><div class=\"frac\">nothing to cover</div></div>\n",
                   cls, label);
    return;
  }
  fmt::format_to(std::back_inserter(out), "<div class=\"card {} {}\"><h3>{}</h3><div class=\"pct\">{}</div>", cls,
                 rate_class(covered, total), label, format_percent(covered, total));
  append_bar(out, covered, total);
  fmt::format_to(std::back_inserter(out), "<div class=\"frac\">{} of {} covered</div></div>\n", covered, total);
}

}  // namespace

void append_totals_cards(std::string& out, const model::Totals& t) {
  out += "<section class=\"totals\" id=\"totals\">\n"sv;
  append_card(out, "lines", "Lines", t.lines_covered, t.lines);
  append_card(out, "functions", "Functions", t.functions_covered, t.functions);
  append_card(out, "branches", "Branches", t.branches_covered, t.branches);
  // clang's source-based coverage only.
  if (t.regions > 0) append_card(out, "regions", "Regions", t.regions_covered, t.regions);
  out += "</section>\n"sv;
}

void append_legend(std::string& out, LegendKind kind, bool inferred, bool regions) {
  out += "<ul class=\"legend\" id=\"legend\">"sv;
  if (kind == LegendKind::kSource) {
    out +=
        "<li><span class=\"swatch covered\"></span>covered</li>"
        "<li><span class=\"swatch uncovered\"></span>not covered</li>"
        "<li><span class=\"swatch partial\"></span>ran, some branches never taken</li>"
        "<li><span class=\"swatch excluded\"></span>excluded (\u2014)</li>"
        "<li><span class=\"swatch nocode\"></span>no code</li>"
        "<li><span class=\"star\">*</span> some blocks on the line never ran</li>";
    if (regions)
      out += "<li><span class=\"swatch partial\"></span>ran, some code on the line did not (regions: "
             "n/m of the regions starting there ran)</li>";
    if (inferred)
      out += "<li><span class=\"inferred\">i</span> covered only by inference: must have run with an observed "
             "line, never observed itself</li>";
  } else {
    out +=
        "<li><span class=\"swatch hi\"></span>\u2265 90%</li>"
        "<li><span class=\"swatch med\"></span>\u2265 75%</li>"
        "<li><span class=\"swatch lo\"></span>&lt; 75%</li>"
        "<li>click a column header to sort; click again to reverse</li>";
  }
  out += "</ul>\n"sv;
}

}  // namespace covkit::report::html
