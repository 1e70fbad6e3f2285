#pragma once
// Which source files a report keeps: --filter/--exclude regular expressions
// (matched against the displayed and the absolute path, like gcovr) and
// system headers, which nobody wants in their project's numbers by default.
#include <regex>
#include <string>
#include <vector>

#include "model/source_paths.h"

namespace covkit::model {

class PathFilter {
 public:
  // Throws std::regex_error for a bad pattern (the CLI reports it).
  PathFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
             bool keep_system_headers);

  bool keep(const SourcePaths& p) const;

 private:
  std::vector<std::regex> include_, exclude_;
  bool keep_system_headers_;
};

// /usr/include, the compiler's own headers, and the like.
bool is_system_header(const std::string& absolute_path);

}  // namespace covkit::model
