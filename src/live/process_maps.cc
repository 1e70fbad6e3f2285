#include "live/process_maps.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "live/proc_files.h"

namespace covkit::live {

namespace {

bool hex(std::string_view& s, uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  if (ec != std::errc() || p == s.data()) return false;
  s.remove_prefix(size_t(p - s.data()));
  return true;
}

bool dec(std::string_view& s, uint64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  if (ec != std::errc() || p == s.data()) return false;
  s.remove_prefix(size_t(p - s.data()));
  return true;
}

bool skip(std::string_view& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}

void skip_spaces(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

// "start-end perms offset major:minor inode   path"
bool parse_line(std::string_view s, Mapping& m) {
  uint64_t major = 0, minor = 0;
  if (!hex(s, m.start) || !skip(s, '-') || !hex(s, m.end) || !skip(s, ' ') || s.size() < 5) return false;
  m.readable = s[0] == 'r';
  m.writable = s[1] == 'w';
  m.executable = s[2] == 'x';
  m.shared = s[3] == 's';
  s.remove_prefix(4);
  if (!skip(s, ' ') || !hex(s, m.offset) || !skip(s, ' ') || !hex(s, major) || !skip(s, ':') || !hex(s, minor) ||
      !skip(s, ' ') || !dec(s, m.inode))
    return false;
  m.dev_major = uint32_t(major);
  m.dev_minor = uint32_t(minor);
  skip_spaces(s);
  m.path = std::string(s);
  return m.start < m.end;
}

}  // namespace

Expected<std::vector<Mapping>> parse_maps(std::string_view text) {
  std::vector<Mapping> maps;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (line.empty()) continue;
    Mapping m;
    if (!parse_line(line, m)) return Error(fmt::format("unexpected line {} in the memory map", line_no));
    maps.push_back(std::move(m));
  }
  return maps;
}

Expected<std::vector<Mapping>> read_maps(pid_t pid) {
  auto text = read_proc_file(fmt::format("/proc/{}/maps", pid));
  if (!text) return text.error();
  return parse_maps(*text);
}

}  // namespace covkit::live
