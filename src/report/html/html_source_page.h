#pragma once
// One source file's page: its totals, its functions (id "functions"), and
// its text (id "source") with one row per line (id "L<number>", class
// covered / uncovered / partial / excluded / nocode), counts, branch details
// and, optionally, per-instantiation counts.
#include <string>
#include <string_view>

#include "model/project_coverage.h"
#include "report/html/html_options.h"

namespace covkit::report::html {

// `source` is the file's text, or null when it could not be read (then only
// the lines the model knows are shown, under a notice giving `missing_reason`).
std::string render_source_page(const model::FileCov& file, const std::string* source, std::string_view missing_reason,
                               const HtmlOptions& opts);

}  // namespace covkit::report::html
