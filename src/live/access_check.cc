#include "live/access_check.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

std::string read_small(const std::string& path) {
  auto text = read_proc_file(path);
  return text ? std::move(*text) : std::string();  // gone: nothing to tell
}

std::optional<long> status_field(const std::string& status, const char* name) {
  size_t at = status.find(name);
  if (at == std::string::npos) return std::nullopt;
  return std::strtol(status.c_str() + at + std::strlen(name), nullptr, 10);
}

std::string user_name(uid_t uid) {
  struct passwd* pw = ::getpwuid(uid);
  return pw ? fmt::format("{} (uid {})", pw->pw_name, uid) : fmt::format("uid {}", uid);
}

}  // namespace

bool is_refusal(const Error& e) { return e.errno_value == EPERM || e.errno_value == EACCES; }

std::string explain_refusal(pid_t pid, const Error& e) {
  std::string status = read_small(fmt::format("/proc/{}/status", pid));
  auto uid = status_field(status, "\nUid:");
  auto tracer = status_field(status, "\nTracerPid:");
  uid_t me = ::geteuid();
  if (uid && me != 0 && uid_t(*uid) != me)
    return fmt::format("process {} belongs to user {}; only that user or root may read its counters", pid,
                       user_name(uid_t(*uid)));
  if (tracer && *tracer != 0 && *tracer != ::getpid())
    return fmt::format("process {} is already traced by process {} (a debugger?); covkit cannot stop it while it is",
                       pid, *tracer);
  std::string scope = read_small("/proc/sys/kernel/yama/ptrace_scope");
  if (!scope.empty() && me != 0) {
    int s = std::atoi(scope.c_str());
    if (s == 1)
      return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 1 (only a parent "
                         "may trace its children); run covkit as root, or set it to 0 with sysctl",
                         pid);
    if (s == 2)
      return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 2 (only root, with "
                         "CAP_SYS_PTRACE, may trace); run covkit as root",
                         pid);
    if (s >= 3)
      return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 3 (no process may be "
                         "traced until the next boot)",
                         pid);
  }
  return fmt::format("the kernel refused access to process {} ({}): it may have made itself undumpable (setuid, "
                     "prctl PR_SET_DUMPABLE); only root may read it then",
                     pid, std::strerror(e.errno_value));
}

}  // namespace covkit::live
