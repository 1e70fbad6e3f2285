#include "sample/cfg_breakpoint_provider.h"

#include "sample/breakpoint_site_cache.h"
#include "sample/sample_analysis.h"

namespace covkit::sample {

BreakpointProvider cfg_breakpoint_provider(std::vector<std::string> skip_prefixes, std::string cache_dir) {
  return [skip = std::move(skip_prefixes),
          cache = std::move(cache_dir)](const ModuleIdentity& m) -> Expected<std::vector<uint64_t>> {
    for (const std::string& prefix : skip)
      if (m.path.starts_with(prefix)) return std::vector<uint64_t>{};
    if (auto cached = load_cached_sites(cache, m.build_id)) return std::move(*cached);
    auto sites = breakpoint_sites(m.path);
    if (sites) store_cached_sites(cache, m.build_id, *sites);
    return sites;
  };
}

}  // namespace covkit::sample
