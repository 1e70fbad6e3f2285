#include "trace/profile_view.h"

#include <algorithm>
#include <string_view>

namespace covkit::trace {

namespace {

void sort_functions(std::vector<FunctionStats>& fns, const std::string& key) {
  auto by = [&](auto field) {
    std::stable_sort(fns.begin(), fns.end(), [&](const FunctionStats& a, const FunctionStats& b) {
      return field(a) != field(b) ? field(a) > field(b) : a.name < b.name;
    });
  };
  if (key == "calls") by([](const FunctionStats& f) { return f.calls; });
  else if (key == "exclusive") by([](const FunctionStats& f) { return f.exclusive_ns; });
  else if (key == "name")
    std::stable_sort(fns.begin(), fns.end(), [](const FunctionStats& a, const FunctionStats& b) { return a.name < b.name; });
  else by([](const FunctionStats& f) { return f.inclusive_ns; });
}

}  // namespace

std::vector<FunctionStats> shown_functions(std::vector<FunctionStats> functions, const ProfileView& view) {
  sort_functions(functions, view.sort);
  if (view.limit && functions.size() > view.limit) functions.resize(view.limit);
  return functions;
}

std::vector<std::string> match_functions(const CallProfile& profile, const std::string& func) {
  std::vector<std::string> exact, bare, partial;
  for (const auto& f : profile.functions) {
    std::string_view name = f.name;
    if (name == func) exact.push_back(f.name);
    else if (name.substr(0, name.find('(')) == func) bare.push_back(f.name);
    else if (name.find(func) != std::string_view::npos) partial.push_back(f.name);
  }
  return !exact.empty() ? exact : !bare.empty() ? bare : partial;
}

}  // namespace covkit::trace
