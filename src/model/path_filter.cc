#include "model/path_filter.h"

#include <string_view>

namespace covkit::model {

namespace {

std::vector<std::regex> compile(const std::vector<std::string>& patterns) {
  std::vector<std::regex> out;
  out.reserve(patterns.size());
  for (const auto& p : patterns) out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
  return out;
}

bool any_match(const std::vector<std::regex>& res, const SourcePaths& p) {
  for (const auto& re : res)
    if (std::regex_search(p.display, re) || std::regex_search(p.absolute, re)) return true;
  return false;
}

}  // namespace

PathFilter::PathFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       bool keep_system_headers, bool keep_cmake_probes)
    : include_(compile(include)),
      exclude_(compile(exclude)),
      keep_system_headers_(keep_system_headers),
      keep_cmake_probes_(keep_cmake_probes) {}

bool PathFilter::keep(const SourcePaths& p) const {
  if (!keep_system_headers_ && is_system_header(p.absolute)) return false;
  if (!keep_cmake_probes_ && is_cmake_probe(p.absolute)) return false;
  if (!include_.empty() && !any_match(include_, p)) return false;
  return !any_match(exclude_, p);
}

bool is_system_header(const std::string& path) {
  static constexpr std::string_view kDirs[] = {"/usr/include/", "/usr/local/include/", "/usr/lib/gcc/",
                                               "/usr/lib/llvm-", "/usr/lib/clang/", "/opt/homebrew/include/"};
  for (std::string_view d : kDirs)
    if (std::string_view(path).substr(0, d.size()) == d) return true;
  return false;
}

namespace {

// "CompilerIdCXX/CMakeCXXCompilerId.cpp": the directory's language suffix
// names the file, which is the directory's only level.
bool is_compiler_id(std::string_view rest) {
  constexpr std::string_view kDir = "CompilerId";
  size_t slash = rest.find('/');
  if (!rest.starts_with(kDir) || slash == std::string_view::npos || slash == kDir.size()) return false;
  std::string_view lang = rest.substr(kDir.size(), slash - kDir.size());
  std::string_view file = rest.substr(slash + 1);
  std::string_view stem = file.substr(0, file.rfind('.'));
  return file.find('/') == std::string_view::npos && stem.size() == 5 + lang.size() + kDir.size() &&
         stem.starts_with("CMake") && stem.substr(5, lang.size()) == lang && stem.ends_with(kDir);
}

}  // namespace

bool is_cmake_probe(const std::string& path) {
  constexpr std::string_view kCMakeFiles = "/CMakeFiles/";
  std::string_view p = path;
  for (size_t at = p.find(kCMakeFiles); at != std::string_view::npos; at = p.find(kCMakeFiles, at + 1)) {
    std::string_view rest = p.substr(at + kCMakeFiles.size());
    if (rest.starts_with("CMakeScratch/") || rest.starts_with("CMakeTmp/")) return true;
    size_t slash = rest.find('/');  // after the CMake version, e.g. "3.25.1/"
    if (slash != std::string_view::npos && slash > 0 && is_compiler_id(rest.substr(slash + 1))) return true;
  }
  return false;
}

}  // namespace covkit::model
