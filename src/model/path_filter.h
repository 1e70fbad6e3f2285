#pragma once
// Which source files a report keeps: --filter/--exclude regular expressions
// (matched against the displayed and the absolute path, like gcovr), and by
// default neither system headers nor CMake's compiler probes, which nobody
// wants in their project's numbers.
#include <regex>
#include <string>
#include <vector>

#include "model/source_paths.h"

namespace covkit::model {

class PathFilter {
 public:
  // Throws std::regex_error for a bad pattern (the CLI reports it).
  PathFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
             bool keep_system_headers, bool keep_cmake_probes = false);

  bool keep(const SourcePaths& p) const;

 private:
  std::vector<std::regex> include_, exclude_;
  bool keep_system_headers_;
  bool keep_cmake_probes_;
};

// /usr/include, the compiler's own headers, and the like.
bool is_system_header(const std::string& absolute_path);

// Sources CMake compiles while it configures, with the project's flags (so
// with --coverage): the compiler identification
// (CMakeFiles/<version>/CompilerId<LANG>/CMake<LANG>CompilerId.<ext>) and
// try-compile checks (CMakeFiles/CMakeScratch/..., CMakeFiles/CMakeTmp/...).
bool is_cmake_probe(const std::string& absolute_path);

}  // namespace covkit::model
