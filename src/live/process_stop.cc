#include "live/process_stop.h"

#include <sys/ptrace.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

// Waits until every thread of `pending` has reported its interrupt stop,
// taking the reports in the order the kernel gives them (waitpid(-1)): a
// process killed meanwhile reports its threads' deaths first and its leader's
// last (the kernel holds the leader back until the others are reaped), so
// waiting for one thread by its id could wait forever. A signal that arrives
// first is handed back to the thread and the interrupt repeated. Threads that
// died are removed from `tids`; the leader's death is the error ESRCH.
Expected<void> wait_all_stopped(pid_t leader, std::vector<pid_t> pending, std::vector<pid_t>& tids) {
  auto gone = [] {
    Error e("the process exited");
    e.errno_value = ESRCH;
    return e;
  };
  bool leader_dead = false;
  while (!pending.empty()) {
    int status = 0;
    pid_t r = ::waitpid(-1, &status, __WALL);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return gone();  // ECHILD: no tracee left
    auto it = std::find(pending.begin(), pending.end(), r);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (it != pending.end()) pending.erase(it);
      tids.erase(std::remove(tids.begin(), tids.end(), r), tids.end());
      leader_dead = leader_dead || r == leader;
      continue;
    }
    if (!WIFSTOPPED(status) || it == pending.end()) continue;
    if ((status >> 16) == PTRACE_EVENT_STOP) {
      pending.erase(it);
      continue;
    }
    int sig = WSTOPSIG(status);
    if (::ptrace(PTRACE_CONT, r, nullptr, reinterpret_cast<void*>(intptr_t(sig))) == 0)
      ::ptrace(PTRACE_INTERRUPT, r, nullptr, nullptr);
  }
  if (leader_dead) return gone();
  return {};
}

}  // namespace

Expected<ProcessStop> ProcessStop::stop(pid_t pid) {
  ProcessStop s(pid);
  // Seizing does not stop a thread; interrupting does. All threads are
  // seized, then all interrupted, then all waited for: the pause is the
  // slowest thread's way to its stop, not the sum of them (a thread that is
  // runnable but not running must first get a CPU to stop).
  pid_t ended_leader = 0;
  for (bool found_new = true; found_new;) {
    found_new = false;
    auto tids = list_threads(pid);
    if (!tids) return tids.error();
    std::vector<pid_t> fresh;
    for (pid_t tid : *tids) {
      if (std::find(s.tids_.begin(), s.tids_.end(), tid) != s.tids_.end() || tid == ended_leader) continue;
      found_new = true;
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
        const int err = errno;  // before the /proc reads below
        // A thread that just ended: gone (ESRCH), or a zombie not yet
        // reaped, which the kernel refuses to seize with EPERM as if access
        // were denied (threads of a busy server come and go all the time).
        if (tid != pid && (err == ESRCH || (err == EPERM && thread_exited(pid, tid)))) continue;
        // A main thread that ended with pthread_exit (a zombie while the
        // others run) cannot be seized and has nothing to stop.
        if (err == EPERM && tid == pid && thread_exited(pid, tid) && process_running(pid)) {
          ended_leader = pid;
          continue;
        }
        Error e(std::strerror(err));
        e.errno_value = err;
        return e;
      }
      s.tids_.push_back(tid);
      fresh.push_back(tid);
    }
    if (s.began_ == std::chrono::steady_clock::time_point{}) s.began_ = std::chrono::steady_clock::now();
    for (pid_t tid : fresh) ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    if (auto w = wait_all_stopped(pid, fresh, s.tids_); !w) return w.error();
  }
  return s;
}

ProcessStop::ProcessStop(ProcessStop&& o) noexcept
    : pid_(o.pid_), tids_(std::move(o.tids_)), began_(o.began_), resumed_(o.resumed_) {
  o.resumed_ = true;
  o.tids_.clear();
}

std::chrono::nanoseconds ProcessStop::resume() {
  if (!resumed_) {
    for (pid_t tid : tids_) ::ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    resumed_ = true;
  }
  return std::chrono::steady_clock::now() - began_;
}

std::vector<pid_t> ProcessStop::keep() {
  resumed_ = true;
  return std::move(tids_);
}

ProcessStop::~ProcessStop() { resume(); }

}  // namespace covkit::live
