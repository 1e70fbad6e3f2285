#include "live/proc_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace covkit::live {

namespace {

Error errno_error(int err) {
  Error e(std::strerror(err));
  e.errno_value = err;
  return e;
}

}  // namespace

Expected<std::string> read_proc_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(errno);
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return errno_error(err);
    }
    if (n == 0) break;
    text.append(buf, size_t(n));
  }
  ::close(fd);
  return text;
}

bool process_running(pid_t pid) {
  auto stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const std::string& line = *stat;
  size_t close = line.rfind(')');  // the name may hold spaces and parentheses
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  char state = line[close + 2];
  return state != 'Z' && state != 'X' && state != 'x';
}

std::vector<std::string> process_command_line(pid_t pid) {
  std::vector<std::string> words;
  auto text = read_proc_file("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text) return words;
  for (size_t pos = 0; pos < text->size();) {
    size_t end = text->find('\0', pos);
    if (end == std::string::npos) end = text->size();
    words.push_back(text->substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

}  // namespace covkit::live
