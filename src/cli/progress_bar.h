#pragma once
// A progress line on stderr for long runs: shown only on a terminal and only
// once the work has taken longer than a moment, so quick runs and CI logs
// stay clean.
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

namespace covkit::cli {

class ProgressBar {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `clock` is the time source (tests pass one they advance themselves).
  ProgressBar(std::string what, bool enabled, Clock clock = std::chrono::steady_clock::now);
  ~ProgressBar();
  // Thread-safe; cheap when nothing is drawn.
  void update(size_t done, size_t total);
  void finish();

 private:
  std::string what_;
  bool enabled_;
  Clock clock_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mu_;
};

// Whether stderr is a terminal (and TERM is not "dumb").
bool stderr_is_terminal();

}  // namespace covkit::cli
