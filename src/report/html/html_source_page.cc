#include "report/html/html_source_page.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <span>
#include <vector>

#include "report/html/cpp_highlight.h"
#include "report/html/html_escape.h"
#include "report/html/html_function_name.h"
#include "report/html/html_layout.h"
#include "report/html/html_metrics.h"
#include "report/html/html_names.h"
#include "report/html/html_out.h"

namespace covkit::report::html {

using namespace std::string_view_literals;

namespace {

// A number in decimal: the rows' numbers and counts without a format
// string to interpret (a page has a row per source line).
void append_int(std::string& out, int64_t value) {
  const fmt::format_int digits(value);
  out.append(digits.data(), digits.size());
}

// "covered<between>total" (" of ", "/").
void append_fraction(std::string& out, size_t covered, size_t total, std::string_view between) {
  append_int(out, int64_t(covered));
  out += between;
  append_int(out, int64_t(total));
}

// Views into `text`, one per line, without the '\n' (nor a DOS '\r').
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

// The counted regions (clang's source-based coverage) that start on one
// line: a line that ran may hold code that did not (`x ? a() : b()`).
using LineRegions = std::span<const model::RegionCov>;

bool some_region_never_ran(LineRegions regions) {
  return std::any_of(regions.begin(), regions.end(), [](const model::RegionCov& r) { return r.count == 0; });
}

// A row's class, padded to 32 bytes (RowWriter copies it with put_short_at).
struct RowClass {
  char text[32];
  size_t size;
};
constexpr RowClass row_class(std::string_view name) {
  RowClass c{};
  for (size_t i = 0; i < name.size(); ++i) c.text[i] = name[i];
  c.size = name.size();
  return c;
}
constexpr RowClass kNocode = row_class("nocode"), kExcluded = row_class("excluded"),
                   kUncovered = row_class("uncovered"), kPartial = row_class("partial"),
                   kCovered = row_class("covered");

const RowClass& line_class(const model::LineCov* line, LineRegions regions) {
  if (!line) return kNocode;
  if (line->excluded) return kExcluded;
  if (line->no_count) return kNocode;  // branches only: the branch cell tells them
  if (!line->covered()) return kUncovered;
  for (const model::BranchCov& b : line->branches)
    if (b.count == 0) return kPartial;
  if (some_region_never_ran(regions)) return kPartial;
  return kCovered;
}

// The regions starting on a line, when they tell more than its count: two
// or more with different counts, or one that never ran on a line that did.
void append_region_details(std::string& out, const model::LineCov& line, LineRegions regions) {
  if (line.excluded || regions.empty()) return;
  const bool differ = std::any_of(regions.begin(), regions.end(),
                                  [&](const model::RegionCov& r) { return r.count != regions[0].count; });
  if (!differ && !(line.covered() && some_region_never_ran(regions))) return;
  size_t ran = 0;
  for (const model::RegionCov& r : regions) ran += r.count > 0;
  const std::string_view cls = ran == 0 ? "none"sv : ran == regions.size() ? "all"sv : "some"sv;
  out += "<details class=\"regions "sv;
  out += cls;
  out += "\"><summary title=\""sv;
  append_fraction(out, ran, regions.size(), " of "sv);
  out += " regions starting here ran\">"sv;
  append_fraction(out, ran, regions.size(), "/"sv);
  out += "</summary><ul><li class=\"caption\">regions starting on this line</li>"sv;
  for (const model::RegionCov& r : regions) {
    out += r.count > 0 ? "<li class=\"taken\">column "sv : "<li class=\"nottaken\">column "sv;
    append_int(out, r.column_start);
    if (r.line_end == r.line_start && r.column_end != UINT32_MAX) {
      out += "\u2013"sv;
      append_int(out, r.column_end);
    } else if (r.line_end != r.line_start) {
      out += " to line "sv;
      append_int(out, r.line_end);
    }
    out += ": "sv;
    append_int(out, r.count);
    out += "\u00d7</li>"sv;
  }
  out += "</ul></details>"sv;
}

// Written straight to the page: a zstd report has 11,000 such cells with
// 62,000 branches, each a few pieces.
void write_branch_cell(HtmlOut& out, const model::LineCov& line) {
  out.need(64);
  out.put("<td class=\"br\">"sv);
  if (!line.excluded && !line.branches.empty()) {
    size_t taken = 0;
    for (const model::BranchCov& b : line.branches) taken += b.count > 0;
    const size_t n = line.branches.size();
    // Its markup and numbers: under 256 bytes, and under 128 a branch.
    out.need(256 + n * 128);
    const std::string_view cls = taken == 0 ? "none"sv : taken == n ? "all"sv : "some"sv;
    out.put("<details class=\"branches "sv);
    out.put(cls);
    out.put("\"><summary title=\""sv);
    auto fraction = [&](std::string_view between) {
      out.put_decimal(taken);
      out.put(between);
      out.put_decimal(n);
    };
    fraction(" of "sv);
    out.put(" branches taken\">"sv);
    fraction("/"sv);
    out.put("</summary><ul><li class=\"caption\">"sv);
    fraction("/"sv);
    out.put(" branches taken</li>"sv);
    for (size_t k = 0; k < n; ++k) {
      const model::BranchCov& b = line.branches[k];
      if (b.count > 0)
        out.put("<li class=\"taken\">branch "sv);
      else
        out.put("<li class=\"nottaken\">branch "sv);
      out.put_decimal(k);
      out.put(": "sv);
      if (b.count > 0) {
        out.put("taken "sv);
        out.put_decimal(uint64_t(b.count));
        out.put("\u00d7"sv);
      } else if (b.executed) {
        out.put("never taken"sv);
      } else {
        out.put("not executed"sv);
      }
      if (b.is_throw) out.put(" (throw)"sv);
      if (b.unreachable) out.put(" (unreachable)"sv);
      out.put("</li>"sv);
    }
    out.put("</ul></details>"sv);
  }
  out.put("</td>"sv);
}

void append_count_cell(std::string& out, const model::LineCov* line, LineRegions regions, const HtmlOptions& opts) {
  out += "<td class=\"count\">"sv;
  if (line) {
    if (line->excluded) {
      out += "<span title=\"excluded\">\u2014</span>"sv;
    } else if (line->no_count) {
      // no count of its own: its branches are in the next cell
    } else {
      if (opts.counts_are_lower_bounds && line->covered())
        fmt::format_to(std::back_inserter(out),
                       FMT_COMPILE("<span title=\"sampled: ran at least so often\">\u2265\u202f{}</span>"),
                       line->count);
      else
        append_int(out, line->count);
      // The star only tells something on a line that ran.
      if (line->unexecuted_block && line->covered())
        out += "<span class=\"star\" title=\"some blocks on this line never ran\">*</span>"sv;
      // covkit sample --show-inferred: known to have run, but not seen to.
      if (line->inferred && line->covered())
        out += "<span class=\"inferred\" title=\"inferred: a block that must have run with an observed one\">i</span>"sv;
      append_region_details(out, *line, regions);
    }
  }
  out += "</td>"sv;
}

void append_instances(std::string& out, const model::LineCov& line) {
  for (const model::LineInstance& inst : line.instances) {
    out += "<tr class=\"instance\" data-line=\""sv;
    append_int(out, line.number);
    out += "\"><td class=\"num\"></td><td class=\"count\"></td><td class=\"br\"></td><td class=\"inst\">"
           "<span class=\"icount\">"sv;
    append_int(out, inst.count);
    out += "</span>"sv;
    append_escaped(out, display_name("", inst.function));
    append_variant_badge(out, inst.function);
    out += "</td></tr>\n"sv;
  }
}

// One row per line of the text, written through `out` (html_out.h): the
// row's start with fixed-size copies (its number three times, its class,
// its count), its code cell by the highlighter; a line with branches,
// regions or instances has its cells made as text in `scratch` first.
// `highlighter` is null for text that is not C or C++; when set, it sees
// every line of the text in order.
class RowWriter {
 public:
  RowWriter(HtmlOut& out, const HtmlOptions& opts) : out_(out), opts_(opts) {}

