#include "format/coverage_file_format.h"

namespace covkit::format {

namespace {

// "KEY:" with KEY in capitals, as every lcov record line starts.
bool starts_with_lcov_key(std::string_view line) {
  size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (char c : line.substr(0, colon))
    if (c < 'A' || c > 'Z') return false;
  return true;
}

std::string_view first_content_line(std::string_view text) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && line[first] != '#') return line.substr(first);
  }
  return {};
}

}  // namespace

std::optional<CoverageFileFormat> detect_coverage_format(std::string_view name, std::string_view text) {
  // The start tells; a huge file is not scanned whole for its first line.
  text = text.substr(0, size_t(1) << 20);
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return CoverageFileFormat::kCovkitJson;
  if (starts_with_lcov_key(first_content_line(text))) return CoverageFileFormat::kLcov;
  // Empty: a tracefile without records (every prefix of a tracefile is one).
  if (first == std::string_view::npos) return CoverageFileFormat::kLcov;
  if (name.ends_with(".info") || name.ends_with(".lcov")) return CoverageFileFormat::kLcov;
  if (name.ends_with(".json")) return CoverageFileFormat::kCovkitJson;
  return std::nullopt;
}

}  // namespace covkit::format
