#include "util/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace covkit::util {

std::optional<FileData> read_file(const std::string& path, std::string* error) {
  // O_NONBLOCK: a FIFO named by a hostile notes file must not block the open;
  // only regular files are read (a device like /dev/zero never ends).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (error) *error = std::strerror(errno);
    return std::nullopt;
  }
  FileData out;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (error) *error = "not a regular file";
    ::close(fd);
    return std::nullopt;
  }
  out.mtime = st.st_mtime;
  if (st.st_size > 0) out.bytes.reserve(size_t(st.st_size));
  uint8_t buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (error) *error = std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.bytes.insert(out.bytes.end(), buf, buf + n);
  }
  ::close(fd);
  return out;
}

namespace {

bool write_all(int fd, std::string_view content, std::string* error) {
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (error) *error = std::strerror(errno);
      return false;
    }
    done += size_t(n);
  }
  return true;
}

}  // namespace

std::optional<std::string> stage_file(const std::string& path, std::string_view content, std::string* error,
                                      WriteFailure* failure) {
  if (failure) *failure = WriteFailure::kOpen;
  // A device, FIFO or socket (/dev/stdout, /dev/null, a pipe) is written
  // through: renaming a file over it would replace it (as root, even /dev/null).
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      if (error) *error = std::strerror(errno);
      return std::nullopt;
    }
    if (failure) *failure = WriteFailure::kWrite;
    bool ok = write_all(fd, content, error);
    if (::close(fd) != 0 && ok) {
      if (error) *error = std::strerror(errno);
      ok = false;
    }
    return ok ? std::optional<std::string>(std::string()) : std::nullopt;
  }
  std::string tmp = path + ".covkit-tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (error) *error = std::strerror(errno);
    return std::nullopt;
  }
  if (failure) *failure = WriteFailure::kWrite;
  bool ok = write_all(fd, content, error);
  if (::close(fd) != 0 && ok) {
    if (error) *error = std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return std::nullopt;
  }
  return tmp;
}

bool commit_staged(const std::string& staged, const std::string& path, std::string* error) {
  if (staged.empty()) return true;  // written through already
  if (::rename(staged.c_str(), path.c_str()) != 0) {
    if (error) *error = std::strerror(errno);
    ::unlink(staged.c_str());
    return false;
  }
  return true;
}

void discard_staged(const std::string& staged) {
  if (!staged.empty()) ::unlink(staged.c_str());
}

bool write_file_atomic(const std::string& path, std::string_view content, std::string* error,
                       WriteFailure* failure) {
  auto staged = stage_file(path, content, error, failure);
  return staged && commit_staged(*staged, path, error);
}

std::optional<int64_t> file_mtime(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return int64_t(st.st_mtime);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace covkit::util
