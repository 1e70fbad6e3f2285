#pragma once
// The ways `covkit sample record` can observe an uninstrumented program.
#include <optional>
#include <string_view>

namespace covkit::sample {

enum class SampleMode {
  branch,      // sampled branch vectors (hardware branch stack, or single-step emulation)
  breakpoint,  // one-shot int3 at every block that dominators do not imply
  pc,          // plain PC sampling (the baseline)
};

std::string_view mode_name(SampleMode mode);
std::optional<SampleMode> parse_mode(std::string_view name);

}  // namespace covkit::sample
