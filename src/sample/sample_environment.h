#pragma once
// What the sampled program gets from `covkit sample record`: the sampling
// runtime preloaded and its settings (the variables of
// runtime/sample/sample_contract.h).
#include <cstdint>
#include <string>
#include <vector>

namespace covkit::sample {

inline constexpr const char* kSampleRuntimeName = "libcovkit-sample.so";

struct SampleSettings {
  std::string dir;  // absolute recording directory
  bool branch = true;  // single-step after each tick (false: pc only)
  bool breakpoint = false;  // breakpoint mode: the runtime plants and takes int3s
  std::string plan_socket;  // breakpoint mode: the plan server (plan_server.h)
  uint64_t period_ns = 0;
  uint32_t vector_length = 0;
  std::string runtime;  // libcovkit-sample.so to preload
};

// `environment` (NAME=VALUE entries) with every COVKIT_SAMPLE_* replaced by
// `settings` and the runtime first in LD_PRELOAD.
std::vector<std::string> sampled_environment(const std::vector<std::string>& environment,
                                             const SampleSettings& settings);

// The runtime's settings as `covkit sample record --help` lists them.
std::string sample_environment_help();

}  // namespace covkit::sample
