#pragma once
// index.html: the project's totals and one sortable table (id "files") with a
// collapsible group per directory, each file linking to its page.
#include <string>
#include <vector>

#include "model/project_coverage.h"
#include "report/html/html_options.h"

namespace covkit::report::html {

// `page_names[i]` is the page of `project.files[i]`.
std::string render_index_page(const model::ProjectCov& project, const std::vector<std::string>& page_names,
                              const HtmlOptions& opts);

}  // namespace covkit::report::html
