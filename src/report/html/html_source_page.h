#pragma once
// One source file's page: its totals, its functions (id "functions"), and
// its text (id "source") with one row per line (id "L<number>", class
// covered / uncovered / partial / excluded / nocode), counts, branch details
// and, optionally, per-instantiation counts. Constructor and destructor
// variants (C1/C2/C3, D0/D1/D2), which share a name, are labelled
// (html_function_name.h).
#include <optional>
#include <string>
#include <string_view>

#include "model/project_coverage.h"
#include "report/html/html_options.h"

namespace covkit::report::html {

class HtmlOut;

// `source` is the file's text, or none when it could not be read (then only
// the lines the model knows are shown, under a notice giving `missing_reason`).
// C and C++ text is highlighted (cpp_highlight.h). `crumb_html` is the
// header's path, its directories linked (SiteMap::append_linked_path).
std::string render_source_page(const model::FileCov& file, std::optional<std::string_view> source,
                               std::string_view missing_reason,
                               std::string_view crumb_html, const HtmlOptions& opts);
// The same page appended to `out` (a buffer reused from page to page: a
// fresh one per page is megabytes of fresh memory to fault in); `totals`
// are model::totals(file), which the site has counted for its tables.
void append_source_page(std::string& out, const model::FileCov& file, const model::Totals& totals,
                        std::optional<std::string_view> source, std::string_view missing_reason,
                        std::string_view crumb_html, const HtmlOptions& opts);
// The same page written to `page` (html_out.h: the site's buffer, written
// out as it is).
void write_source_page(HtmlOut& page, const model::FileCov& file, const model::Totals& totals,
                       std::optional<std::string_view> source, std::string_view missing_reason,
                       std::string_view crumb_html, const HtmlOptions& opts);

}  // namespace covkit::report::html
