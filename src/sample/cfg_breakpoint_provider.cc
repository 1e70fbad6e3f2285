#include "sample/cfg_breakpoint_provider.h"

#include "sample/sample_analysis.h"

namespace covkit::sample {

BreakpointProvider cfg_breakpoint_provider(std::vector<std::string> skip_prefixes) {
  return [skip = std::move(skip_prefixes)](const ModuleIdentity& m) -> Expected<std::vector<uint64_t>> {
    for (const std::string& prefix : skip)
      if (m.path.starts_with(prefix)) return std::vector<uint64_t>{};
    return breakpoint_sites(m.path);
  };
}

}  // namespace covkit::sample
