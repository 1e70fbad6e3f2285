#include "model/source_paths.h"

#include <sys/stat.h>

#include <cstdlib>

#include "format/object_files.h"

namespace covkit::model {

namespace {

// `prefix` names a directory: it must end at a path component boundary.
bool strip_dir_prefix(const std::string& path, const std::string& prefix, std::string& rest) {
  if (prefix.empty() || path.compare(0, prefix.size(), prefix) != 0) return false;
  if (path.size() == prefix.size()) {
    rest.clear();
    return true;
  }
  if (prefix.back() == '/') {
    rest = path.substr(prefix.size());
    return true;
  }
  if (path[prefix.size()] != '/') return false;
  rest = path.substr(prefix.size() + 1);
  return true;
}

// The working directory as the shell names it: $PWD when that is the same
// directory as getcwd()'s, which resolves symbolic links; "" otherwise. GCC
// records this name as the compile directory (libiberty's getpwd), so in a
// project reached through a link its sources lie under it, not under the
// physical path.
std::string logical_current_dir() {
  const char* pwd = std::getenv("PWD");
  struct stat named {}, here {};
  if (!pwd || pwd[0] != '/' || ::stat(pwd, &named) != 0 || ::stat(".", &here) != 0) return {};
  if (named.st_dev != here.st_dev || named.st_ino != here.st_ino) return {};
  return format::absolute_path(pwd);
}

}  // namespace

SourcePathRules::SourcePathRules(std::string root, std::string source_prefix,
                                 std::vector<std::pair<std::string, std::string>> maps)
    : root_(format::absolute_path(root.empty() ? "." : root)),
      source_prefix_(std::move(source_prefix)),
      maps_(std::move(maps)) {
  // A relative root is taken from the shell's working directory, as GCC
  // names it; the physical one stays an alias, for sources compiled there.
  if (root.empty() || root[0] != '/') {
    const std::string pwd = logical_current_dir();
    if (!pwd.empty()) {
      std::string logical = format::absolute_path(root.empty() ? "." : root, pwd);
      if (logical != root_) {
        physical_root_ = root_;
        root_ = std::move(logical);
      }
    }
  }
}

SourcePaths SourcePathRules::resolve(const std::string& recorded, const std::string& compile_dir) const {
  return resolve_absolute(format::absolute_path(recorded, compile_dir));
}

SourcePaths SourcePathRules::resolve_absolute(const std::string& absolute) const {
  SourcePaths p;
  p.absolute = absolute;
  std::string rest;
  for (const auto& [from, to] : maps_) {
    if (strip_dir_prefix(absolute, format::absolute_path(from), rest)) {
      p.absolute = format::absolute_path(rest, to);
      break;
    }
  }
  p.display = p.absolute;
  if (!source_prefix_.empty() && strip_dir_prefix(p.absolute, format::absolute_path(source_prefix_), rest) &&
      !rest.empty())
    p.display = rest;
  else if (strip_dir_prefix(p.absolute, root_, rest) && !rest.empty())
    p.display = rest;
  else if (strip_dir_prefix(p.absolute, physical_root_, rest) && !rest.empty())
    p.display = rest;
  return p;
}

Expected<std::pair<std::string, std::string>> parse_path_map(const std::string& spec) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) return Error("expected OLD=NEW");
  return std::make_pair(spec.substr(0, eq), spec.substr(eq + 1));
}

}  // namespace covkit::model
