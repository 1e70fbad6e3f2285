#pragma once
// An output file written piece by piece and committed all or nothing: the
// pieces go to a temporary file beside the target, renamed over it by
// commit(); without commit (an error, an exception) the target is left as it
// was. write_file_atomic (file_io.h) is this for content already in memory.
// A device or FIFO target (/dev/stdout, a pipe) is written through: renaming
// a file over it would replace it (as root, even /dev/null). A symbolic link
// is followed: the file it leads to is staged beside and replaced, the link
// stays; links under /dev and /proc (/dev/stdout redirected to a file) are
// written through, appending.
#include <string>
#include <string_view>

#include "util/expected.h"

namespace covkit::util {

class AtomicOutput {
 public:
  static Expected<AtomicOutput> open(const std::string& path);
  AtomicOutput(AtomicOutput&& other) noexcept;
  AtomicOutput& operator=(AtomicOutput&&) = delete;
  ~AtomicOutput();  // discards what was not committed

  // Buffered; the first failure is kept for commit() to report.
  void write(std::string_view piece);
  // Flushes and renames over the target; the first failure if any.
  Expected<void> commit();

 private:
  AtomicOutput(std::string path, std::string staged, int fd) : path_(std::move(path)), staged_(std::move(staged)), fd_(fd) {}
  void flush();
  std::string path_, staged_;  // staged_ "" when written through
  int fd_ = -1;
  std::string buffer_;
  int error_ = 0;  // errno of the first failure
};

}  // namespace covkit::util
