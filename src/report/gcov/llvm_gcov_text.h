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

// What the text and JSON outputs start from: the object's counts as
// llvm-cov reads them and its per-source tables; its messages, exit status
// and -f summaries go to `actions` first. nullopt where llvm-cov stops
// (notes missing or damaged, a data file that exists but cannot be read).
struct LlvmRun {
  model::LlvmObject obj;
  std::vector<model::LlvmSource> sources;
  std::string data_name;  // as the header shows it ("-": never ran)
};
std::optional<LlvmRun> start_llvm_gcov(const GcovOptions& o, const model::LoadedObject& obj, ActionList& actions);
// llvm-cov's "Lines executed:..." summary lines; a source's name after -s.
std::string llvm_summary_text(const model::LlvmSummary& s, bool branches);
std::string llvm_display_name(const std::string& filename, const std::string& prefix);

}  // namespace covkit::report
