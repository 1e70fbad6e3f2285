#pragma once
// What llvm-cov gcov (LLVM 14) prints and writes for one argument whose notes
// are clang's: the function and file summaries, the annotated sources
// (.gcov), and its messages. Counts are model/llvm_gcov.h's. llvm-cov reads
// each argument on its own, so a run is these actions argument after
// argument.
#include <optional>
#include <string>

#include "model/gcov_session.h"
#include "model/llvm_gcov.h"
#include "report/gcov/gcov_actions.h"
#include "report/gcov/gcov_run.h"

namespace covkit::report {

void plan_llvm_gcov(const GcovOptions& o, const std::string& arg, const model::LoadedObject& obj,
                    ActionList& actions);

// The object's counts as llvm-cov reads them, its messages and exit status
// into `actions`; nullopt where llvm-cov stops (notes missing or damaged, a
// data file that exists but cannot be read). `data_name` is the header's
// ("-" when the object never ran).
std::optional<model::LlvmObject> read_llvm_object(const model::LoadedObject& obj, ActionList& actions,
                                                  std::string& data_name);
// llvm-cov's "Lines executed:..." summary lines; a source's name after -s.
std::string llvm_summary_text(const model::LlvmSummary& s, bool branches);
std::string llvm_display_name(const std::string& filename, const std::string& prefix);

}  // namespace covkit::report