  void row(uint32_t number, const model::LineCov* line, LineRegions regions, std::string_view code,
           bool beyond_source, CppHighlighter* highlighter) {
    const RowClass& name = line_class(line, regions);
    const Decimal num(number);
    // The longest start: the fixed markup below, three numbers of up to
    // 10 digits, a class, a count of up to 20.
    char* p = out_.reserve(400);
    p = put_at(p, R"(<tr id="L)"sv);
    p = put_short_at(p, num.data(), num.size());
    p = put_at(p, R"(" class=")"sv);
    p = put_short_at(p, name.text, name.size);
    p = put_at(p, R"("><td class="num"><a href="#L)"sv);
    p = put_short_at(p, num.data(), num.size());
    p = put_at(p, R"(">)"sv);
    p = put_short_at(p, num.data(), num.size());
    p = put_at(p, "</a></td>"sv);
    if (!line) {
      p = put_at(p, R"(<td class="count"></td><td class="br"></td><td class="code">)"sv);
      out_.advance(p);
    } else if (!line->excluded && !line->no_count && line->branches.empty() && regions.empty() &&
               !(opts_.counts_are_lower_bounds && line->covered()) && !(line->inferred && line->covered())) {
      // A line with a count and nothing more (append_count_cell's common case).
      p = put_at(p, R"(<td class="count">)"sv);
      if (line->count < 0) *p++ = '-';
      const Decimal count(line->count < 0 ? 0 - uint64_t(line->count) : uint64_t(line->count));
      p = put_short_at(p, count.data(), count.size());
      if (line->unexecuted_block && line->covered())
        p = put_at(p, R"(<span class="star" title="some blocks on this line never ran">*</span>)"sv);
      p = put_at(p, R"(</td><td class="br"></td><td class="code">)"sv);
      out_.advance(p);
    } else {
      out_.advance(p);
      scratch_.clear();
      append_count_cell(scratch_, line, regions, opts_);
      out_.append(scratch_);
      write_branch_cell(out_, *line);
      out_.need(32);
      out_.put(R"(<td class="code">)"sv);
    }
    if (beyond_source) {
      out_.need(64);
      out_.put(R"(<span class="beyond">(no such line in the source)</span>)"sv);
    } else if (highlighter) {
      highlighter->write_line(out_, code);
    } else {
      out_.need(kMaxEscapedPerByte * code.size());
      out_.put_escaped(code);
    }
    out_.need(16);
    out_.put("</td></tr>\n"sv);
    if (line && opts_.show_instances && !line->excluded && !line->instances.empty()) {
      scratch_.clear();
      append_instances(scratch_, *line);
      out_.append(scratch_);
    }
  }

