#include "live/periodic_interrupt.h"

#include <pthread.h>
#include <unistd.h>


// glibc before 2.38 names the thread's id by its raw member only.
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

namespace covkit::live {

namespace {

void nothing(int) {}

// A real-time signal covkit uses for nothing else, its handler installed
// once; -1 when something else holds it (a caller of covkit's libraries).
// No SA_RESTART: the call it interrupts returns EINTR.
int interrupt_signal() {
  static const int sig = [] {
    const int s = SIGRTMIN + 5;
    struct sigaction old {};
    if (s > SIGRTMAX || ::sigaction(s, nullptr, &old) != 0) return -1;
    if (old.sa_handler != SIG_DFL && old.sa_handler != nothing) return -1;
    struct sigaction sa {};
    sa.sa_handler = nothing;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(s, &sa, nullptr) == 0 ? s : -1;
  }();
  return sig;
}

}  // namespace

PeriodicInterrupt::PeriodicInterrupt(std::chrono::milliseconds period) {
  const int sig = interrupt_signal();
  if (sig < 0) return;
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  if (::pthread_sigmask(SIG_UNBLOCK, &unblock, &old_mask_) != 0) return;
  struct sigevent ev {};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = sig;
  ev.sigev_notify_thread_id = ::gettid();
  if (::timer_create(CLOCK_MONOTONIC, &ev, &timer_) != 0) {
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    return;
  }
  const auto ns = std::chrono::nanoseconds(period).count();
  const timespec each{time_t(ns / 1000000000), long(ns % 1000000000)};
  const itimerspec spec{each, each};
  if (::timer_settime(timer_, 0, &spec, nullptr) != 0) {
    ::timer_delete(timer_);
    ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    return;
  }
  armed_ = true;
}

PeriodicInterrupt::~PeriodicInterrupt() {
  if (!armed_) return;
  // A signal the timer sent before it was deleted is taken (by the handler
  // that does nothing) on the way back from timer_delete, while it is still
  // unblocked: none is left to interrupt a later call of this thread.
  ::timer_delete(timer_);
  ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace covkit::live
