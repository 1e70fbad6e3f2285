#include "model/diff_coverage.h"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <unordered_map>

#include "format/object_files.h"
#include "model/coverage_filters.h"
#include "model/diff_lines.h"
#include "util/printable.h"

namespace covkit::model {

namespace {

std::string canonical(const std::string& p) {
  std::error_code ec;
  std::filesystem::path c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

}  // namespace

Expected<DiffScope> restrict_to_diff(ProjectCov& project, const std::string& rev, const std::string& root) {
  auto changed = changed_lines_since(rev, root);
  if (!changed) return Error(fmt::format("--diff {}: {}", util::printable(rev), changed.error().message));
  const std::string top = canonical(format::absolute_path(changed->toplevel)) + "/";
  std::unordered_map<const FileCov*, std::optional<std::string>> rel;  // file -> path below top
  DiffScope scope;
  scope.toplevel = changed->toplevel;
  restrict_lines(project, [&](const FileCov& f, uint32_t line) {
    auto [it, added] = rel.try_emplace(&f);
    if (added) {
      std::string abs = canonical(f.absolute_path);
      if (abs.compare(0, top.size(), top) == 0) {
        it->second = abs.substr(top.size());
        ++scope.files_in_checkout;
      }
    }
    return it->second && changed->contains(*it->second, line);
  });
  return scope;
}

}  // namespace covkit::model