 private:
  HtmlOut& out_;
  const HtmlOptions& opts_;
  std::string scratch_;
};

void append_function_table(std::string& out, const model::FileCov& file, const HtmlOptions& opts) {
  out += "<h2>Functions</h2>\n"sv;
  if (file.functions.empty()) {
    out += "<p class=\"empty\">No functions.</p>\n"sv;
    return;
  }
  // clang's source-based coverage counts regions, not blocks.
  const bool regions = std::any_of(file.functions.begin(), file.functions.end(),
                                   [](const model::FunctionCov& f) { return f.regions > 0 && f.blocks == 0; });
  out +=
      "<table class=\"functions sortable\" id=\"functions\">\n<thead><tr>"
      "<th scope=\"col\" data-sort=\"name\" data-type=\"text\">Function</th>"
      "<th scope=\"col\" data-sort=\"line\" data-type=\"number\">Line</th>"
      "<th scope=\"col\" data-sort=\"calls\" data-type=\"number\">";
  out += opts.counts_are_lower_bounds ? "<span title=\"sampled: the samples that saw it; called at least so often\">"
                                        "Calls (at least)</span>"
                                      : "Calls";
  out += "</th>"sv;
  out += regions ? "<th scope=\"col\" data-sort=\"blocks\" data-type=\"number\">Regions executed</th>"
                 : "<th scope=\"col\" data-sort=\"blocks\" data-type=\"number\">Blocks executed</th>";
  out += "</tr></thead>\n<tbody>\n"sv;
  for (const model::FunctionCov& fn : file.functions) {
    std::string name = display_name(fn.demangled, fn.name);
    out += fn.excluded      ? "<tr class=\"excluded\" data-name=\""sv
           : fn.covered() ? "<tr class=\"covered\" data-name=\""sv
                          : "<tr class=\"uncovered\" data-name=\""sv;
    append_escaped(out, name);
    const int64_t done = regions ? fn.regions_covered : fn.blocks_executed;
    const int64_t all = regions ? fn.regions : fn.blocks;
    out += "\" data-line=\""sv;
    append_int(out, fn.start_line);
    out += "\" data-calls=\""sv;
    append_int(out, fn.excluded ? -1 : fn.execution_count);
    out += "\" data-blocks=\""sv;
    out += sort_value(done, all);
    out += "\"><td class=\"fn\"><a href=\"#L"sv;
    append_int(out, fn.start_line);
    out += "\" title=\""sv;
    append_escaped(out, fn.name);
    out += "\">"sv;
    append_escaped(out, name);
    out += "</a>"sv;
    append_variant_badge(out, fn.name);
    out += "</td><td class=\"num-cell\">"sv;
    append_int(out, fn.start_line);
    out += "</td><td class=\"num-cell calls\">"sv;
    if (fn.excluded) {
      out += "<span title=\"excluded\">\u2014</span>"sv;
    } else if (opts.counts_are_lower_bounds && fn.execution_count > 0) {
      out += "\u2265\u202f"sv;
      append_int(out, fn.execution_count);
    } else {
      append_int(out, fn.execution_count);
    }
    out += "</td>"sv;
    append_metric_cell(out, done, all);
    out += "</tr>\n"sv;
  }
  out += "</tbody>\n</table>\n"sv;
}

}  // namespace

std::string render_source_page(const model::FileCov& file, std::optional<std::string_view> source,
                               std::string_view missing_reason, std::string_view crumb_html, const HtmlOptions& opts) {
  std::string out;
  append_source_page(out, file, model::totals(file), source, missing_reason, crumb_html, opts);
  return out;
}

void append_source_page(std::string& out, const model::FileCov& file, const model::Totals& totals,
                        std::optional<std::string_view> source, std::string_view missing_reason,
                        std::string_view crumb_html, const HtmlOptions& opts) {
  HtmlOut page;
  write_source_page(page, file, totals, source, missing_reason, crumb_html, opts);
  out.append(page.text());
}

void write_source_page(HtmlOut& page, const model::FileCov& file, const model::Totals& totals,
                       std::optional<std::string_view> source, std::string_view missing_reason,
                       std::string_view crumb_html, const HtmlOptions& opts) {
  std::vector<std::string_view> text = source ? split_lines(*source) : std::vector<std::string_view>{};
  // Escaped text, highlighting and ~200 bytes of markup per line: one
  // allocation for most files (the largest page comes first).
  page.reserve_total(8192 + (source ? source->size() + source->size() / 2 : 0) +
                     (text.size() + file.lines.size()) * 200);
  // The page's head and function table, made as text (one buffer per
  // thread, reused) and copied to the page before its rows.
  thread_local std::string head;
  std::string& out = head;
  out.clear();
  append_page_begin(out, opts, base_name_of(file.path), crumb_html);
  out += "<h2 class=\"path\" title=\""sv;
  append_escaped(out, file.absolute_path);
  out += "\">"sv;
  append_escaped(out, file.path);
  out += "</h2>\n"sv;
  append_totals_cards(out, totals);
  if (!source) {
    out += "<p class=\"notice\" id=\"source-missing\">Notice: source not found (<code>"sv;
    append_escaped(out, file.absolute_path);
    out += "</code>"sv;
    if (!missing_reason.empty()) {
      out += ": "sv;
      append_escaped(out, missing_reason);
    }
    out += "). Only the lines with coverage data are shown.</p>\n"sv;
  } else if (!file.lines.empty() && file.lines.back().number > text.size()) {
    fmt::format_to(
        std::back_inserter(out),
        FMT_COMPILE("<p class=\"notice\" id=\"source-stale\">Notice: the coverage data names line {} but the source "
                    "has {} lines; it may have changed since it was compiled.</p>\n"),
        file.lines.back().number, text.size());
  }
  append_function_table(out, file, opts);
  out += "<h2>Source</h2>\n"sv;
  const bool inferred = std::any_of(file.lines.begin(), file.lines.end(),
                                    [](const model::LineCov& l) { return l.inferred && l.covered(); });
  append_legend(out, LegendKind::kSource, inferred, !file.regions.empty());
  out +=
      "<table class=\"source\" id=\"source\">\n<thead hidden><tr><th>Line</th><th>Count</th><th>Branches</th>"
      "<th>Source</th></tr></thead>\n<tbody>\n";
  page.append(out);
  // One pass over the text and the (sorted) model lines together; model
  // lines past the end of the text, or all of them without a text, follow.
  CppHighlighter highlighter;
  CppHighlighter* hl = source && is_c_family_source(file.path) ? &highlighter : nullptr;
  if (hl) hl->begin_text(*source);
  RowWriter rows(page, opts);
  auto next = file.lines.begin();
  // The regions (sorted by start) that start on line `number`.
  size_t region = 0;
  auto regions_of = [&](uint32_t number) {
    while (region < file.regions.size() && file.regions[region].line_start < number) ++region;
    size_t end = region;
    while (end < file.regions.size() && file.regions[end].line_start == number) ++end;
    return LineRegions(file.regions.data() + region, end - region);
  };
  for (size_t i = 0; i < text.size(); ++i) {
    uint32_t number = uint32_t(i + 1);
    while (next != file.lines.end() && next->number < number) ++next;  // line 0: no row
    const model::LineCov* line = next != file.lines.end() && next->number == number ? &*next : nullptr;
    rows.row(number, line, regions_of(number), text[i], false, hl);
  }
  for (; next != file.lines.end(); ++next)
    if (next->number > text.size())
      rows.row(next->number, &*next, regions_of(next->number), "", source.has_value(), nullptr);
  out.clear();
  out += "</tbody>\n</table>\n"sv;
  append_page_end(out);
  page.append(out);
}

}  // namespace covkit::report::html
