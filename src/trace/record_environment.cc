#include "trace/record_environment.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>
#include <system_error>

#include "runtime/trace/trace_contract.h"
#include "util/printable.h"

namespace covkit::trace {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRuntimeName = "libcovkit-trace.so";

}  // namespace

bool is_setting(std::string_view entry, std::string_view name) {
  return entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=';
}

// Where an installed covkit's runtimes are, relative to its executable's
// directory (cmake/install.cmake bakes in the layout it installs).
#ifndef COVKIT_RUNTIME_FROM_BIN
#define COVKIT_RUNTIME_FROM_BIN "../lib/covkit"
#endif

Expected<std::string> find_runtime_library(std::string_view name) {
  const std::string runtime(name);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return Error(fmt::format("cannot find the covkit executable: {}", ec.message()));
  fs::path dir = self.parent_path();
  // Beside the executable in a build tree; in the installed layout, never
  // through the build tree (an installed covkit must not use a build's).
  for (const fs::path& p : {dir / runtime, dir / COVKIT_RUNTIME_FROM_BIN / runtime}) {
    if (!fs::is_regular_file(p, ec)) continue;
    std::string found = fs::weakly_canonical(p, ec).string();
    // ld.so splits LD_PRELOAD at spaces and colons.
    if (found.find_first_of(" :") != std::string::npos)
      return Error(fmt::format("{}: a path with a space or a colon cannot go into LD_PRELOAD",
                               util::printable(found)));
    return found;
  }
  return Error(fmt::format("{} not found next to the covkit executable ({}) nor in {}", runtime,
                           util::printable(dir.string()),
                           util::printable(fs::weakly_canonical(dir / COVKIT_RUNTIME_FROM_BIN, ec).string())));
}

std::vector<std::string> preloaded_environment(const std::vector<std::string>& environment,
                                               const std::string& library) {
  std::vector<std::string> env;
  std::string preload = library;
  for (const std::string& e : environment) {
    if (is_setting(e, "LD_PRELOAD")) {
      std::string_view old = std::string_view(e).substr(std::string_view("LD_PRELOAD=").size());
      if (!old.empty()) preload += ":" + std::string(old);
      continue;
    }
    env.push_back(e);
  }
  env.push_back("LD_PRELOAD=" + preload);
  return env;
}

std::vector<std::string> traced_environment(const std::vector<std::string>& environment,
                                            const RecordSettings& settings) {
  std::vector<std::string> env;
  std::string preload = settings.runtime;
  for (const std::string& e : environment) {
    if (is_setting(e, "LD_PRELOAD") && !settings.runtime.empty()) {
      std::string_view old = std::string_view(e).substr(std::string_view("LD_PRELOAD=").size());
      if (!old.empty()) preload += ":" + std::string(old);
      continue;
    }
    // The switches of this recording are set below or not at all: an old
    // value in the environment must not filter or silence it.
    if (is_setting(e, CKT_ENV_DIR) || (settings.max_depth && is_setting(e, CKT_ENV_MAX_DEPTH)) ||
        (settings.min_time_ns && is_setting(e, CKT_ENV_MIN_TIME_NS)) || is_setting(e, CKT_ENV_FILTERS) ||
        is_setting(e, CKT_ENV_PATCH) || is_setting(e, CKT_ENV_PATCH_LATER) || is_setting(e, CKT_ENV_SIGNAL) ||
        is_setting(e, CKT_ENV_START) || (!settings.clock.empty() && is_setting(e, CKT_ENV_CLOCK)) ||
        is_setting(e, CKT_ENV_LIBCALL) || (settings.library_calls && is_setting(e, "LD_BIND_NOW")))
      continue;
    env.push_back(e);
  }
  if (!settings.runtime.empty()) env.push_back("LD_PRELOAD=" + preload);
  env.push_back(fmt::format("{}={}", CKT_ENV_DIR, settings.dir));
  if (settings.max_depth) env.push_back(fmt::format("{}={}", CKT_ENV_MAX_DEPTH, *settings.max_depth));
  if (settings.min_time_ns) env.push_back(fmt::format("{}={}", CKT_ENV_MIN_TIME_NS, *settings.min_time_ns));
  if (!settings.filter_file.empty()) env.push_back(fmt::format("{}={}", CKT_ENV_FILTERS, settings.filter_file));
  if (!settings.patch_file.empty()) env.push_back(fmt::format("{}={}", CKT_ENV_PATCH, settings.patch_file));
  if (!settings.patch_file.empty() && settings.patch_later) env.push_back(fmt::format("{}=1", CKT_ENV_PATCH_LATER));
  if (settings.signal) env.push_back(fmt::format("{}={}", CKT_ENV_SIGNAL, settings.signal));
  if (settings.start_off) env.push_back(fmt::format("{}=off", CKT_ENV_START));
  if (!settings.clock.empty()) env.push_back(fmt::format("{}={}", CKT_ENV_CLOCK, settings.clock));
  if (settings.library_calls) {
    env.push_back(fmt::format("{}=1", CKT_ENV_LIBCALL));
    // Lazily bound slots point at the dynamic linker's resolver until
    // their first call, which then writes the function over the hook:
    // bound at load, every call goes through the hook, the first one too.
    env.push_back("LD_BIND_NOW=1");
  }
  return env;
}

std::string environment_help() {
  return fmt::format(
      "Environment given to PROG (the runtime's settings):\n"
      "  LD_PRELOAD=<dir of covkit>/{} (before any LD_PRELOAD already set)\n"
      "  {:<26} the trace directory (absolute)\n"
      "  {:<26} from --max-depth\n"
      "  {:<26} from --min-time\n"
      "  {:<26} from -F, -N, -T: DIR/{} (the functions' address ranges)\n"
      "  {:<26} from --patch: DIR/{} (the entries to patch)\n"
      "  {:<26} \"1\" with --patch, --signal and --trace-off (no -T): the\n"
      "  {:<26} entries are patched by covkit trace attach, not at load\n"
      "  {:<26} from --signal (its number)\n"
      "  {:<26} \"off\" with --trace-off\n"
      "  {:<26} from --clock tsc or mono (else kept as it is)\n"
      "  {:<26} \"1\" (library calls through the PLT), and LD_BIND_NOW=1\n"
      "  {:<26} (every slot bound at load); neither with --no-libcall\n",
      kRuntimeName, CKT_ENV_DIR, CKT_ENV_MAX_DEPTH, CKT_ENV_MIN_TIME_NS, CKT_ENV_FILTERS, CKT_FILTER_FILE,
      CKT_ENV_PATCH, CKT_PATCH_FILE, CKT_ENV_PATCH_LATER, "", CKT_ENV_SIGNAL, CKT_ENV_START, CKT_ENV_CLOCK,
      CKT_ENV_LIBCALL, "");
}

}  // namespace covkit::trace
