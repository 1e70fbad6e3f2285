#include "cli/progress_bar.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace {

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

TEST(ProgressBar, SilentWhenDisabled) {
  StderrCapture cap;
  {
    covkit::cli::ProgressBar bar("reading objects", false);
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
    bar.update(5, 10);
  }
  EXPECT_EQ(cap.text(), "");
}

TEST(ProgressBar, QuietForShortRuns) {
  StderrCapture cap;
  {
    covkit::cli::ProgressBar bar("reading objects", true);
    bar.update(5, 10);
    bar.update(10, 10);
  }
  EXPECT_EQ(cap.text(), "");
}

TEST(ProgressBar, DrawsAfterAMomentAndErasesItself) {
  StderrCapture cap;
  {
    covkit::cli::ProgressBar bar("reading objects", true);
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
    bar.update(5, 10);
    bar.finish();
  }
  const std::string text = cap.text();
  EXPECT_NE(text.find("\rreading objects [===============               ] 5/10"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");
}

}  // namespace
