#include "report/html/html_metrics.h"

#include <fmt/format.h>

#include <iterator>

namespace covkit::report::html {

std::string percent_text(int64_t covered, int64_t total) {
  if (total <= 0) return fmt::format("{:.1f}%", model::percent(covered, total));
  // Tenths by integer division: floating point would show 57.7% as 57.6%.
  // Item counts (lines, branches) are far below the overflow bound.
  int64_t tenths = covered * 1000 / total;
  if (tenths == 0 && covered > 0) tenths = 1;
  return fmt::format("{}.{}%", tenths / 10, tenths % 10);
}

const char* rate_class(int64_t covered, int64_t total) {
  double p = model::percent(covered, total);
  return p >= 90.0 ? "hi" : p >= 75.0 ? "med" : "lo";
}

std::string sort_value(int64_t covered, int64_t total) { return fmt::format("{:.6f}", model::percent(covered, total)); }

void append_bar(std::string& out, int64_t covered, int64_t total) {
  fmt::format_to(std::back_inserter(out),
                 "<span class=\"bar\" aria-hidden=\"true\"><span style=\"width:{:.1f}%\"></span></span>",
                 model::percent(covered, total));
}

// Nothing to cover (a file without branches): percent() calls that 100%,
// which sorts and totals well but would paint a green bar for nothing; the
// pages show a dash on an empty track instead.
void append_metric_cell(std::string& out, int64_t covered, int64_t total) {
  if (total == 0) {
    out +=
        "<td class=\"metric na\" title=\"nothing to cover\"><span class=\"bar\" aria-hidden=\"true\"></span>"
        "<span class=\"pct\">\u2014</span><span class=\"frac\">0/0</span></td>";
    return;
  }
  fmt::format_to(std::back_inserter(out), "<td class=\"metric {}\">", rate_class(covered, total));
  append_bar(out, covered, total);
  fmt::format_to(std::back_inserter(out), "<span class=\"pct\">{}</span><span class=\"frac\">{}/{}</span></td>",
                 percent_text(covered, total), covered, total);
}

namespace {

void append_card(std::string& out, const char* cls, const char* label, int64_t covered, int64_t total) {
  if (total == 0) {
    fmt::format_to(std::back_inserter(out),
                   "<div class=\"card {} na\"><h3>{}</h3><div class=\"pct\">\u2014</div>"
                   "<span class=\"bar\" aria-hidden=\"true\"></span><div class=\"frac\">nothing to cover</div></div>\n",
                   cls, label);
    return;
  }
  fmt::format_to(std::back_inserter(out), "<div class=\"card {} {}\"><h3>{}</h3><div class=\"pct\">{}</div>", cls,
                 rate_class(covered, total), label, percent_text(covered, total));
  append_bar(out, covered, total);
  fmt::format_to(std::back_inserter(out), "<div class=\"frac\">{} of {} covered</div></div>\n", covered, total);
}

}  // namespace

void append_totals_cards(std::string& out, const model::Totals& t) {
  out += "<section class=\"totals\" id=\"totals\">\n";
  append_card(out, "lines", "Lines", t.lines_covered, t.lines);
  append_card(out, "functions", "Functions", t.functions_covered, t.functions);
  append_card(out, "branches", "Branches", t.branches_covered, t.branches);
  out += "</section>\n";
}

void append_legend(std::string& out, LegendKind kind) {
  out += "<ul class=\"legend\" id=\"legend\">";
  if (kind == LegendKind::kSource) {
    out +=
        "<li><span class=\"swatch covered\"></span>covered</li>"
        "<li><span class=\"swatch uncovered\"></span>not covered</li>"
        "<li><span class=\"swatch partial\"></span>ran, some branches never taken</li>"
        "<li><span class=\"swatch excluded\"></span>excluded (\u2014)</li>"
        "<li><span class=\"swatch nocode\"></span>no code</li>"
        "<li><span class=\"star\">*</span> some blocks on the line never ran</li>";
  } else {
    out +=
        "<li><span class=\"swatch hi\"></span>\u2265 90%</li>"
        "<li><span class=\"swatch med\"></span>\u2265 75%</li>"
        "<li><span class=\"swatch lo\"></span>&lt; 75%</li>"
        "<li>click a column header to sort; click again to reverse</li>";
  }
  out += "</ul>\n";
}

}  // namespace covkit::report::html
