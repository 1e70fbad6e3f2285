#pragma once
// The last component of a path as the tools covkit stands in for name it
// (gcov's output names, gprof's file matching, HTML page titles, labels):
// everything after the last '/', the whole string when there is none, ""
// for a path that ends in '/'. Text only: nothing is looked up on disk.
#include <string_view>

namespace covkit::util {

inline std::string_view last_path_component(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace covkit::util
