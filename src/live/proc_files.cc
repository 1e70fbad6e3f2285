#include "live/proc_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdlib>
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

namespace {

// The text after "NAME:" and its blanks, on a line of its own; "" when none.
std::string_view status_value(std::string_view status, std::string_view name) {
  for (size_t at = 0; at < status.size();) {
    const size_t end = std::min(status.find('\n', at), status.size());
    std::string_view line = status.substr(at, end - at);
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == ':') {
      line.remove_prefix(name.size() + 1);
      return line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    }
    at = end + 1;
  }
  return {};
}

template <class T>
std::optional<T> status_value_as(std::string_view status, std::string_view name, int base) {
  const std::string_view value = status_value(status, name);
  T v{};
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v, base);
  if (ec != std::errc() || ptr == value.data()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<long long> status_number(std::string_view status, std::string_view name) {
  return status_value_as<long long>(status, name, 10);
}

std::optional<uint64_t> status_mask(std::string_view status, std::string_view name) {
  return status_value_as<uint64_t>(status, name, 16);
}

namespace {

// read_proc_file, tried again for a while when the read fails for another
// reason than the task being gone (ENOENT, ESRCH): under memory pressure a
// read of /proc can fail (ENOMEM, EAGAIN) for a task that is alive.
Expected<std::string> read_proc_file_of_live_task(const std::string& path) {
  auto text = read_proc_file(path);
  for (int tries = 0; !text && tries < 20; tries++) {
    const int err = text.error().errno_value;
    if (err == ENOENT || err == ESRCH) break;
    ::usleep(1000);
    text = read_proc_file(path);
  }
  return text;
}

// The state letter of a stat file ('\0' when it cannot be read).
char stat_state(const std::string& path) {
  auto stat = read_proc_file_of_live_task(path);
  if (!stat) return '\0';
  const std::string& line = *stat;
  size_t close = line.rfind(')');  // the name may hold spaces and parentheses
  if (close == std::string::npos || close + 2 >= line.size()) return '\0';
  return line[close + 2];
}

bool alive_state(char state) { return state != '\0' && state != 'Z' && state != 'X' && state != 'x'; }

}  // namespace

std::optional<pid_t> live_thread(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  const char leader = stat_state(dir + "/stat");
  if (alive_state(leader)) return pid;
  if (leader != 'Z') return std::nullopt;
  // A leader that ended with pthread_exit stays a zombie while the other
  // threads run; one of them stands for the process.
  auto tids = list_threads(pid);
  if (!tids) return std::nullopt;
  for (pid_t tid : *tids)
    if (tid != pid && alive_state(stat_state(dir + "/task/" + std::to_string(tid) + "/stat"))) return tid;
  return std::nullopt;
}

bool process_running(pid_t pid) { return live_thread(pid).has_value(); }

bool thread_exited(pid_t pid, pid_t tid) {
  return !alive_state(stat_state("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat"));
}

pid_t thread_tracer(pid_t pid, pid_t tid) {
  auto status = read_proc_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  return status ? pid_t(status_number(*status, "TracerPid").value_or(0)) : 0;
}

Expected<std::string> read_settled_proc_file(pid_t pid, std::string_view name, std::chrono::milliseconds wait) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + std::string(name);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto text = read_proc_file(path);
  while (text && text->empty() && process_running(pid) && std::chrono::steady_clock::now() < deadline) {
    ::usleep(2000);
    text = read_proc_file(path);
  }
  return text;
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

Expected<std::vector<pid_t>> list_threads(pid_t pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    Error e(std::strerror(errno));
    e.errno_value = errno == ENOENT ? ESRCH : errno;
    return e;
  }
  std::vector<pid_t> tids;
  while (dirent* ent = ::readdir(d))
    if (ent->d_name[0] >= '0' && ent->d_name[0] <= '9') tids.push_back(pid_t(std::atoi(ent->d_name)));
  ::closedir(d);
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::optional<pid_t> parent_pid(pid_t pid) {
  auto stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  const std::string& line = *stat;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 4 >= line.size()) return std::nullopt;
  return pid_t(std::strtol(line.c_str() + close + 4, nullptr, 10));
}

std::optional<uint64_t> process_start_time(pid_t pid) {
  auto stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  // starttime is the 22nd field, the 20th after "pid (comm)".
  size_t at = stat->rfind(')');
  for (int field = 0; at != std::string::npos && field < 20; ++field) at = stat->find(' ', at + 1);
  if (at == std::string::npos) return std::nullopt;
  return uint64_t(std::strtoull(stat->c_str() + at + 1, nullptr, 10));
}

std::optional<std::string> kernel_thread_name(pid_t pid) {
  auto stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  // flags is the 9th field, the 7th after "pid (comm)"; PF_KTHREAD is 0x00200000.
  const size_t open = stat->find('('), close = stat->rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  size_t at = close;
  for (int field = 0; at != std::string::npos && field < 7; ++field) at = stat->find(' ', at + 1);
  if (at == std::string::npos) return std::nullopt;
  const unsigned long long flags = std::strtoull(stat->c_str() + at + 1, nullptr, 10);
  if (!(flags & 0x00200000ull)) return std::nullopt;
  return stat->substr(open + 1, close - open - 1);
}

std::string process_executable(pid_t pid) {
  char exe[4096];
  ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, size_t(n)) : std::string();
}

}  // namespace covkit::live
