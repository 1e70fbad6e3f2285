#pragma once
#include <string_view>
#include <vector>

#include "clang/clang_inputs.h"
#include "cli/report_options.h"
#include "format/object_files.h"
#include "model/project_coverage.h"

namespace covkit::cli {

// `covkit report`: argv[0] is "report".
int run_report_command(int argc, char** argv);

// The report's stages once its objects are known (found under build trees,
// or a running program's snapshot for `covkit live report`): the model,
// tracefiles, filters, every view asked for, the gates; the exit status.
// `command` starts every message ("covkit report").
int report_objects(const ReportOptions& o, const std::vector<format::ObjectFiles>& objects, std::string_view command);
// The same with clang's source-based coverage beside gcov's objects:
// profiles and the binaries whose coverage mapping reads them.
int report_objects(const ReportOptions& o, const std::vector<format::ObjectFiles>& objects,
                   const clang::ClangInputs& clang_inputs, std::string_view command);

// The stages after the objects: tracefiles added, filters, views, gates.
// For models that come from elsewhere (`covkit sample report`).
int report_project(const ReportOptions& o, model::ProjectCov project, std::string_view command);
// The same for coverage measured another way (`sample report`, `blocks
// report`): its paths mapped (--root, --source-prefix, --path-map) and
// filtered by the report's options first.
int report_coverage(const ReportOptions& o, model::ProjectCov coverage, std::string_view command);

}  // namespace covkit::cli
