#pragma once
// An output file written piece by piece and committed all or nothing: the
// pieces go to a temporary file beside the target, renamed over it by
// commit(); without commit (an error, an exception) the target is left as it
// was. write_file_atomic (file_io.h) is this for content already in memory.
//
// The target's directory is found as util/output_path.h finds it (a
// symbolic link of another user on the way, or as the target itself, is an
// error; one of root or of covkit's user is followed: the file it leads to
// is replaced, the link stays) and held by descriptor: the temporary file
// is created in it (O_EXCL|O_NOFOLLOW), and renamed in it, whatever is
// renamed meanwhile. New files get the umask's mode less
// util::output_mode_mask(). A device or FIFO target (/dev/stdout, a pipe)
// is written through: renaming a file over it would replace it (as root,
// even /dev/null); links under /dev and /proc (/dev/stdout redirected to a
// file) are written through, appending.
#include <string>
#include <string_view>

#include "util/expected.h"
#include "util/unique_fd.h"

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
  AtomicOutput(UniqueFd dir, std::string name, std::string staged, int fd)
      : dir_(std::move(dir)), name_(std::move(name)), staged_(std::move(staged)), fd_(fd) {}
  void flush();
  void write_through(std::string_view bytes);  // unbuffered; keeps the first failure
  UniqueFd dir_;                // the target's directory (invalid when written through)
  std::string name_, staged_;   // names in dir_; staged_ "" when written through
  int fd_ = -1;
  std::string buffer_;
  int error_ = 0;  // errno of the first failure
};

}  // namespace covkit::util
