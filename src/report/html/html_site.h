#pragma once
// The HTML report: a static site that works offline.
//   index.html         totals and a sortable per-directory table of files
//   <page per file>    annotated source (see html_source_page.h)
//   style.css, sort.js the embedded assets (html_assets.h)
#include <string>

#include "model/project_coverage.h"
#include "report/html/html_options.h"

namespace covkit::report::html {

// Writes the site into `out_dir` (created, with its parents, when missing).
// Every file is written atomically. On failure returns false with a one-line
// message naming the file in `error`. Source texts are read from each
// FileCov.absolute_path; a missing source is noted on its page, not an error.
bool write_html_site(const model::ProjectCov& project, const HtmlOptions& opts, const std::string& out_dir,
                     std::string* error);

}  // namespace covkit::report::html
