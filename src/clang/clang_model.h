#pragma once
// Clang's source-based coverage into the project model that every report
// renders, file by file as llvm-cov's lcov export states it: a line's count
// and whether it is code (the line rules of coverage_segments.h), its
// branches (each condition's true and false counts; those of a macro on the
// line where it is used), the functions defined in the file (each template
// instantiation its own, named by its mangled name), their regions, and the
// file's counted regions for the HTML view.
#include <string>
#include <vector>

#include "clang/function_records.h"
#include "model/path_filter.h"
#include "model/project_coverage.h"
#include "model/source_paths.h"

namespace covkit::clang {

// Counts below zero (llvm-cov shows them as 2^64 - n) read as 0, and each
// file that has some gets a line in `warnings`. `instances`: each line also
// names every function's own count of it (LineCov::instances, for
// --show-instantiations).
model::ProjectCov to_project_model(const CoverageSet& set, const model::SourcePathRules& paths,
                                   const model::PathFilter& filter, std::vector<std::string>* warnings = nullptr,
                                   bool instances = false, unsigned threads = 1);

// One file's part of the above (tests look at files one by one); `warning`
// receives its negative counts' line.
model::FileCov file_model(const CoverageSet& set, const std::string& filename, std::string* warning = nullptr,
                          bool instances = false);

}  // namespace covkit::clang
