#pragma once
// index.html: the project's totals and one sortable table (id "files") with a
// collapsible group per directory (the project's directories first), each
// naming its directory page and listing its files, which link to theirs.
#include <string>

#include "model/project_coverage.h"
#include "report/html/html_options.h"
#include "report/html/html_site_map.h"

namespace covkit::report::html {

std::string render_index_page(const model::ProjectCov& project, const SiteMap& site, const HtmlOptions& opts);

}  // namespace covkit::report::html
