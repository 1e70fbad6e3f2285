#include "util/atomic_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <cstring>

#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/output_path.h"
#include "util/printable.h"
#include "util/staged_file_cleanup.h"

namespace covkit::util {

namespace {

constexpr size_t kBuffer = size_t(1) << 20;
// Pieces from this size on are not copied into the buffer.
constexpr size_t kDirect = size_t(16) << 10;

}  // namespace

Expected<AtomicOutput> AtomicOutput::open(const std::string& given) {
  // /dev/stdout and /proc/self/fd/N lead to the redirected file itself:
  // written through, appended (a rename there would replace the link for
  // every program, or the shell's file under it).
  struct stat lst {};
  if ((given.starts_with("/dev/") || given.starts_with("/proc/")) && ::lstat(given.c_str(), &lst) == 0 &&
      S_ISLNK(lst.st_mode)) {
    int fd = ::open(given.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Error(std::strerror(errno));
    return AtomicOutput(UniqueFd(), given, "", fd);
  }
  auto where = locate_output(given, MissingParents::kError);
  if (!where) {
    // A plain refusal is its reason alone (the caller names the file); a
    // link that is not followed is named.
    if (where.error().errno_value != 0) {
      Error e(std::strerror(where.error().errno_value));
      e.errno_value = where.error().errno_value;
      return e;
    }
    return where.error();
  }
  const int dir = where->parent.get();
  const std::string& name = where->name;
  struct stat st {};
  const bool exists = ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (!exists && where->via_link) return Error("a link to nothing (the file it names does not exist)");
  if (exists && S_ISDIR(st.st_mode)) {  // refused at once, as open(2) would: nothing staged
    Error e(std::strerror(EISDIR));
    e.errno_value = EISDIR;
    return e;
  }
  if (exists && S_ISLNK(st.st_mode))  // put there after the walk looked
    return Error(fmt::format("{} became a symbolic link while covkit opened it; nothing was written", where->path));
  if (exists && !S_ISREG(st.st_mode)) {
    // A FIFO or device of covkit's own user (or root's: /dev/null) is the
    // destination the user chose; another user's FIFO, planted where a
    // root covkit writes (a .gcov in a shared directory), would hand that
    // user the output, or hang covkit until they read it.
    if (!trusted_link_owner(st.st_uid)) {
      const char* what = S_ISFIFO(st.st_mode) ? "FIFO" : "special file";
      return Error(fmt::format("{} is a {} of user {}; covkit does not write through another user's {}",
                               printable(where->path), what, st.st_uid, what));
    }
    test_stop_point("output-special");
    // Opened as the file looked at, or not at all: the directory's owner
    // may have put another file at the name since (their own FIFO, whose
    // reader would get the output; their own file, written through). The
    // name is opened O_PATH and O_NOFOLLOW (no device's driver runs, no
    // FIFO waits, no link is followed), checked to be that file on the
    // descriptor, and only then opened for writing through /proc/self/fd.
    UniqueFd at(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat now {};
    if (!at.valid() || ::fstat(at.get(), &now) != 0) return Error(std::strerror(errno));
    if (now.st_dev != st.st_dev || now.st_ino != st.st_ino || (now.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
      return Error(fmt::format("{} was replaced by another file while covkit opened it; nothing was written",
                               printable(where->path)));
    // O_NOCTTY: a terminal given as the output never becomes covkit's
    // controlling terminal (a root covkit without one, from cron or a
    // service, would then get the signals of whoever types on it).
    int fd = ::open(fmt::format("/proc/self/fd/{}", at.get()).c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {
      // No /proc (a chroot): by its name, without waiting for a reader,
      // and the same file or none.
      fd = ::openat(dir, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd >= 0 && (::fstat(fd, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino ||
                      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)) {
        ::close(fd);
        return Error(fmt::format("{} was replaced by another file while covkit opened it; nothing was written",
                                 printable(where->path)));
      }
    }
    if (fd < 0) return Error(std::strerror(errno));
    return AtomicOutput(UniqueFd(), name, "", fd);
  }
  std::string staged = name + ".covkit-tmp." + std::to_string(::getpid());
  if (staged.size() > NAME_MAX) staged = ".covkit-tmp." + std::to_string(::getpid());
  // O_EXCL|O_NOFOLLOW: a name planted beside the target is never followed
  // (what was there, a leftover of this pid or a planted link, goes first).
  // Removed only when found: an unlink of a name that is not there still
  // locks the directory, which the threads writing gcov's files share.
  const auto create = [&] {
    return ::openat(dir, staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0666 & output_mode_mask());
  };
  int fd = create();
  if (fd < 0 && errno == EEXIST) {
    ::unlinkat(dir, staged.c_str(), 0);
    fd = create();
  }
  if (fd < 0) {
    const int err = errno;
    const size_t slash = where->path.rfind('/');
    Error e(creation_failure(slash == 0 ? "/" : where->path.substr(0, slash), err));
    e.errno_value = err;
    return e;
  }
  track_staged_file(dir, staged.c_str());  // removed if covkit is interrupted
  test_stop_point("output");
  return AtomicOutput(std::move(where->parent), name, staged, fd);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : dir_(std::move(other.dir_)), name_(std::move(other.name_)), staged_(std::move(other.staged_)),
      fd_(other.fd_), buffer_(std::move(other.buffer_)), error_(other.error_) {
  other.fd_ = -1;
  other.staged_.clear();
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!staged_.empty()) {
    ::unlinkat(dir_.get(), staged_.c_str(), 0);
    untrack_staged_file(dir_.get(), staged_.c_str());
  }
}

void AtomicOutput::flush() {
  write_through(buffer_);
  buffer_.clear();
}

void AtomicOutput::write_through(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
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
}

void AtomicOutput::write(std::string_view piece) {
  if (error_ != 0 || fd_ < 0) return;
  if (piece.size() < kDirect && buffer_.size() + piece.size() < kBuffer) {
    buffer_ += piece;
    return;
  }
  // A large piece (a whole .gcov text, from write_file_atomic) is written
  // from where it is: copied into the buffer first, the copy and the
  // buffer's fresh pages were ~3% of `covkit gcov -b -c` on jsoncpp.
  flush();
  write_through(piece);
}

Expected<void> AtomicOutput::commit() {
  if (fd_ < 0) return Error("already committed");
  flush();
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) return Error(std::strerror(error_));
  if (!staged_.empty()) {
    if (::renameat(dir_.get(), staged_.c_str(), dir_.get(), name_.c_str()) != 0) return Error(std::strerror(errno));
    untrack_staged_file(dir_.get(), staged_.c_str());  // after the rename: a signal between finds no file
    staged_.clear();
  }
  return {};
}

}  // namespace covkit::util
