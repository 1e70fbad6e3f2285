#pragma once
// The HTML report: a static site that works offline.
//   index.html         totals and a sortable per-directory table of files
//   <page per dir>     its subdirectories and files (html_directory_page.h)
//   <page per file>    annotated source (see html_source_page.h)
//   .covkit-html       the marker listing what covkit wrote (html_site_dir.h)
//   style.css, sort.js the embedded assets (html_assets.h)
#include <functional>
#include <string>

#include "model/project_coverage.h"
#include "report/html/html_options.h"
#include "util/expected.h"

namespace covkit::report::html {

// Writes the site into `out_dir` (created, with its parents, when missing),
// replacing the previous site there as a whole (html_site_dir.h): a run that
// fails leaves the old site. A non-empty directory that is not a covkit site
// is refused. The error is one line naming the directory or file. Source
// texts are read from each FileCov.absolute_path; a missing source is noted
// on its page, not an error.
//
// `alongside`, when given, is other work of the caller (its text outputs)
// run on the threads that render the pages, as the first of their jobs: so
// it takes one core while the other renders pages, on threads whose memory
// is already at hand. It runs only when the pages are rendered (not after
// an error in making the site); the caller checks that it ran.
Expected<void> write_html_site(const model::ProjectCov& project, const HtmlOptions& opts, const std::string& out_dir,
                               const std::function<void()>& alongside = {});

}  // namespace covkit::report::html
