#include "cli/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace covkit::cli {

namespace {
constexpr auto kQuietPeriod = std::chrono::milliseconds(400);
constexpr auto kRedrawPeriod = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
}  // namespace

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
}

ProgressBar::ProgressBar(std::string what, bool enabled, Clock clock)
    : what_(std::move(what)), enabled_(enabled), clock_(std::move(clock)), start_(clock_()), last_draw_(start_) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(size_t done, size_t total) {
  if (!enabled_ || total == 0) return;
  auto now = clock_();
  if (now - start_ < kQuietPeriod) return;
  std::unique_lock lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || (drawn_ && now - last_draw_ < kRedrawPeriod && done < total)) return;
  last_draw_ = now;
  drawn_ = true;
  int filled = int(double(done) / double(total) * kBarWidth);
  std::string bar(size_t(filled), '=');
  bar.resize(kBarWidth, ' ');
  std::fprintf(stderr, "\r%s [%s] %zu/%zu", what_.c_str(), bar.c_str(), done, total);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  std::lock_guard lock(mu_);
  if (!drawn_) return;
  // Erase the line so later messages start clean.
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace covkit::cli
