#include "live/test_pause.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

namespace covkit::live {

namespace {

long from_environment(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::strtol(v, nullptr, 10) : 0L;
}

}  // namespace

void test_step_pause() {
  static const long most = from_environment("COVKIT_TEST_LIVE_STEP_US");
  static const long stop_at = from_environment("COVKIT_TEST_LIVE_STOP_AT");
  static std::atomic<long> boundaries{0};
  if (stop_at > 0 && ++boundaries == stop_at) ::raise(SIGSTOP);
  if (most <= 0) return;
  static std::mt19937 random{std::random_device{}()};
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<long>(0, most)(random)));
}

}  // namespace covkit::live
