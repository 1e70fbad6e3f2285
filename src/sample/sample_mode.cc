#include "sample/sample_mode.h"

namespace covkit::sample {

std::string_view mode_name(SampleMode mode) {
  switch (mode) {
    case SampleMode::branch: return "branch";
    case SampleMode::breakpoint: return "breakpoint";
    case SampleMode::pc: return "pc";
  }
  return "branch";
}

std::optional<SampleMode> parse_mode(std::string_view name) {
  for (SampleMode m : {SampleMode::branch, SampleMode::breakpoint, SampleMode::pc})
    if (mode_name(m) == name) return m;
  return std::nullopt;
}

}  // namespace covkit::sample
