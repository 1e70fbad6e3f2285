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
                       bool keep_system_headers)
    : include_(compile(include)), exclude_(compile(exclude)), keep_system_headers_(keep_system_headers) {}

bool PathFilter::keep(const SourcePaths& p) const {
  if (!keep_system_headers_ && is_system_header(p.absolute)) return false;
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

}  // namespace covkit::model
