#include "doctor/limits_check.h"

#include <fmt/format.h>

#include <optional>
#include <sstream>
#include <string>

namespace covkit::doctor {

namespace {

struct LimitPair {
  std::string soft, hard;  // numbers or "unlimited"
};

// A line of /proc/self/limits: "Max open files  1024  1048576  files".
std::optional<LimitPair> process_limit(const std::string& limits, std::string_view name) {
  std::istringstream lines(limits);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(name)) continue;
    std::istringstream words(line.substr(name.size()));
    LimitPair p;
    words >> p.soft >> p.hard;
    if (!p.soft.empty()) return p;
  }
  return std::nullopt;
}

std::string bytes_text(const std::string& value) {
  if (value == "unlimited") return value;
  const double b = std::strtod(value.c_str(), nullptr);
  if (b >= 1 << 30) return fmt::format("{:.1f} GiB", b / double(1 << 30));
  if (b >= 1 << 20) return fmt::format("{:.1f} MiB", b / double(1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.0f} KiB", b / double(1 << 10));
  return value + " bytes";
}

}  // namespace

std::vector<Finding> check_limits(const MachineView& m) {
  std::vector<Finding> out;
  if (auto pid_max = m.read_number("/proc/sys/kernel/pid_max"))
    out.push_back({"limits", Verdict::kInfo, fmt::format("kernel.pid_max {}", *pid_max),
                   "process and thread ids go up to it; a thread's trace stream is named by its id",
                   "trace record, live --children, sample record", ""});
  if (auto threads = m.read_number("/proc/sys/kernel/threads-max"))
    out.push_back({"limits", Verdict::kInfo, fmt::format("kernel.threads-max {}", *threads),
                   "threads a traced program may have at once (one trace stream each)", "trace record", ""});
  const std::string limits = m.read("/proc/self/limits").value_or("");
  if (auto files = process_limit(limits, "Max open files")) {
    Finding f{"limits", Verdict::kInfo, fmt::format("open files {} (hard {})", files->soft, files->hard),
              "trace replay and report open a stream per thread and raise the soft limit to the hard one",
              "trace replay/report of programs with many threads", ""};
    if (files->hard != "unlimited" && std::strtoll(files->hard.c_str(), nullptr, 10) < 4096) {
      f.verdict = Verdict::kLimited;
      f.remedy = "ulimit -Hn 65536 (as root), or LimitNOFILE= in a service";
    }
    out.push_back(f);
  }
  if (auto size = process_limit(limits, "Max file size")) {
    Finding f{"limits", Verdict::kInfo, fmt::format("file size {}", bytes_text(size->soft)),
              "trace and sample files stop growing at it (recording stops, the program goes on)",
              "trace record, sample record", ""};
    if (size->soft != "unlimited") {
      f.verdict = Verdict::kLimited;
      f.remedy = "ulimit -f unlimited";
    }
    out.push_back(f);
  }
  if (auto locked = process_limit(limits, "Max locked memory")) {
    std::string detail = "perf's ring buffers count against it";
    if (auto kb = m.read_number("/proc/sys/kernel/perf_event_mlock_kb"))
      detail += fmt::format(" beyond kernel.perf_event_mlock_kb ({} KiB per user)", *kb);
    out.push_back({"limits", Verdict::kInfo, fmt::format("locked memory {}", bytes_text(locked->soft)), detail,
                   "sample record --source perf", ""});
  }
  if (auto rate = m.read_number("/proc/sys/kernel/perf_event_max_sample_rate"))
    out.push_back({"limits", Verdict::kInfo, fmt::format("kernel.perf_event_max_sample_rate {}", *rate),
                   "the most samples a second the kernel takes per CPU (it lowers it when sampling costs too much)",
                   "sample record --source perf", ""});
  return out;
}

}  // namespace covkit::doctor
