#include "report/markdown_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

#include "report/missing_lines.h"
#include "report/percent_text.h"
#include "util/display_text.h"

namespace covkit::report {

namespace {

// Path text for a table cell, as a code span: inside one, GitHub and GitLab
// make no mention (@org/team), issue reference (#12), autolink (www.x.org),
// emphasis or HTML of a file name, which backslash escapes cannot all stop.
// The fence is one backtick longer than the name's longest run of them, and
// padded with a space when the name starts or ends with a backtick or space
// (a span drops one space at each end). '|' is still escaped: GFM splits the
// row at it before reading spans. Control characters would break the row,
// and bytes that are no UTF-8 make the file invalid text (both become
// U+FFFD).
std::string cell_text(std::string_view name) {
  const std::string s = util::display_text(name);
  if (s.empty()) return s;
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = s.front() == '`' || s.back() == '`' || s.front() == ' ' || s.back() == ' ';
  std::string r = fence;
  if (pad) r += ' ';
  for (char c : s) {
    if (c == '|') r += '\\';
    r += c;
  }
  if (pad) r += ' ';
  r += fence;
  return r;
}

std::string cell(int64_t covered, int64_t total) {
  return fmt::format("{} ({}/{})", format_percent(covered, total), covered, total);
}

struct Row {
  const model::FileCov* file;
  model::Totals totals;
};

// Lower line coverage first (percent_less: nothing to cover is lowest);
// among equals, more uncovered lines first.
bool less_covered(const Row& a, const Row& b) {
  const model::Totals& x = a.totals;
  const model::Totals& y = b.totals;
  if (percent_less(x.lines_covered, x.lines, y.lines_covered, y.lines)) return true;
  if (percent_less(y.lines_covered, y.lines, x.lines_covered, x.lines)) return false;
  const int64_t xu = x.lines - x.lines_covered, yu = y.lines - y.lines_covered;
  if (xu != yu) return xu > yu;
  return a.file->path < b.file->path;
}

}  // namespace

std::string render_markdown(const model::ProjectCov& project, const MarkdownOptions& options) {
  std::vector<Row> rows;
  rows.reserve(project.files.size());
  for (const model::FileCov& f : project.files) rows.push_back({&f, model::totals(f)});
  const model::Totals all = model::totals(project);

  std::string text;
  auto out = std::back_inserter(text);
  fmt::format_to(out,
                 "## {}\n\n"
                 "| | Covered | Total | Percent |\n"
                 "|:--|--:|--:|--:|\n"
                 "| Lines | {} | {} | {} |\n"
                 "| Functions | {} | {} | {} |\n"
                 "| Branches | {} | {} | {} |\n",
                 options.title, all.lines_covered, all.lines, format_percent(all.lines_covered, all.lines),
                 all.functions_covered, all.functions, format_percent(all.functions_covered, all.functions),
                 all.branches_covered, all.branches, format_percent(all.branches_covered, all.branches));
  if (rows.empty()) {
    text += "\nNo source files.\n";
    return text;
  }

  const size_t file_count = rows.size();
  if (options.max_files > 0 && rows.size() > options.max_files) {
    std::partial_sort(rows.begin(), rows.begin() + std::ptrdiff_t(options.max_files), rows.end(), less_covered);
    rows.resize(options.max_files);
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.file->path < b.file->path; });

  text += "\n| File | Lines | Functions | Branches | Missing lines |\n|:--|--:|--:|--:|:--|\n";
  for (const Row& r : rows) {
    const model::Totals& t = r.totals;
    fmt::format_to(out, "| {} | {} | {} | {} | {} |\n", cell_text(r.file->path), cell(t.lines_covered, t.lines),
                   cell(t.functions_covered, t.functions), cell(t.branches_covered, t.branches),
                   missing_lines_text(*r.file));
  }
  if (rows.size() < file_count)
    fmt::format_to(out, "\nShowing the {} files with the lowest line coverage of {}.\n", rows.size(), file_count);
  return text;
}

}  // namespace covkit::report
