#include "util/atomic_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "util/file_io.h"
#include "util/staged_file_cleanup.h"

namespace covkit::util {

namespace {

constexpr size_t kBuffer = size_t(1) << 20;

}  // namespace

Expected<AtomicOutput> AtomicOutput::open(const std::string& given) {
  // Through a link: the file it leads to is the output, the link stays.
  // /dev/stdout and /proc/self/fd/N lead to the redirected file itself:
  // written through, appended (a rename there would replace the link for
  // every program, or the shell's file under it).
  std::string path = given;
  struct stat lst {};
  if (::lstat(given.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (given.starts_with("/dev/") || given.starts_with("/proc/")) {
      int fd = ::open(given.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      if (fd < 0) return Error(std::strerror(errno));
      return AtomicOutput(given, "", fd);
    }
    char* real = ::realpath(given.c_str(), nullptr);
    if (!real) return Error(fmt::format("a link to nothing ({})", std::strerror(errno)));
    path = real;
    std::free(real);
  }
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {  // refused at once, as open(2) would: nothing staged
    Error e(std::strerror(EISDIR));
    e.errno_value = EISDIR;
    return e;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Error(std::strerror(errno));
    return AtomicOutput(path, "", fd);
  }
  std::string staged = path + ".covkit-tmp." + std::to_string(::getpid());
  // O_EXCL|O_NOFOLLOW: a name planted beside the target is never followed
  // (what was there, a leftover of this pid or a planted link, goes first).
  ::unlink(staged.c_str());
  int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    const size_t slash = path.rfind('/');
    Error e(creation_failure(slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash), err));
    e.errno_value = err;
    return e;
  }
  track_staged_file(staged.c_str());  // removed if covkit is interrupted
  return AtomicOutput(path, staged, fd);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : path_(std::move(other.path_)), staged_(std::move(other.staged_)), fd_(other.fd_),
      buffer_(std::move(other.buffer_)), error_(other.error_) {
  other.fd_ = -1;
  other.staged_.clear();
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!staged_.empty()) {
    ::unlink(staged_.c_str());
    untrack_staged_file(staged_.c_str());
  }
}

void AtomicOutput::flush() {
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  while (left > 0 && error_ == 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    p += n;
    left -= size_t(n);
  }
  buffer_.clear();
}

void AtomicOutput::write(std::string_view piece) {
  if (error_ != 0 || fd_ < 0) return;
  buffer_ += piece;
  if (buffer_.size() >= kBuffer) flush();
}

Expected<void> AtomicOutput::commit() {
  if (fd_ < 0) return Error("already committed");
  flush();
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) return Error(std::strerror(error_));
  if (!staged_.empty()) {
    if (::rename(staged_.c_str(), path_.c_str()) != 0) return Error(std::strerror(errno));
    untrack_staged_file(staged_.c_str());  // after the rename: a signal between finds no file
    staged_.clear();
  }
  return {};
}

}  // namespace covkit::util
