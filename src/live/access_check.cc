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

std::string user_name(uid_t uid) {
  struct passwd* pw = ::getpwuid(uid);
  return pw ? fmt::format("{} (uid {})", pw->pw_name, uid) : fmt::format("uid {}", uid);
}

}  // namespace

bool is_refusal(const Error& e) { return e.errno_value == EPERM || e.errno_value == EACCES; }

namespace {

constexpr int kCapSysPtrace = 19;  // CAP_SYS_PTRACE's bit in CapEff

// The user namespace /proc/PID/ns/user names ("user:[4026531837]"), or "".
std::string user_namespace(const std::string& pid) {
  char buf[64];
  const ssize_t n = ::readlink(fmt::format("/proc/{}/ns/user", pid).c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

std::string refused(const RefusalFacts& f) {
  return fmt::format("the kernel refused access to process {} ({})", f.pid, std::strerror(f.errno_value));
}

// Root is refused only without CAP_SYS_PTRACE (then the rules it needs it
// for), or by what that capability does not override.
std::string explain_refusal_to_root(const RefusalFacts& f) {
  if (f.effective && !(*f.effective >> kCapSysPtrace & 1)) {
    std::string why;
    if (f.ptrace_scope == 2)
      why = "which kernel.yama.ptrace_scope 2 requires of every tracer";
    else if (f.uid && *f.uid != f.euid)
      why = fmt::format("which root needs to trace another user's process (process {} belongs to user {})", f.pid,
                        f.user);
    else if (f.target_permitted && f.permitted && (*f.target_permitted & ~*f.permitted) != 0)
      why = fmt::format("which root needs to trace a process holding capabilities it lacks (process {} may use "
                        "{:#x}, covkit {:#x})",
                        f.pid, *f.target_permitted, *f.permitted);
    else if (f.ptrace_scope == 1)
      why = "which kernel.yama.ptrace_scope 1 requires to trace a process that is not covkit's child";
    else
      why = "which root needs to trace a process that made itself undumpable (setuid, prctl PR_SET_DUMPABLE)";
    return fmt::format("{}: covkit runs as root but without the CAP_SYS_PTRACE capability, {}; give covkit that "
                       "capability (a container drops it: docker run --cap-add=SYS_PTRACE)",
                       refused(f), why);
  }
  if (f.seccomp == 2)
    return fmt::format("{}, although covkit runs as root with CAP_SYS_PTRACE: covkit runs under a seccomp filter (a "
                       "container's profile?) that may forbid ptrace (docker run --security-opt seccomp=unconfined)",
                       refused(f));
  if (f.other_user_namespace)
    return fmt::format("{}, although covkit runs as root with CAP_SYS_PTRACE: process {} is in another user namespace "
                       "(another container's?), where covkit's capabilities do not count; run covkit in the "
                       "process's container",
                       refused(f), f.pid);
  return fmt::format("{}, although covkit runs as root with CAP_SYS_PTRACE: not the ptrace rules refused it but a "
                     "security module (AppArmor, SELinux, Landlock) or a sandbox covkit runs in; run covkit where "
                     "it may trace the process (in its container, outside the sandbox)",
                     refused(f));
}

}  // namespace

RefusalFacts refusal_facts(pid_t pid, const Error& e) {
  RefusalFacts f;
  f.pid = pid;
  f.errno_value = e.errno_value;
  f.euid = ::geteuid();
  f.self = ::getpid();
  const std::string status = read_small(fmt::format("/proc/{}/status", pid));
  if (auto uid = status_number(status, "Uid")) {
    f.uid = uid_t(*uid);
    f.user = user_name(*f.uid);
  }
  f.tracer = status_number(status, "TracerPid");
  f.target_permitted = status_mask(status, "CapPrm");
  const std::string own = read_small("/proc/self/status");
  f.effective = status_mask(own, "CapEff");
  f.permitted = status_mask(own, "CapPrm");
  f.seccomp = int(status_number(own, "Seccomp").value_or(0));
  const std::string scope = read_small("/proc/sys/kernel/yama/ptrace_scope");
  if (!scope.empty()) f.ptrace_scope = std::atoi(scope.c_str());
  const std::string mine = user_namespace("self"), theirs = user_namespace(std::to_string(pid));
  f.other_user_namespace = !mine.empty() && !theirs.empty() && mine != theirs;
  return f;
}

std::string explain_refusal(const RefusalFacts& f) {
  if (f.uid && f.euid != 0 && *f.uid != f.euid)
    return fmt::format("process {} belongs to user {}; only that user or root may read its counters", f.pid, f.user);
  if (f.tracer && *f.tracer != 0 && *f.tracer != f.self)
    return fmt::format("process {} is already traced by process {} (a debugger?); covkit cannot stop it while it is",
                       f.pid, *f.tracer);
  if (f.ptrace_scope && *f.ptrace_scope >= 3)
    return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 3 (no process may be "
                       "traced, not even by root, until the next boot)",
                       f.pid);
  if (f.euid == 0) return explain_refusal_to_root(f);
  if (f.ptrace_scope == 1)
    return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 1 (only a parent "
                       "may trace its children); run covkit as root, or set it to 0 with sysctl",
                       f.pid);
  if (f.ptrace_scope == 2)
    return fmt::format("the kernel refused access to process {}: kernel.yama.ptrace_scope is 2 (only root, with "
                       "CAP_SYS_PTRACE, may trace); run covkit as root",
                       f.pid);
  return fmt::format("{}: it may have made itself undumpable (setuid, prctl PR_SET_DUMPABLE); only root may read it "
                     "then",
                     refused(f));
}

std::string explain_refusal(pid_t pid, const Error& e) { return explain_refusal(refusal_facts(pid, e)); }

Error about_process(pid_t pid, const Error& e) {
  if (is_refusal(e)) return Error(explain_refusal(pid, e));
  Error out(fmt::format("process {}: {}", pid, e.message));
  out.errno_value = e.errno_value;
  return out;
}

}  // namespace covkit::live
