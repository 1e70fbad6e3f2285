#pragma once
// covkit trace record --patch: the functions built with
// -fpatchable-function-entry that PATTERNs name, as the sites the runtime
// patches at load (CKT_ENV_PATCH; format in runtime/trace/trace_contract.h).
// Patterns are matched as the filters' are (record_filters.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/record_filters.h"

namespace covkit::trace {

struct PatchSite {
  std::string module;  // path as the dynamic loader names it
  uint64_t site = 0;   // the function's entry (its symbol's address)
  std::string name;    // the symbol
};

struct PatchPlan {
  std::vector<PatchSite> sites;        // sorted by module, then site
  std::vector<std::string> unmatched;  // patterns that named no patchable function
  size_t patchable = 0;                // patchable functions found in all modules
  // The patterns again, for libraries loaded later (the runtime matches
  // them against symbol names when each loads): (exact, text).
  std::vector<std::pair<bool, std::string>> later;
};

// Functions with a patchable entry in `modules` that `patterns` name.
PatchPlan plan_patches(const std::vector<FilterRule>& patterns, const std::vector<std::string>& modules);

// The patch file's text.
std::string patch_file_text(const PatchPlan& plan);

}  // namespace covkit::trace
