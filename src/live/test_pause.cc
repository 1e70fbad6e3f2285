#include "live/test_pause.h"

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

namespace covkit::live {

void test_step_pause() {
  static const long most = [] {
    const char* v = std::getenv("COVKIT_TEST_LIVE_STEP_US");
    return v ? std::strtol(v, nullptr, 10) : 0L;
  }();
  if (most <= 0) return;
  static std::mt19937 random{std::random_device{}()};
  std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<long>(0, most)(random)));
}

}  // namespace covkit::live
