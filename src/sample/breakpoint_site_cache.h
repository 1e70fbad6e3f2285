#pragma once
// Breakpoint sites computed once per build: building the CFGs of a large
// executable costs a few hundred milliseconds, which breakpoint mode would
// otherwise pay in every process of a workload (a test suite runs the same
// binary hundreds of times). A build-id names one build exactly, so the
// sites are kept under it, in $XDG_CACHE_HOME/covkit/breakpoint-sites (or
// ~/.cache/...): one file per build-id, analysis version and build of
// covkit itself. A module
// without a build-id is never cached; a cache that cannot be read or written
// is ignored (the sites are computed again).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace covkit::sample {

// Bumped whenever breakpoint_sites() would choose other sites.
inline constexpr uint32_t kBreakpointSitesVersion = 1;

// The cache directory from the environment; "" when neither XDG_CACHE_HOME
// nor HOME is set.
std::string default_site_cache_dir();

std::optional<std::vector<uint64_t>> load_cached_sites(const std::string& cache_dir, const std::string& build_id);
void store_cached_sites(const std::string& cache_dir, const std::string& build_id, const std::vector<uint64_t>& sites);

}  // namespace covkit::sample
