#include "live/object_names.h"

#include <fmt/format.h>

#include <vector>

namespace covkit::live {

namespace {

constexpr size_t kMaxComponentBytes = 255;  // NAME_MAX
constexpr size_t kMaxNameBytes = 4096;      // PATH_MAX

bool control_byte_in(std::string_view name) {
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

Expected<void> check_object_name(std::string_view name) {
  if (name.empty()) return Error("an empty .gcda name");
  if (name.size() > kMaxNameBytes) return Error(fmt::format("a .gcda name of {} bytes (at most {})", name.size(), kMaxNameBytes));
  if (control_byte_in(name)) return Error("a .gcda name with control characters");
  const size_t slash = name.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? name : name.substr(slash + 1);
  if (!file.ends_with(".gcda") || file.size() == 5) return Error("a name that is no .gcda file name");
  for (size_t start = 0; start <= name.size();) {
    size_t next = name.find('/', start);
    if (next == std::string_view::npos) next = name.size();
    if (next - start > kMaxComponentBytes)
      return Error(fmt::format("a .gcda name with a component of {} bytes (at most {})", next - start, kMaxComponentBytes));
    start = next + 1;
  }
  return {};
}

Expected<std::string> relative_below_directory(std::string_view cwd, std::string_view name, AboveRoot above) {
  std::string absolute = name.starts_with('/') ? std::string(name) : fmt::format("{}/{}", cwd, name);
  std::vector<std::string_view> parts;
  std::string_view rest = absolute;
  for (size_t start = 0; start <= rest.size();) {
    size_t next = rest.find('/', start);
    if (next == std::string_view::npos) next = rest.size();
    const std::string_view part = rest.substr(start, next - start);
    start = next + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
      else if (above == AboveRoot::kRefuse)
        return Error("a .gcda name whose '..' climbs above the root (out of the output directory)");
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  if (out.empty()) return Error("a .gcda name that names no file");
  return out;
}

}  // namespace covkit::live
