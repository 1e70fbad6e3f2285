#pragma once
// Stopping every thread of a process for an instant, as a debugger does,
// without a signal the program could see: PTRACE_SEIZE each thread, then
// PTRACE_INTERRUPT it and wait for its stop; detaching lets each thread go on
// where it was (a blocking system call restarts). Threads started while
// covkit seizes the others are caught by listing the threads again until no
// new one appears (a stopped thread starts none). All threads are seized
// first and then interrupted together, so the pause is the slowest thread's
// way to its stop, not the sum. The pause is measured from the first
// interrupt to the last detach.
#include <sys/types.h>

#include <chrono>
#include <vector>

#include "live/thread_sleep.h"
#include "util/expected.h"

namespace covkit::live {

struct StopOptions {
  // Threads asleep in a call that a stop would make return EINTR are left
  // running (thread_sleep.h); sleepers_stayed_asleep() tells afterwards
  // whether the process was still as good as stopped.
  bool leave_sleepers = false;
};

class ProcessStop {
 public:
  // Stops every thread of `pid`. The error says why not (permissions, a
  // debugger already attached, the process gone).
  static Expected<ProcessStop> stop(pid_t pid, const StopOptions& options = {});
  ProcessStop(ProcessStop&& o) noexcept;
  ProcessStop& operator=(ProcessStop&&) = delete;
  ~ProcessStop();  // resumes

  // Hands the threads over, stopped and still traced: the caller goes on
  // tracing them and detaches them itself (covkit sample record --pid).
  std::vector<pid_t> keep();
  // Lets every thread go on; returns how long the process was stopped.
  std::chrono::nanoseconds resume();
  size_t threads() const { return tids_.size(); }
  const std::vector<pid_t>& tids() const { return tids_; }  // every thread, stopped
  // Whether a thread called execve while the others were being stopped: the
  // process is stopped in its new program then (one thread, at its exec
  // stop), and what was read of the old one before the stop is stale.
  bool executed() const { return executed_; }
  // Whether the process was stopped by a signal (SIGSTOP, SIGTSTP...) when
  // it was seized: detached, it stays stopped; a caller that goes on
  // tracing it keeps it so with PTRACE_LISTEN instead of PTRACE_CONT.
  bool job_stopped() const { return job_stopped_; }
  // The threads left running (StopOptions::leave_sleepers), and whether
  // every one of them still sleeps in its call without having run since.
  const std::vector<ThreadSleep>& sleepers() const { return sleepers_; }
  bool sleepers_stayed_asleep() const;

 private:
  ProcessStop(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::vector<pid_t> tids_;  // seized and stopped
  std::vector<ThreadSleep> sleepers_;  // left running, asleep
  std::chrono::steady_clock::time_point began_{};
  bool resumed_ = false;
  bool executed_ = false;
  bool job_stopped_ = false;
};

// Reaps the threads of `pid` that covkit traced and that have ended since.
// A stop given up halfway (the process exiting or executing meanwhile)
// cannot detach a thread that is not stopped; once such a thread ends, it is
// a zombie only its tracer may reap, and an exec of the process waits for
// that (until covkit exits).
void reap_ended_tracees(pid_t pid);

}  // namespace covkit::live
