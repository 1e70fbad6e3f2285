#include "cli/progress_bar.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace progress_bar_test {

// Captures what is written to stderr while alive (through a temporary file,
// so a large write cannot block on a pipe).
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = ::dup(STDERR_FILENO);
    ::dup2(::fileno(file_), STDERR_FILENO);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    for (int c; (c = std::fgetc(file_)) != EOF;) out += char(c);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

// A clock the test moves by hand: no test depends on the wall clock.
struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  void advance_ms(int ms) { now += std::chrono::milliseconds(ms); }
  covkit::cli::ProgressBar::Clock source() {
    return [this] { return now; };
  }
};

TEST(ProgressBar, SilentWhenDisabled) {
  StderrCapture cap;
  FakeClock clock;
  {
    covkit::cli::ProgressBar bar("reading objects", false, clock.source());
    clock.advance_ms(5000);
    bar.update(5, 10);
  }
  EXPECT_EQ(cap.text(), "");
}

TEST(ProgressBar, QuietForShortRuns) {
  StderrCapture cap;
  FakeClock clock;
  {
    covkit::cli::ProgressBar bar("reading objects", true, clock.source());
    bar.update(5, 10);
    clock.advance_ms(399);
    bar.update(10, 10);
  }
  EXPECT_EQ(cap.text(), "");
}

TEST(ProgressBar, DrawsAfterAMomentAndErasesItself) {
  StderrCapture cap;
  FakeClock clock;
  {
    covkit::cli::ProgressBar bar("reading objects", true, clock.source());
    clock.advance_ms(400);
    bar.update(5, 10);
    bar.finish();
  }
  const std::string text = cap.text();
  EXPECT_EQ(text, "\rreading objects [===============               ] 5/10\r\033[K");
}

// Redrawn at most every 100 ms, but always at the end.
TEST(ProgressBar, RedrawsAtMostTenTimesASecond) {
  StderrCapture cap;
  FakeClock clock;
  {
    covkit::cli::ProgressBar bar("x", true, clock.source());
    clock.advance_ms(500);
    bar.update(1, 4);
    clock.advance_ms(50);
    bar.update(2, 4);  // too soon: not drawn
    clock.advance_ms(50);
    bar.update(3, 4);
    bar.update(4, 4);  // the end is always drawn
  }
  const std::string text = cap.text();
  EXPECT_NE(text.find("] 1/4"), std::string::npos) << text;
  EXPECT_EQ(text.find("] 2/4"), std::string::npos) << text;
  EXPECT_NE(text.find("] 3/4"), std::string::npos) << text;
  EXPECT_NE(text.find("] 4/4"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");
}

}  // namespace
