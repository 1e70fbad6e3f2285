#include "live/process_stop.h"

#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "live/periodic_interrupt.h"
#include "live/proc_files.h"

namespace covkit::live {

namespace {

// Takes a traced thread's report when it is an end (exited, killed), and
// leaves any other in place: a tracee's stop is reported whatever the flags
// ask (WEXITED alone too), and taken here it would never be seen by whoever
// waits for it (a job stop, a signal to pass on). True when one was taken.
bool reap_if_ended(pid_t tid) {
  siginfo_t si{};
  if (::waitid(P_PID, id_t(tid), &si, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 || si.si_pid != tid) return false;
  if (si.si_code != CLD_EXITED && si.si_code != CLD_KILLED && si.si_code != CLD_DUMPED) return false;
  si = {};
  return ::waitid(P_PID, id_t(tid), &si, WEXITED | WNOHANG | __WALL) == 0 && si.si_pid == tid;
}

// Waits until every thread of `pending` has reported its interrupt stop,
// taking the reports in the order the kernel gives them (waitpid(-1)): a
// process killed meanwhile reports its threads' deaths first and its leader's
// last (the kernel holds the leader back until the others are reaped), so
// waiting for one thread by its id could wait forever. A signal that arrives
// first is handed back to the thread and the interrupt repeated. Threads that
// died are removed from `tids`; the leader's death is the error ESRCH.
// A thread that calls execve meanwhile takes the leader's id, the others
// end (the former leader without a report) and its former id never reports
// again: its exec stop (PTRACE_O_TRACEEXEC) says which id that was, and it
// stands for every thread then; `executed` is set. A thread of a process
// stopped by a signal (job control) reports its group-stop instead of the
// interrupt: `job_stopped` is set.
// An interrupt can be lost to an exec: when the thread that calls execve was
// not seized before it (or its seize waited for the exec), the former leader,
// interrupted and pending here, is released by the kernel without a report,
// and its id is the exec's thread's. So the wait for reports is interrupted
// every kReinterrupt (PeriodicInterrupt), and when no report came for that
// long the pending threads are interrupted again: one traced by covkit stops
// then and reports; one that is not (ESRCH: its id is another's now, or
// nobody's) never will, and is dropped (the leader's id: the process
// executed another program). A wait without end waited for that report
// forever (exec_during_dump in tests/live met it about once in 160 dumps of
// a process inside an exec). The wait itself blocks: polling (WNOHANG and
// naps of up to 200 us) made the common stop, with no exec, 2x slower idle
// and up to 40x on a loaded machine; it is left for when no timer can be made.
Expected<void> wait_all_stopped(pid_t leader, std::vector<pid_t> pending, std::vector<pid_t>& tids, bool& executed,
                                bool& job_stopped) {
  auto gone = [] {
    Error e("the process exited");
    e.errno_value = ESRCH;
    return e;
  };
  using Clock = std::chrono::steady_clock;
  constexpr auto kReinterrupt = std::chrono::milliseconds(20);
  constexpr auto kLongestNap = std::chrono::microseconds(200);  // polling, without a timer
  bool leader_dead = false;
  auto last_report = Clock::now();
  auto nap = std::chrono::microseconds(5);
  const PeriodicInterrupt ticks(kReinterrupt);
  while (!pending.empty()) {
    int status = 0;
    pid_t r = ::waitpid(-1, &status, __WALL | (ticks.armed() ? 0 : WNOHANG));
    if (r < 0 && errno != EINTR) return gone();  // ECHILD: no tracee left
    if (r <= 0) {  // a tick (or another signal), or no report yet
      if (Clock::now() - last_report >= kReinterrupt) {
        for (auto it = pending.begin(); it != pending.end();) {
          if (::ptrace(PTRACE_INTERRUPT, *it, nullptr, nullptr) == 0 || errno != ESRCH) {
            ++it;
            continue;
          }
          executed = executed || *it == leader;
          tids.erase(std::remove(tids.begin(), tids.end(), *it), tids.end());
          it = pending.erase(it);
        }
        last_report = Clock::now();
      }
      if (!ticks.armed()) {
        std::this_thread::sleep_for(nap);
        nap = std::min<std::chrono::microseconds>(nap * 2, kLongestNap);
      }
      continue;
    }
    last_report = Clock::now();
    nap = std::chrono::microseconds(5);
    if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_EXEC) {
      unsigned long former = 0;
      ::ptrace(PTRACE_GETEVENTMSG, r, nullptr, &former);
      for (pid_t gone_id : {pid_t(former), r}) {
        pending.erase(std::remove(pending.begin(), pending.end(), gone_id), pending.end());
        tids.erase(std::remove(tids.begin(), tids.end(), gone_id), tids.end());
      }
      tids.push_back(r);  // stopped in its exec stop
      executed = true;
      continue;
    }
    auto it = std::find(pending.begin(), pending.end(), r);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (it != pending.end()) pending.erase(it);
      tids.erase(std::remove(tids.begin(), tids.end(), r), tids.end());
      leader_dead = leader_dead || r == leader;
      continue;
    }
    if (!WIFSTOPPED(status) || it == pending.end()) continue;
    if ((status >> 16) == PTRACE_EVENT_STOP) {
      if (WSTOPSIG(status) != SIGTRAP) job_stopped = true;  // SIGSTOP, SIGTSTP...: a group-stop
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

// Reaps the seized threads that end while the next one is being seized.
// A thread that calls execve kills the others and, holding the lock that
// PTRACE_SEIZE takes, waits until each is reaped; the threads already
// seized are reaped by their tracer only, so seizing one more would wait for
// the exec and the exec for covkit, forever (the kernel's ptrace/exec
// deadlock; a process whose threads exec does it a few times in a thousand
// dumps). A helper thread, woken when a seize takes more than a moment,
// reaps them (only exits: no stop is taken) and the seize goes on.
class SeizeReaper {
 public:
  explicit SeizeReaper(const std::vector<pid_t>& seized) : seized_(seized), helper_([this] { run(); }) {}
  ~SeizeReaper() {
    {
      std::lock_guard l(mu_);
      done_ = true;
    }
    cv_.notify_one();
    helper_.join();
  }
  // PTRACE_SEIZE of `tid`, with the exec's stop asked for. The helper reads
  // `seized` only during a seize, so the caller changes it freely between.
  int seize(pid_t tid) {
    {
      std::lock_guard l(mu_);
      seizing_ = true;
      since_ = std::chrono::steady_clock::now();
    }
    int r = ::ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACEEXEC));
    int err = errno;
    {
      std::lock_guard l(mu_);
      seizing_ = false;
    }
    errno = err;
    return r;
  }
  // The threads reaped so far (taken: each is given once).
  std::vector<pid_t> take_reaped() {
    std::lock_guard l(mu_);
    return std::exchange(reaped_, {});
  }

 private:
  void run() {
    constexpr auto kMoment = std::chrono::milliseconds(2);
    std::unique_lock l(mu_);
    while (!done_) {
      cv_.wait_for(l, kMoment);
      if (done_ || !seizing_ || std::chrono::steady_clock::now() - since_ < kMoment) continue;
      for (pid_t tid : seized_) {
        // Exits only: a thread seized in a job stop (the seize itself makes
        // it report) or given a signal since must keep its report for
        // wait_all_stopped, or it would be counted as ended (the leader:
        // "the process exited").
        if (reap_if_ended(tid)) reaped_.push_back(tid);
      }
    }
  }

  const std::vector<pid_t>& seized_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false, seizing_ = false;
  std::chrono::steady_clock::time_point since_{};
  std::vector<pid_t> reaped_;
  std::thread helper_;  // last: started once the rest is ready
};

}  // namespace

Expected<ProcessStop> ProcessStop::stop(pid_t pid, const StopOptions& options) {
  ProcessStop s(pid);
  // Seizing does not stop a thread; interrupting does. All threads are
  // seized, then all interrupted, then all waited for: the pause is the
  // slowest thread's way to its stop, not the sum of them (a thread that is
  // runnable but not running must first get a CPU to stop).
  pid_t ended_leader = 0;
  SeizeReaper reaper(s.tids_);
  for (bool found_new = true; found_new;) {
    found_new = false;
    auto tids = list_threads(pid);
    if (!tids) return tids.error();
    std::vector<pid_t> fresh;
    for (pid_t tid : *tids) {
      if (std::find(s.tids_.begin(), s.tids_.end(), tid) != s.tids_.end() || tid == ended_leader) continue;
      if (std::any_of(s.sleepers_.begin(), s.sleepers_.end(), [&](const ThreadSleep& t) { return t.tid == tid; }))
        continue;
      found_new = true;
      if (options.leave_sleepers)
        if (auto sleep = eintr_sleep(pid, tid)) {
          s.sleepers_.push_back(*sleep);
          continue;
        }
      // The main thread of a process in the middle of an exec refuses for a
      // moment: it is the former main thread, ending, or already the thread
      // that called execve, taking its id (seized by covkit already: its
      // exec stop tells). Any other thread refuses while it ends (EPERM from
      // the moment the kernel sets its exit state, which /proc may show a
      // moment later): a refusal that outlasts a few tries is one. errno is
      // kept at once: the /proc reads change it.
      auto seize = [&] { return reaper.seize(tid) == 0 ? 0 : errno; };
      int err = seize();
      for (int again = 0; err == EPERM && again < 3; ++again) {
        if (tid == pid ? thread_tracer(pid, tid) == ::getpid() : thread_exited(pid, tid)) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        err = seize();
      }
      if (err != 0) {
        // Covkit's already, under the id it had before its exec, and not
        // among the threads waited for when its exec stop is behind it (it
        // was seized past the exec's report, or reported it before this
        // round): taken again under its new id and interrupted, or no round
        // would ever end (the leader found new in each). Its exec stop, if
        // still to come, stands for its interrupt stop (wait_all_stopped).
        if (err == EPERM && tid == pid && thread_tracer(pid, tid) == ::getpid()) {
          s.executed_ = true;
          s.tids_.push_back(tid);
          fresh.push_back(tid);
          continue;
        }
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
    // Threads reaped while another was seized ended (an exec killed them):
    // no report is to come from them.
    for (pid_t tid : reaper.take_reaped()) {
      if (tid == pid) {
        Error e("the process exited");
        e.errno_value = ESRCH;
        return e;
      }
      s.tids_.erase(std::remove(s.tids_.begin(), s.tids_.end(), tid), s.tids_.end());
      fresh.erase(std::remove(fresh.begin(), fresh.end(), tid), fresh.end());
    }
    if (s.began_ == std::chrono::steady_clock::time_point{}) s.began_ = std::chrono::steady_clock::now();
    for (pid_t tid : fresh) ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    if (auto w = wait_all_stopped(pid, fresh, s.tids_, s.executed_, s.job_stopped_); !w) return w.error();
  }
  return s;
}

bool ProcessStop::sleepers_stayed_asleep() const {
  return std::all_of(sleepers_.begin(), sleepers_.end(), [&](const ThreadSleep& t) { return still_asleep(pid_, t); });
}

ProcessStop::ProcessStop(ProcessStop&& o) noexcept
    : pid_(o.pid_), tids_(std::move(o.tids_)), sleepers_(std::move(o.sleepers_)), began_(o.began_),
      resumed_(o.resumed_), executed_(o.executed_), job_stopped_(o.job_stopped_) {
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

void reap_ended_tracees(pid_t pid) {
  auto tids = list_threads(pid);
  if (!tids) return;
  for (pid_t tid : *tids) reap_if_ended(tid);  // ECHILD inside: not traced by covkit
}

}  // namespace covkit::live
