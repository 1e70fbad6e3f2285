#pragma once
// Coverage files into the project model: an lcov tracefile or a covkit JSON
// file is detected, read as records, and turned into a ProjectCov by lcov's
// rules (a line listed twice sums, branches add by position on their line,
// functions by name, files sorted). The one way `covkit report -a` and
// `covkit merge` read them.
#include <string>
#include <vector>

#include "format/coverage_records.h"
#include "model/path_filter.h"
#include "model/project_coverage.h"
#include "model/source_paths.h"
#include "util/expected.h"

namespace covkit::model {

// Records -> model, normalized.
ProjectCov to_model(format::CoverageRecords&& records);

// Errors are one line without the file name: "neither an lcov tracefile nor
// covkit JSON", the reader's message ("line 3: DA needs a line and a count"),
// or why the file cannot be read. What was read but left out (an lcov
// record without end_of_record) goes to `warnings`, one line each naming
// the file.
Expected<ProjectCov> load_coverage_file(const std::string& path, std::vector<std::string>& warnings);

// Adds the coverage file at `path` to `into` (`covkit merge`), test names
// included, each source as soon as it is read: what merge_project(into,
// load_coverage_file(path)) makes, without the file's whole model beside
// `into`. On an error `into` may hold part of the file.
Expected<void> add_coverage_file(ProjectCov& into, const std::string& path, std::vector<std::string>& warnings);

// Adds `path` to `into` (`covkit report -a`) in the same way, its sources
// resolved by `paths` (so --path-map and --root apply to them too) and kept
// or dropped by `filter`.
Expected<void> add_coverage_file(ProjectCov& into, const std::string& path, const SourcePathRules& paths,
                                 const PathFilter& filter, std::vector<std::string>& warnings);

// Adds a model made elsewhere (covkit sample's analysis): each file's
// absolute path resolved by `paths`, kept or dropped by `filter`, merged.
void add_project(ProjectCov& into, ProjectCov&& added, const SourcePathRules& paths, const PathFilter& filter);

}  // namespace covkit::model
