#pragma once
// The Coveralls JSON API job format (what `coveralls` uploaders POST to
// /api/v1/jobs): per source file its name, an MD5 of its contents, one entry
// per source line (null = not relevant, else the hit count) and branches.
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

struct CoverallsOptions {
  std::string service_name = "covkit";
  std::string service_job_id;  // omitted when empty
  std::string repo_token;      // omitted when empty; a secret, so only from the caller
};

// Reads each FileCov::absolute_path for its digest and line count; an
// unreadable source gets "source_digest": "" and coverage up to its last line.
std::string render_coveralls(const model::ProjectCov& project, const CoverallsOptions& options = {});

}  // namespace covkit::report
