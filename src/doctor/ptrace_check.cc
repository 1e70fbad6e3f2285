#include "doctor/ptrace_check.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "live/proc_files.h"

namespace covkit::doctor {

namespace {

constexpr int kCapSysPtrace = 19;

constexpr const char* kChildUses = "sample record --breakpoint-handler ptrace (and static or setuid programs)";
constexpr const char* kAttachUses = "live dump/reset/report PID, trace attach PID, sample record --pid";

// The container covkit runs in, from the markers container engines leave.
std::string container_of(const MachineView& m) {
  if (m.exists("/.dockerenv")) return "docker";
  if (m.exists("/run/.containerenv")) return "podman";
  if (auto c = m.read_line("/run/systemd/container"); c && !c->empty()) return *c;
  if (auto groups = m.read("/proc/1/cgroup")) {
    for (const char* engine : {"docker", "kubepods", "lxc", "containerd"})
      if (groups->find(engine) != std::string::npos) return engine;
  }
  return "";
}

// Whether the uid map is the whole range (the initial user namespace).
bool in_user_namespace(const MachineView& m) {
  auto map = m.read("/proc/self/uid_map");
  if (!map) return false;
  std::istringstream words(*map);
  long long inside = -1, outside = -1, count = -1;
  words >> inside >> outside >> count;
  return !(inside == 0 && outside == 0 && count == 4294967295LL);
}

// PTRACE_SEIZE of a child that waits to be killed: 0, or why not.
int probe_child() {
  const pid_t child = ::fork();
  if (child < 0) return errno;
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const int result = ::ptrace(PTRACE_SEIZE, child, nullptr, nullptr) == 0 ? 0 : errno;
  ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::string scope_words(const PtraceFacts& f) {
  if (!f.yama_scope) return "no Yama";
  static const char* const kMeaning[] = {"classic: any process of the same user", "only descendants",
                                         "only with CAP_SYS_PTRACE", "no ptrace at all"};
  const int s = *f.yama_scope;
  return fmt::format("Yama ptrace_scope {}{}", s, s >= 0 && s <= 3 ? fmt::format(" ({})", kMeaning[s]) : "");
}

std::string who(const PtraceFacts& f) {
  std::string w = f.root ? "root" : "not root";
  w += f.cap_sys_ptrace ? ", with CAP_SYS_PTRACE" : ", without CAP_SYS_PTRACE";
  if (!f.container.empty()) w += fmt::format(", in a {} container", f.container);
  if (f.user_namespace) w += ", in a user namespace";
  if (f.seccomp == 2) w += ", under a seccomp filter";
  return w;
}

}  // namespace

std::vector<Finding> ptrace_findings(const PtraceFacts& f) {
  Finding child{"ptrace", Verdict::kOk, "ptrace of covkit's own children", "", kChildUses, ""};
  Finding other{"ptrace", Verdict::kOk, "ptrace of processes covkit did not start", "", kAttachUses, ""};
  const std::string facts = who(f) + "; " + scope_words(f);
  const std::string container_remedy =
      f.container.empty() ? "" : " (docker/podman run --cap-add=SYS_PTRACE; a seccomp profile that allows ptrace)";
  if (f.yama_scope && *f.yama_scope >= 3) {
    child.verdict = other.verdict = Verdict::kMissing;
    child.detail = other.detail = facts + ": the kernel refuses every ptrace until the next boot";
    child.remedy = other.remedy = "reboot with kernel.yama.ptrace_scope below 3 (it cannot be lowered at run time)";
    return {child, other};
  }
  if (f.child_probe && *f.child_probe != 0) {
    child.verdict = other.verdict = Verdict::kMissing;
    child.detail = other.detail =
        fmt::format("{}: PTRACE_SEIZE of a child failed: {}", facts, std::strerror(*f.child_probe));
    child.remedy = other.remedy = "allow ptrace" + (container_remedy.empty() ? std::string(" (a seccomp filter or a "
                                                                                           "security module forbids it)")
                                                                             : container_remedy);
    return {child, other};
  }
  child.detail = facts + (f.child_probe ? ": PTRACE_SEIZE of a child works" : "");
  const bool privileged = f.cap_sys_ptrace;  // root without it (a container) is not
  const int scope = f.yama_scope.value_or(0);
  if (scope == 2 && !privileged) {
    child.verdict = Verdict::kMissing;
    child.detail = facts + ": only a tracer with CAP_SYS_PTRACE may ptrace";
    child.remedy = f.root ? "add CAP_SYS_PTRACE" + container_remedy : "run covkit as root";
  }
  if (privileged) {
    other.detail = facts + ": any process, of any user" +
                   (f.user_namespace ? " within this user namespace" : "");
  } else if (scope == 0) {
    other.verdict = Verdict::kLimited;
    other.detail = facts + ": processes of covkit's own user only";
    other.remedy = f.root ? "add CAP_SYS_PTRACE" + container_remedy : "run covkit as root for other users' processes";
  } else {
    other.verdict = Verdict::kMissing;
    other.detail = facts + (scope == 1 ? ": only covkit's own descendants, not a process started elsewhere"
                                       : ": only a tracer with CAP_SYS_PTRACE");
    other.remedy = f.root ? "add CAP_SYS_PTRACE" + container_remedy
                          : "run covkit as root, or sudo sysctl kernel.yama.ptrace_scope=0 (processes of the "
                            "same user), or give covkit CAP_SYS_PTRACE";
  }
  return {child, other};
}

std::vector<Finding> check_ptrace(const MachineView& m) {
  PtraceFacts f;
  const std::string status = m.read("/proc/self/status").value_or("");
  // Uid: real effective saved filesystem.
  if (const size_t at = status.find("\nUid:"); at != std::string::npos) {
    std::istringstream words(status.substr(at + 5, status.find('\n', at + 1) - at - 5));
    long long real = -1, effective = -1;
    words >> real >> effective;
    f.root = effective == 0;
  }
  if (auto caps = live::status_mask(status, "CapEff")) f.cap_sys_ptrace = (*caps >> kCapSysPtrace) & 1;
  f.seccomp = int(live::status_number(status, "Seccomp").value_or(0));
  if (auto scope = m.read_number("/proc/sys/kernel/yama/ptrace_scope")) f.yama_scope = int(*scope);
  f.container = container_of(m);
  f.user_namespace = in_user_namespace(m);
  if (m.live()) f.child_probe = probe_child();
  return ptrace_findings(f);
}

}  // namespace covkit::doctor
