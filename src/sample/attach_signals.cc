#include "sample/attach_signals.h"

#include <csignal>
#include <cstddef>

namespace covkit::sample {

namespace {

volatile std::sig_atomic_t attach_stop_requested = 0;
void on_attach_stop(int) { attach_stop_requested = 1; }
void on_attach_tick(int) {}  // only wakes waitpid (EINTR) to look at the clock

constexpr int kStops[3] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

AttachSignals::AttachSignals() {
  attach_stop_requested = 0;
  struct sigaction sa {};
  sa.sa_handler = on_attach_stop;  // no SA_RESTART: waitpid returns EINTR
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < 3; ++i) ::sigaction(kStops[i], &sa, &old_stops_[i]);
  sa.sa_handler = on_attach_tick;
  ::sigaction(SIGALRM, &sa, &old_alarm_);
}

void AttachSignals::start_ticking() {
  itimerval tick{{0, 50'000}, {0, 50'000}};
  ::setitimer(ITIMER_REAL, &tick, &old_timer_);
}

AttachSignals::~AttachSignals() {
  ::setitimer(ITIMER_REAL, &old_timer_, nullptr);
  ::sigaction(SIGALRM, &old_alarm_, nullptr);
  for (size_t i = 0; i < 3; ++i) ::sigaction(kStops[i], &old_stops_[i], nullptr);
}

bool AttachSignals::stop_requested() const { return attach_stop_requested != 0; }

}  // namespace covkit::sample
