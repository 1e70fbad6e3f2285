#include "trace/patch_sites.h"

#include <fmt/format.h>

#include <algorithm>

#include "format/elf_symbols.h"
#include "runtime/trace/trace_contract.h"

namespace covkit::trace {

namespace {

// How far a function's entry may be from where its NOPs start (M of the N
// NOPs of -fpatchable-function-entry=N,M come before the entry).
constexpr uint64_t kMaxPrefix = 64;
constexpr uint64_t kEndbr64Size = 4;

}  // namespace

PatchPlan plan_patches(const std::vector<FilterRule>& patterns, const std::vector<std::string>& modules) {
  PatchPlan plan;
  std::vector<bool> used(patterns.size(), false);
  for (const std::string& module : modules) {
    if (module.find('\n') != std::string::npos) continue;
    auto entries = format::patchable_entries(module);
    if (!entries || entries->empty()) continue;
    auto symbols = format::function_symbols(module);
    if (!symbols) continue;
    uint64_t last_site = 0;
    for (uint64_t nops : *entries) {
      // The function whose NOPs these are: one starting an endbr64 before
      // them (-fcf-protection puts it first), else the first at or after
      // them (M NOPs before the entry).
      auto it = std::lower_bound(symbols->begin(), symbols->end(), nops,
                                 [](const format::FunctionSymbol& s, uint64_t a) { return s.address < a; });
      if (it != symbols->begin() && nops - std::prev(it)->address <= kEndbr64Size &&
          (it == symbols->end() || it->address != nops)) {
        it = std::prev(it);
        while (it != symbols->begin() && std::prev(it)->address == it->address) it = std::prev(it);
      }
      if (it == symbols->end() || (it->address > nops && it->address - nops > kMaxPrefix) ||
          it->address == last_site)
        continue;
      last_site = it->address;
      plan.patchable++;
      bool named = false;
      for (auto alias = it; alias != symbols->end() && alias->address == it->address; ++alias) {
        const FunctionNames names(alias->name);
        for (size_t i = 0; i < patterns.size(); ++i)
          if (rule_matches(patterns[i], names)) {
            used[i] = true;
            named = true;
          }
      }
      if (named) plan.sites.push_back({module, it->address, it->name});
    }
  }
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (!used[i]) plan.unmatched.push_back(patterns[i].pattern);
    if (patterns[i].pattern.find('\n') == std::string::npos)
      plan.later.emplace_back(patterns[i].exact, patterns[i].pattern);
  }
  std::stable_sort(plan.sites.begin(), plan.sites.end(), [](const PatchSite& a, const PatchSite& b) {
    return a.module != b.module ? a.module < b.module : a.site < b.site;
  });
  return plan;
}

std::string patch_file_text(const PatchPlan& plan) {
  std::string out = std::string(CKT_PATCH_MAGIC) + "\n";
  for (const PatchSite& s : plan.sites) out += fmt::format("{:x} {}\n", s.site, s.module);
  for (const auto& [exact, pattern] : plan.later)
    out += fmt::format("{}{}{}\n", CKT_PATCH_LATER_PATTERN, exact ? CKT_PATCH_EXACT : CKT_PATCH_REGEX, pattern);
  return out;
}

}  // namespace covkit::trace
