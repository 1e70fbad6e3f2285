#include "cli/sample_options.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "cli/command_line.h"
#include "model/source_paths.h"

namespace covkit::cli {

void add_sample_analysis_options(CLI::App& app, SampleAnalysisFlags& flags) {
  app.add_option("--inference", flags.inference,
                 "Blocks added to those observed: none; dominators (sound: a block that ran had its dominators "
                 "run); shye (also post-dominators, as the 2005 paper: wrong where a call does not return); "
                 "sound (post-dominators too, but never across a call) [default: dominators]. A recording attached "
                 "to a running process (--pid) proves only what ran in its window: dominators are never inferred "
                 "there, only the blocks after a block seen (sound post-dominators)")
      ->check(CLI::IsMember({"none", "dominators", "shye", "sound"}))
      ->type_name("MODE")
      ->group("Analysis");
  app.add_flag("--include-system", flags.include_system,
               "Also analyse system libraries (/lib, /usr/lib: libc and the like)")
      ->group("Analysis");
}

sample::AnalysisOptions make_analysis_options(const SampleAnalysisFlags& flags, const std::string& root) {
  sample::AnalysisOptions a;
  a.inference = sample::parse_inference_mode(flags.inference).value_or(sample::InferenceMode::dominators);
  a.source_root = model::SourcePathRules(root, "", {}).root();
  if (flags.include_system) a.skip_prefixes.clear();
  return a;
}

void print_analysis_warnings(std::string_view command, const sample::SampleCoverage& cov) {
  for (const std::string& w : cov.warnings) fail(command, "", "warning: " + w, 0);
  for (const std::string& n : cov.notes) fail(command, "", "note: " + n, 0);
  for (const sample::ModuleSummary& m : cov.modules)
    for (const std::string& w : m.warnings) fail(command, "", "warning: " + w, 0);
}

std::optional<int> refuse_missing_paths(std::string_view command, const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return fail(command, p, std::strerror(errno));
  }
  return std::nullopt;
}

}  // namespace covkit::cli
