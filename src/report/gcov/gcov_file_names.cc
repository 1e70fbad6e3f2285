#include "report/gcov/gcov_file_names.h"

#include "util/md5.h"
#include "util/path_names.h"

namespace covkit::report {

namespace {

std::string strip_extension(std::string s) {
  size_t dot = s.rfind('.');
  if (dot != std::string::npos) s.resize(dot);
  return s;
}

std::string mangle_name(const std::string& name, const NameOptions& o) {
  return o.preserve_paths ? mangle_path(name) : std::string(util::last_path_component(name));
}

}  // namespace

std::string mangle_path(std::string_view path) {
  std::string out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t probe = path.find('/', pos);
    if (probe == std::string_view::npos) probe = path.size();
    std::string_view part = path.substr(pos, probe - pos);
    out += part == ".." ? std::string_view("^") : part;
    if (probe < path.size()) {
      out += '#';
      probe++;
    }
    pos = probe;
  }
  return out;
}

std::string gcov_file_name(const std::string& input_name, const std::string& src_name, const NameOptions& o) {
  if (o.hash_names) return mangle_name(src_name, o) + "##" + util::md5_hex(src_name) + ".gcov";
  std::string out;
  if (o.long_names && src_name != input_name) out += mangle_name(input_name, o) + "##";
  return out + mangle_name(src_name, o) + ".gcov";
}

std::string json_file_name(const std::string& input_name, const NameOptions& o) {
  std::string base(util::last_path_component(input_name));
  std::string out = strip_extension(base);
  if (o.hash_names) {
    out += "##" + util::md5_hex(input_name);
  } else if (o.preserve_paths && base != input_name) {
    out += "##" + mangle_path(input_name);
    out = strip_extension(out);
  }
  return out + ".gcov.json.gz";
}

}  // namespace covkit::report
