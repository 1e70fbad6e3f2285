#include "model/instantiations.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace covkit::model {

namespace {

// Names of the functions of `f` that share their first line with another.
std::set<std::string_view> grouped_functions(const FileCov& f) {
  std::map<uint32_t, std::set<std::string_view>> by_line;
  for (const FunctionCov& fn : f.functions) by_line[fn.start_line].insert(fn.name);
  std::set<std::string_view> out;
  for (const auto& [line, names] : by_line)
    if (names.size() > 1) out.insert(names.begin(), names.end());
  return out;
}

}  // namespace

void prune_instances(ProjectCov& project) {
  for (FileCov& f : project.files) {
    const std::set<std::string_view> grouped = grouped_functions(f);
    for (LineCov& l : f.lines)
      l.instances.erase_if([&](const LineInstance& i) { return !grouped.contains(i.function); });
  }
}

}  // namespace covkit::model
