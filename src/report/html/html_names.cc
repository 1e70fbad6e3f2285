#include "report/html/html_names.h"

#include "util/md5.h"
#include "util/path_names.h"

namespace covkit::report::html {

namespace {

// Keeps names readable in a file browser yet short enough for any file system
// (255 bytes) once the hash is appended.
constexpr size_t kMaxStem = 120;

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

std::string readable_stem(std::string_view path) {
  std::string stem;
  // The tail of a long path says more about the file than its head.
  std::string_view tail = path.size() > kMaxStem ? path.substr(path.size() - kMaxStem) : path;
  for (char c : tail) stem += safe_char(c) ? c : '_';
  return stem;
}

}  // namespace

std::string page_file_name(std::string_view source_path) {
  std::string stem = readable_stem(source_path);
  // A leading '.' would hide the page (and "..." looks like a parent).
  if (stem.empty() || stem[0] == '.') stem.insert(0, "_");
  return stem + '-' + util::md5_hex(source_path).substr(0, 10) + ".html";
}

std::string directory_page_name(std::string_view directory) {
  std::string key = std::string(directory) + '/';
  return "dir-" + readable_stem(directory) + '-' + util::md5_hex(key).substr(0, 10) + ".html";
}

std::string directory_of(std::string_view source_path) {
  size_t slash = source_path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(source_path.substr(0, slash));
}

std::string base_name_of(std::string_view source_path) {
  return std::string(util::last_path_component(source_path));
}

}  // namespace covkit::report::html
