#pragma once
// A GitHub-flavoured markdown coverage summary for pull-request comments and
// CI job summaries ($GITHUB_STEP_SUMMARY): overall totals, then per file.
#include <cstddef>
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

struct MarkdownOptions {
  std::string title = "Coverage report";  // the "## " heading
  // Show only the `max_files` files with the lowest line coverage (still
  // listed by path); 0 shows every file.
  size_t max_files = 0;
};

std::string render_markdown(const model::ProjectCov& project, const MarkdownOptions& options = {});

}  // namespace covkit::report
