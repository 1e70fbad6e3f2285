#pragma once
// `covkit gcov -j` on clang's files: gcov's JSON document (format 1) with
// the counts llvm-cov gcov computes (model/llvm_gcov.h), so that a JSON
// reader (lcov given covkit as its gcov) sees what covkit's text output and
// covkit report show. llvm-cov itself has no JSON output.
#include <string>

#include "model/gcov_session.h"
#include "report/gcov/gcov_actions.h"
#include "report/gcov/gcov_run.h"

namespace covkit::report {

void plan_llvm_gcov_json(const GcovOptions& o, const std::string& arg, const model::LoadedObject& obj,
                         ActionList& actions);

}  // namespace covkit::report
