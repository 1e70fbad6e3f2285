#include "report/html/html_site_marker.h"

#include <optional>


namespace covkit::report::html {

namespace {

constexpr std::string_view kHeader = "covkit html report: the files covkit wrote (it replaces them as a whole)";

bool plain_name(std::string_view n) { return !n.empty() && n != "." && n != ".." && n.find('/') == n.npos; }

}  // namespace

std::string marker_text(std::span<const std::string> written) {
  std::string text(kHeader);
  text += '\n';
  for (const std::string& n : written) text += n + '\n';
  return text;
}

std::unordered_set<std::string> marker_names(std::string_view text) {
  std::unordered_set<std::string> names;
  if (!text.starts_with(kHeader) || text.size() == kHeader.size() || text[kHeader.size()] != '\n') return names;
  names.emplace(kMarkerFileName);
  for (size_t pos = kHeader.size() + 1; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view n = text.substr(pos, end - pos);
    if (plain_name(n)) names.emplace(n);
    pos = end + 1;
  }
  return names;
}

}  // namespace covkit::report::html
