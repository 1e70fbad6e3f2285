#pragma once
// What the traced program gets from `covkit trace record`: the runtime
// preloaded and its settings (the variables of trace_contract.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::trace {

struct RecordSettings {
  std::string dir;                   // absolute trace directory
  std::optional<uint32_t> max_depth;
  std::optional<uint64_t> min_time_ns;
  std::string runtime;               // libcovkit-trace.so to preload; "" for --static
  std::string filter_file;           // CKT_ENV_FILTERS: "" when no -F/-N/-T
  std::string patch_file;            // CKT_ENV_PATCH: "" when no --patch
  bool patch_later = false;          // CKT_ENV_PATCH_LATER=1: left to covkit trace attach
  int signal = 0;                    // CKT_ENV_SIGNAL: 0 when no --signal
  bool start_off = false;            // CKT_ENV_START=off (--trace-off)
  std::string clock;                 // CKT_ENV_CLOCK: "tsc" or "mono" (--clock); "" leaves the environment's
  // CKT_ENV_LIBCALL=1 and LD_BIND_NOW=1: calls into shared libraries
  // recorded through the PLT, every slot bound at load (--no-libcall: off).
  bool library_calls = true;
};

// Whether the environment entry `entry` ("NAME=VALUE") sets `name`.
bool is_setting(std::string_view entry, std::string_view name);

// libcovkit-trace.so (or another runtime `name`, such as covkit sample's)
// next to the running covkit executable (build tree), or in ../lib or
// ../lib/covkit (installed); it must fit into LD_PRELOAD.
Expected<std::string> find_runtime_library(std::string_view name = "libcovkit-trace.so");

// `environment` with `library` put before any LD_PRELOAD already there.
std::vector<std::string> preloaded_environment(const std::vector<std::string>& environment,
                                               const std::string& library);

// `environment` (NAME=VALUE entries) with the runtime's settings replaced
// and the runtime put before any LD_PRELOAD already there.
std::vector<std::string> traced_environment(const std::vector<std::string>& environment,
                                            const RecordSettings& settings);

// The runtime's settings as `covkit trace record --help` lists them.
std::string environment_help();

}  // namespace covkit::trace
