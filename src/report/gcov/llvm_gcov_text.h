#pragma once
// What llvm-cov gcov (LLVM 14) prints and writes for one argument whose notes
// are clang's: the function and file summaries, the annotated sources
// (.gcov), and its messages. Counts are model/llvm_gcov.h's. llvm-cov reads
// each argument on its own, so a run is these actions argument after
// argument.
#include <string>

#include "model/gcov_session.h"
#include "report/gcov/gcov_actions.h"
#include "report/gcov/gcov_run.h"

namespace covkit::report {

void plan_llvm_gcov(const GcovOptions& o, const std::string& arg, const model::LoadedObject& obj,
                    ActionList& actions);

}  // namespace covkit::report
