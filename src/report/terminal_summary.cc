#include "report/terminal_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "report/file_order.h"
#include "report/missing_lines.h"
#include "util/display_text.h"

namespace covkit::report {

namespace {

// Red below 75%, yellow below 90%, green from there: the bands of the HTML
// report (and of genhtml and gcovr), so colours mean the same everywhere.
std::string paint(const std::string& text, int64_t covered, int64_t total, bool color) {
  if (!color || total <= 0) return text;
  double p = 100.0 * double(covered) / double(total);
  const char* code = p >= 90.0 ? "32" : p >= 75.0 ? "33" : "31";
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

}  // namespace

std::string render_terminal_summary(const model::ProjectCov& project, const TerminalOptions& opts) {
  // Widths in terminal columns of the names as shown (display_text: a name
  // that is no UTF-8 or holds controls would shift or break its row).
  size_t name_width = 4;  // "File"
  for (const auto& f : project.files) name_width = std::max(name_width, util::display_columns(util::display_text(f.path)));
  name_width = std::max<size_t>(5, opts.width ? std::min(name_width, opts.width) : name_width);

  std::string out;
  auto it = std::back_inserter(out);
  // Regions only where there are any (clang's source-based coverage).
  const bool regions = model::totals(project).regions > 0;
  auto row = [&](const std::string& name, const model::Totals& t, const std::string& missing) {
    auto cell = [&](int64_t c, int64_t n) {
      std::string pct = format_percent(c, n);
      std::string padded = fmt::format("{:>7}", pct);
      return fmt::format("{:>7} {:>7} {}", n, c, paint(padded, c, n, opts.color));
    };
    fmt::format_to(it, "{}  {}  {}  {}", util::pad_right(util::shorten_front(util::display_text(name), name_width), name_width),
                   cell(t.lines_covered, t.lines), cell(t.functions_covered, t.functions),
                   cell(t.branches_covered, t.branches));
    if (regions) fmt::format_to(it, "  {}", cell(t.regions_covered, t.regions));
    if (!missing.empty()) fmt::format_to(it, "  {}", missing);
    out += '\n';
  };
  // + "  Missing": gcovr's column of uncovered lines (missing_lines.h).
  const std::string rule(name_width + 2 + (regions ? 4 : 3) * 23 + (regions ? 6 : 4) + 9, '-');
  fmt::format_to(it, "{:<{}}  {:^23}  {:^23}  {:^23}", "", name_width, "Lines", "Functions", "Branches");
  if (regions) fmt::format_to(it, "  {:^23}", "Regions");
  out += '\n';
  const std::string heads = fmt::format("{:>7} {:>7} {:>7}", "Total", "Exec", "Cover");
  fmt::format_to(it, "{:<{}}  {}  {}  {}", "File", name_width, heads, heads, heads);
  if (regions) fmt::format_to(it, "  {}", heads);
  out += "  Missing\n";
  out += rule + "\n";
  for (const model::FileCov* f : project_files_first(project)) row(f->path, model::totals(*f), missing_lines_text(*f));
  out += rule + "\n";
  row("TOTAL", model::totals(project), "");
  return out;
}

}  // namespace covkit::report
