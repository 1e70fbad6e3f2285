#pragma once
// The signals of covkit while it records a process it attached to (sample
// record --pid): SIGINT, SIGTERM and SIGHUP end the recording, not covkit
// (the process is not covkit's: it goes on), and an optional 50 ms tick
// interrupts a blocking wait so that --for is kept while the process
// sleeps. Everything is undone when the object goes.
#include <signal.h>
#include <sys/time.h>

namespace covkit::sample {

class AttachSignals {
 public:
  AttachSignals();
  ~AttachSignals();
  AttachSignals(const AttachSignals&) = delete;
  AttachSignals& operator=(const AttachSignals&) = delete;

  // SIGALRM every 50 ms from now on. Only from the wait on: covkit's own
  // system calls before it (reading modules, planting) must not see EINTR.
  void start_ticking();
  // One of the stop signals came.
  bool stop_requested() const;

 private:
  struct sigaction old_stops_[3] {}, old_alarm_ {};
  itimerval old_timer_{};
};

}  // namespace covkit::sample
