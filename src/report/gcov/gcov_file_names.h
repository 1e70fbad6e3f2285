#pragma once
// Output file names as gcov chooses them: basename, or with -p the whole path
// mangled ('/' -> '#', '..' -> '^'), with -l prefixed by the input's name,
// with -x shortened by an MD5 of the path.
#include <string>
#include <string_view>

namespace covkit::report {

struct NameOptions {
  bool long_names = false;      // -l
  bool preserve_paths = false;  // -p
  bool hash_names = false;      // -x
};

std::string mangle_path(std::string_view path);
// The .gcov file for source `src_name` reached from input `input_name`.
std::string gcov_file_name(const std::string& input_name, const std::string& src_name, const NameOptions& o);
// The .gcov.json.gz file for input `input_name`.
std::string json_file_name(const std::string& input_name, const NameOptions& o);

}  // namespace covkit::report
