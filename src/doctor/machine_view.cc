#include "doctor/machine_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace covkit::doctor {

namespace {

constexpr size_t kMaxFileBytes = size_t(1) << 20;

}  // namespace

std::string trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const size_t last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

MachineView::MachineView(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  live_ = root_ == "/";
}

std::string MachineView::path_of(std::string_view path) const {
  return live_ ? std::string(path) : root_ + std::string(path);
}

std::optional<std::string> MachineView::read(std::string_view path) const {
  // O_NONBLOCK: a FIFO planted in a faked tree must not hang the doctor.
  const int fd = ::open(path_of(path).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      if (n < 0) return std::nullopt;
      return text;
    }
    text.append(buffer, size_t(n));
    if (text.size() >= kMaxFileBytes) {
      ::close(fd);
      return text;
    }
  }
}

std::optional<std::string> MachineView::read_line(std::string_view path) const {
  auto text = read(path);
  if (!text) return std::nullopt;
  return trimmed(std::string_view(*text).substr(0, text->find('\n')));
}

std::optional<long long> MachineView::read_number(std::string_view path) const {
  auto line = read_line(path);
  if (!line || line->empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(line->c_str(), &end, 10);
  if (errno != 0 || end == line->c_str() || *end != '\0') return std::nullopt;
  return v;
}

bool MachineView::exists(std::string_view path) const { return ::access(path_of(path).c_str(), F_OK) == 0; }

std::vector<std::string> MachineView::list(std::string_view path) const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path_of(path).c_str());
  if (!dir) return names;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> MachineView::cpu_flags() const {
  std::vector<std::string> flags;
  auto info = read("/proc/cpuinfo");
  if (!info) return flags;
  std::istringstream lines(*info);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(std::string_view(line).substr(0, colon));
    if (key != "flags" && key != "Features") continue;
    std::istringstream words(line.substr(colon + 1));
    for (std::string w; words >> w;) flags.push_back(w);
    break;  // the first processor's
  }
  return flags;
}

bool MachineView::has_cpu_flag(std::string_view flag) const {
  const std::vector<std::string> flags = cpu_flags();
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::string MachineView::cpu_vendor() const {
  auto info = read("/proc/cpuinfo");
  if (!info) return "";
  std::istringstream lines(*info);
  for (std::string line; std::getline(lines, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trimmed(std::string_view(line).substr(0, colon));
    const std::string value = trimmed(std::string_view(line).substr(colon + 1));
    if (key == "vendor_id") return value;
    if (key == "CPU implementer") return value == "0x41" ? "ARM" : "ARM-compatible (" + value + ")";
  }
  return "";
}

}  // namespace covkit::doctor
