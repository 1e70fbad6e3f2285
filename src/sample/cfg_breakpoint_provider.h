#pragma once
// The breakpoint plan `covkit sample record --mode breakpoint` uses: for
// each module it finds mapped, the block starts the CFG analysis says are
// not implied by others (sample_analysis.h, breakpoint_sites). Modules the
// analysis would leave out (system libraries, by prefix) are not planted:
// their hits would cost stops and tell the report nothing.
#include <string>
#include <vector>

#include "sample/breakpoint_plan.h"

namespace covkit::sample {

// `cache_dir`: where sites are kept per build-id (breakpoint_site_cache.h);
// "" computes them every time.
BreakpointProvider cfg_breakpoint_provider(std::vector<std::string> skip_prefixes, std::string cache_dir);

}  // namespace covkit::sample
