#include "trace/record_filters.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>

#include "format/elf_symbols.h"
#include "runtime/trace/trace_contract.h"
#include "trace/program_info.h"
#include "util/demangle.h"
#include "util/run_process.h"

namespace covkit::trace {

namespace fs = std::filesystem;

namespace {

bool has_regex_character(const std::string& s) {
  return s.find_first_of(".^$*+?()[]{}|\\") != std::string::npos;
}

// "ns::f(int) const" -> "ns::f": the last balanced parenthesised group and
// what follows it (qualifiers) removed.
std::string without_parameters(const std::string& demangled) {
  size_t close = demangled.rfind(')');
  if (close == std::string::npos) return demangled;
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (demangled[i] == ')') depth++;
    else if (demangled[i] == '(' && --depth == 0) return demangled.substr(0, i);
  }
  return demangled;
}

char action_letter(FilterAction a) {
  switch (a) {
    case FilterAction::only: return CKT_FILTER_ONLY;
    case FilterAction::notrace: return CKT_FILTER_NOTRACE;
    case FilterAction::trace_on: return CKT_FILTER_ON;
    case FilterAction::trace_off: return CKT_FILTER_OFF;
  }
  return CKT_FILTER_ONLY;
}

// Levenshtein distance, for "did you mean" on a misspelt function name.
size_t name_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The function of `module` whose bare name is nearest to `pattern` (at most
// two edits), or "".
std::string nearest_function(const std::string& module, const std::string& pattern) {
  auto symbols = format::function_symbols(module);
  if (!symbols) return {};
  std::string best;
  size_t best_distance = 3;
  for (const format::FunctionSymbol& s : *symbols) {
    // Lengths two apart or more cannot be within two edits: most names are skipped cheaply.
    const std::string bare = FunctionNames(s.name).bare;
    if (bare.size() + 2 < pattern.size() || pattern.size() + 2 < bare.size()) continue;
    const size_t d = name_distance(pattern, bare);
    if (d < best_distance || (d == best_distance && !best.empty() && bare < best)) best_distance = d, best = bare;
  }
  return best;
}

}  // namespace

Expected<FilterRule> parse_filter_rule(FilterAction action, const std::string& pattern) {
  if (pattern.empty()) return Error("an empty function pattern");
  FilterRule rule;
  rule.action = action;
  rule.pattern = pattern;
  rule.exact = !has_regex_character(pattern);
  if (!rule.exact) {
    try {
      rule.regex = std::regex(pattern, std::regex::extended | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return Error(fmt::format("{}: not a regular expression: {}", pattern, e.what()));
    }
  }
  return rule;
}

Expected<FilterRule> parse_trigger_rule(const std::string& value) {
  size_t at = value.rfind('@');
  if (at == std::string::npos)
    return Error(fmt::format("{}: a trigger is PATTERN@trace_on or PATTERN@trace_off", value));
  std::string_view what = std::string_view(value).substr(at + 1);
  FilterAction action;
  if (what == "trace_on") action = FilterAction::trace_on;
  else if (what == "trace_off") action = FilterAction::trace_off;
  else return Error(fmt::format("{}: unknown trigger action '{}' (trace_on or trace_off)", value, what));
  return parse_filter_rule(action, value.substr(0, at));
}

FunctionNames::FunctionNames(const std::string& name)
    : mangled(name), demangled(util::demangle(name)), bare(without_parameters(demangled)) {}

bool rule_matches(const FilterRule& rule, const FunctionNames& names) {
  // A whole name matches whatever characters it holds ("f(int)" too).
  if (rule.pattern == names.mangled || rule.pattern == names.demangled || rule.pattern == names.bare) return true;
  return !rule.exact && std::regex_search(names.demangled, rule.regex);
}

bool rule_matches(const FilterRule& rule, const std::string& mangled) {
  return rule_matches(rule, FunctionNames(mangled));
}

std::vector<std::string> startup_modules(const std::string& prog) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path exe = fs::canonical(prog, ec);
  out.push_back(ec ? prog : exe.string());
  ProgramInfo info = inspect_program(prog);
  if (info.interpreter.empty()) return out;
  util::ProcessResult r = util::run_process({info.interpreter, "--list", prog});
  if (r.spawn_errno != 0 || r.exit_status != 0) return out;
  // "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)"
  size_t pos = 0;
  while (pos < r.out.size()) {
    size_t eol = r.out.find('\n', pos);
    if (eol == std::string::npos) eol = r.out.size();
    std::string_view line(r.out.data() + pos, eol - pos);
    pos = eol + 1;
    size_t arrow = line.find(" => ");
    if (arrow == std::string_view::npos) continue;
    std::string_view path = line.substr(arrow + 4);
    size_t paren = path.rfind(" (");
    if (paren != std::string_view::npos) path = path.substr(0, paren);
    if (!path.empty() && path.front() == '/') out.emplace_back(path);
  }
  return out;
}

FilterPlan plan_filters(const std::vector<FilterRule>& rules, const std::vector<std::string>& modules) {
  FilterPlan plan;
  plan.modules = modules;
  std::vector<bool> used(rules.size(), false);
  for (const std::string& module : modules) {
    if (module.find('\n') != std::string::npos) continue;  // cannot be a line of the filter file
    auto symbols = format::function_symbols(module);
    if (!symbols) continue;  // not ELF, unreadable: nothing of it can be named
    std::map<std::pair<uint64_t, uint64_t>, FilterRange> found;  // aliases merged
    for (const format::FunctionSymbol& s : *symbols) {
      const FunctionNames names(s.name);
      std::string actions;
      for (size_t i = 0; i < rules.size(); ++i) {
        char letter = action_letter(rules[i].action);
        if (actions.find(letter) != std::string::npos || !rule_matches(rules[i], names)) continue;
        actions += letter;
        used[i] = true;
      }
      if (actions.empty()) continue;
      FilterRange& r = found[{s.address, s.address + s.size}];
      if (r.name.empty()) r = {module, s.address, s.address + s.size, "", s.name};
      for (char c : actions)
        if (r.actions.find(c) == std::string::npos) r.actions += c;
    }
    for (auto& [key, range] : found) plan.ranges.push_back(std::move(range));
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!used[i]) {
      plan.unmatched.push_back(rules[i].pattern);
      plan.nearest.push_back(rules[i].exact && !modules.empty() ? nearest_function(modules[0], rules[i].pattern) : "");
    }
    if (rules[i].pattern.find('\n') == std::string::npos)
      plan.later.push_back({action_letter(rules[i].action), rules[i].exact, rules[i].pattern});
  }
  std::stable_sort(plan.ranges.begin(), plan.ranges.end(), [](const FilterRange& a, const FilterRange& b) {
    return a.module != b.module ? a.module < b.module : a.lo < b.lo;
  });
  return plan;
}

std::string filter_file_text(const FilterPlan& plan) {
  std::string out = std::string(CKT_FILTERS_MAGIC) + "\n";
  for (const FilterRange& r : plan.ranges) out += fmt::format("{} {:x} {:x} {}\n", r.actions, r.lo, r.hi, r.module);
  for (const LaterRule& r : plan.later)
    out += fmt::format("{}{} {}{}\n", CKT_PATCH_LATER_PATTERN, r.action, r.exact ? CKT_PATCH_EXACT : CKT_PATCH_REGEX,
                       r.pattern);
  return out;
}

}  // namespace covkit::trace
