#pragma once
// SonarQube's generic test coverage XML (sonar.coverageReportPaths): per file
// the lines that can be covered, whether they ran, and their branch counts.
#include <string>

#include "model/project_coverage.h"

namespace covkit::report {

// Paths are FileCov::path (SonarQube resolves relative ones against the
// project base directory). Line 0, which SonarQube rejects, is left out.
std::string render_sonarqube(const model::ProjectCov& project);

}  // namespace covkit::report
