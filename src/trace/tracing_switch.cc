#include "trace/tracing_switch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <string_view>
#include <thread>

#include "live/proc_files.h"
#include "live/process_tree.h"
#include "runtime/trace/trace_contract.h"
#include "trace/record_environment.h"

namespace covkit::trace {

namespace {

std::string_view setting(std::string_view environ, std::string_view name) {
  size_t pos = 0;
  while (pos < environ.size()) {
    size_t end = environ.find('\0', pos);
    if (end == std::string_view::npos) end = environ.size();
    std::string_view entry = environ.substr(pos, end - pos);
    if (is_setting(entry, name)) return entry.substr(name.size() + 1);
    pos = end + 1;
  }
  return {};
}

// How long attach waits for a program that covkit trace record is still
// starting: its exec, then the runtime's handler (installed when it loads).
constexpr std::chrono::seconds kStartWait{5};

// What PID's environment says (the body of find_traced_process).
Expected<TracedProcess> from_environment(pid_t pid) {
  if (pid <= 0) return Error(fmt::format("{}: not a process id", pid));
  const std::string path = fmt::format("/proc/{}/environ", pid);
  // A process inside its exec has no environment for a moment: waited for.
  auto env = live::read_settled_proc_file(pid, "environ", kStartWait);
  if (!env) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return Error(fmt::format("process {} does not exist", pid));
    return Error(fmt::format("cannot read {}: {}", path, env.error().message));
  }
  std::string_view all(*env);
  TracedProcess p;
  p.pid = pid;
  p.dir = std::string(setting(all, CKT_ENV_DIR));
  if (p.dir.empty())
    return Error(fmt::format("process {} was not started by covkit trace record (no {} in its environment)", pid,
                             CKT_ENV_DIR));
  std::string_view sig = setting(all, CKT_ENV_SIGNAL);
  int n = 0;
  for (char c : sig) n = c >= '0' && c <= '9' && n < 1000 ? n * 10 + (c - '0') : -1;
  if (sig.empty() || n <= 0 || n >= NSIG)
    return Error(fmt::format("process {} was recorded without --signal, so its tracing cannot be switched "
                             "(covkit trace record --signal USR2 --trace-off -- PROG)",
                             pid));
  p.signal = n;
  p.patch = !setting(all, CKT_ENV_PATCH).empty();
  return p;
}

// Whether PID is `covkit trace record` itself: what `$!` names after
// `covkit trace record ... -- ./server &`.
bool is_trace_recorder(pid_t pid) {
  const std::vector<std::string> words = live::process_command_line(pid);
  return words.size() >= 3 && words[1] == "trace" && words[2] == "record";
}

// The program a `covkit trace record` process runs, once it has exec'd
// with the runtime's settings (waiting up to kStartWait for that).
Expected<TracedProcess> program_of_recorder(pid_t recorder) {
  const auto deadline = std::chrono::steady_clock::now() + kStartWait;
  for (;;) {
    for (pid_t child : live::descendants(recorder))
      if (auto p = from_environment(child)) {
        p->recorder = recorder;
        return p;
      }
    if (std::chrono::steady_clock::now() > deadline || !live::process_running(recorder))
      return Error(fmt::format("process {} is covkit trace record, and no program it started has the tracing "
                               "runtime's settings: give the traced program's process id",
                               recorder));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The runtime installs its handler for the switch when it loads, before
// main (and a handler PROG installs later keeps it caught); until then the
// signal's default action, for USR1 and USR2, kills the program. So wait a
// moment for it to be caught (or ignored: then it does no harm), and refuse
// to send it otherwise.
Expected<void> wait_until_caught(const TracedProcess& process) {
  const auto deadline = std::chrono::steady_clock::now() + kStartWait;
  for (;;) {
    auto status = live::read_proc_file(fmt::format("/proc/{}/status", process.pid));
    if (!status) return Error(fmt::format("process {} does not exist", process.pid));
    const uint64_t handled =
        live::status_mask(*status, "SigCgt").value_or(0) | live::status_mask(*status, "SigIgn").value_or(0);
    if (live::has_signal(handled, process.signal)) return {};
    if (std::chrono::steady_clock::now() > deadline)
      return Error(fmt::format("process {} does not catch signal {}: its tracing runtime is not loaded (yet), "
                               "and the signal would kill it; not sent",
                               process.pid, process.signal));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

}  // namespace

Expected<TracedProcess> find_traced_process(pid_t pid) {
  auto p = from_environment(pid);
  if (p || pid <= 0 || !is_trace_recorder(pid)) return p;
  return program_of_recorder(pid);
}

Expected<void> switch_tracing(const TracedProcess& process, bool on) {
  if (auto caught = wait_until_caught(process); !caught) return caught;
  union sigval value {};
  value.sival_int = on ? CKT_SIGNAL_VALUE_ON : CKT_SIGNAL_VALUE_OFF;
  if (::sigqueue(process.pid, process.signal, value) != 0)
    return Error(fmt::format("cannot signal process {}: {}", process.pid, std::strerror(errno)));
  return {};
}

bool wait_for_process(pid_t pid, double seconds) {
  interrupted = 0;
  struct sigaction sa {}, old_int {}, old_term {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(seconds < 0 ? 0 : seconds);
  bool ended = false;
  while (!interrupted) {
    int wait_ms = 100;
    if (seconds >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
      if (left <= 0) break;
      wait_ms = int(std::min<long long>(left, 100));
    }
    if (pidfd >= 0) {
      struct pollfd p {pidfd, POLLIN, 0};
      if (::poll(&p, 1, wait_ms) > 0) {
        ended = true;
        break;
      }
    } else {
      if (::kill(pid, 0) != 0 && errno == ESRCH) {
        ended = true;
        break;
      }
      ::usleep(useconds_t(wait_ms) * 1000);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return ended;
}

}  // namespace covkit::trace
