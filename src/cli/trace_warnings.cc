#include "cli/trace_warnings.h"

#include <cstdio>

#include "util/printable.h"

namespace covkit::cli {

void print_trace_warnings(const char* command, const std::vector<std::string>& warnings) {
  constexpr size_t kShownWarnings = 20;
  for (size_t i = 0; i < warnings.size() && i < kShownWarnings; ++i)
    std::fprintf(stderr, "covkit trace %s: warning: %s\n", command, util::printable(warnings[i]).c_str());
  if (warnings.size() > kShownWarnings)
    std::fprintf(stderr, "covkit trace %s: warning: %zu more problems\n", command, warnings.size() - kShownWarnings);
}

}  // namespace covkit::cli
