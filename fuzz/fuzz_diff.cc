// Fuzzes the unified-diff parser behind `covkit report --diff`: no input may
// crash it, and what it accepts must be well formed (ranges ordered, first <= last).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/diff_lines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto changed = covkit::model::parse_unified_diff(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!changed) return 0;
  for (const auto& [path, ranges] : changed->ranges)
    for (size_t i = 0; i < ranges.size(); ++i) {
      if (ranges[i].first > ranges[i].second) std::abort();
      if (i > 0 && ranges[i - 1].first > ranges[i].first) std::abort();
      (void)changed->contains(path, ranges[i].first);
    }
  return 0;
}
