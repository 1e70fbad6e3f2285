#pragma once
// A blocking system call with a period: while a PeriodicInterrupt lives, a
// timer's signal comes to the thread that made it every `period`, and its
// handler does nothing, so a blocking call of that thread (waitpid) returns
// EINTR then. A wait blocks until what it waits for comes, at once, and
// still gets back control now and then; polling instead (WNOHANG and a nap)
// woke late, by up to a nap, and on a loaded machine each nap's end waited
// for a CPU too (process_stop: a stop that took ~0.1 ms took up to ~4 ms,
// median, on a loaded machine; bench/README.md, live_pause.py).
#include <time.h>

#include <chrono>
#include <csignal>

namespace covkit::live {

class PeriodicInterrupt {
 public:
  explicit PeriodicInterrupt(std::chrono::milliseconds period);
  ~PeriodicInterrupt();
  PeriodicInterrupt(const PeriodicInterrupt&) = delete;
  PeriodicInterrupt& operator=(const PeriodicInterrupt&) = delete;

  // False when the timer could not be made (or the signal is another's):
  // no EINTR will come, and the caller must not block without end.
  bool armed() const { return armed_; }

 private:
  timer_t timer_{};
  sigset_t old_mask_{};
  bool armed_ = false;
};

}  // namespace covkit::live
