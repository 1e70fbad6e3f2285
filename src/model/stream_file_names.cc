#include "model/stream_file_names.h"

#include <fmt/format.h>

#include <vector>

namespace covkit::model {

namespace {

constexpr size_t kMaxComponent = 255;  // NAME_MAX

bool has_control_byte(std::string_view name) {
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

Expected<std::string> stream_file_relative_path(std::string_view name, unsigned strip) {
  if (has_control_byte(name)) return Error("the name holds control characters");
  if (!name.ends_with(".gcda")) return Error("the name does not end in .gcda");
  std::vector<std::string_view> parts;
  for (size_t start = 0; start <= name.size();) {
    size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    const std::string_view part = name.substr(start, slash - start);
    if (part == "..") return Error("the name has a '..' component (it could reach outside the output directory)");
    if (part.size() > kMaxComponent)
      return Error(fmt::format("a component of {} bytes (at most {})", part.size(), kMaxComponent));
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  if (parts.empty() || parts.back() == ".gcda") return Error("the name has no file name before .gcda");
  if (strip >= parts.size())
    return Error(fmt::format("--strip {} leaves nothing of a name of {} components", strip, parts.size()));
  std::string relative;
  for (size_t i = strip; i < parts.size(); ++i) {
    if (!relative.empty()) relative += '/';
    relative += parts[i];
  }
  return relative;
}

}  // namespace covkit::model
