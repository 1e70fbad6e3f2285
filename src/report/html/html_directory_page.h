#pragma once
// A directory's page: the totals of everything below it, and one sortable
// table (id "files") of its subdirectories (with their totals, linking to
// their pages) followed by its files.
#include <string>

#include "model/project_coverage.h"
#include "report/html/html_options.h"
#include "report/html/html_site_map.h"

namespace covkit::report::html {

std::string render_directory_page(const model::ProjectCov& project, const SiteMap& site, const SiteDirectory& dir,
                                  const HtmlOptions& opts);

}  // namespace covkit::report::html
