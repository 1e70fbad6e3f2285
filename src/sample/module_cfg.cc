#include "sample/module_cfg.h"

#include <algorithm>
#include <string_view>

#include "sample/noreturn_names.h"

namespace covkit::sample {

namespace {

// Rounds of the module's fixpoint (each round only rebuilds what changed;
// chains of noreturn callers or of parts are short).
constexpr int kMaxRounds = 64;

// The index of the function holding vaddr (-1 if none).
int function_index(const std::vector<FunctionSymbol>& syms, uint64_t vaddr) {
  auto it = std::upper_bound(syms.begin(), syms.end(), vaddr,
                             [](uint64_t a, const FunctionSymbol& f) { return a < f.address; });
  if (it == syms.begin()) return -1;
  --it;
  return vaddr - it->address < it->size ? int(it - syms.begin()) : -1;
}

// gcc's hot/cold splitting: foo.cold (foo.cold.1, ...) is part of foo.
bool is_part_of(const FunctionSymbol& part, const FunctionSymbol& parent) {
  return part.name.starts_with(parent.name) && std::string_view(part.name).substr(parent.name.size()).starts_with(".cold");
}

void add_unique(std::vector<uint64_t>& v, uint64_t x, bool& changed) {
  if (std::find(v.begin(), v.end(), x) != v.end()) return;
  v.push_back(x);
  changed = true;
}

}  // namespace

ModuleCfg build_module_cfg(BinaryImage image, std::span<const uint64_t> candidates) {
  ModuleCfg m{std::move(image), {}, {}};
  const auto& syms = m.image.functions();
  const size_t n = syms.size();
  std::vector<std::vector<DecodedInsn>> sweeps;
  sweeps.reserve(n);
  for (const FunctionSymbol& f : syms) sweeps.push_back(decode_function(f.address, m.image.bytes_at(f.address, f.size)));

  std::vector<CfgHints> hints(n);
  for (size_t i = 0; i < n; ++i) {
    auto lo = std::lower_bound(candidates.begin(), candidates.end(), syms[i].address);
    auto hi = std::lower_bound(lo, candidates.end(), syms[i].address + syms[i].size);
    hints[i].candidates = std::span<const uint64_t>(lo, hi);
    hints[i].line_info = lo != hi;
  }

  NoreturnOracle oracle = [&](uint64_t target, const std::string& name) {
    return (target != 0 && m.noreturn_functions.count(target)) || (!name.empty() && is_known_noreturn(name));
  };
  m.functions.resize(n);
  std::vector<char> dirty(n, 1);
  for (int round = 0; round < kMaxRounds; ++round) {
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (!dirty[i]) continue;
      m.functions[i] = build_function_cfg(m.image, syms[i], sweeps[i], hints[i], oracle);
      dirty[i] = 0;
      any = true;
    }
    if (!any) break;
    // New noreturn functions: their callers change.
    std::set<uint64_t> fresh;
    for (size_t i = 0; i < n; ++i)
      if (!m.noreturn_functions.count(syms[i].address) && !m.functions[i].blocks.empty() &&
          !m.functions[i].may_return())
        fresh.insert(syms[i].address);
    m.noreturn_functions.insert(fresh.begin(), fresh.end());
    for (size_t i = 0; i < n && !fresh.empty(); ++i)
      for (const DecodedInsn& d : m.functions[i].insns)
        if (d.flow == Flow::call && fresh.count(d.target)) {
          dirty[i] = 1;
          break;
        }
    // Jumps between functions.
    for (size_t i = 0; i < n; ++i)
      for (uint64_t t : m.functions[i].outside_targets) {
        int j = function_index(syms, t);
        if (j < 0 || size_t(j) == i || t == syms[size_t(j)].address) continue;
        // A part jumping back into its function returns from a detour
        // the function itself took; anything else enters from outside.
        bool back = is_part_of(syms[i], syms[size_t(j)]);
        bool changed = false;
        add_unique(back ? hints[size_t(j)].part_returns : hints[size_t(j)].roots, t, changed);
        if (changed) dirty[size_t(j)] = 1;
      }
  }
  return m;
}

std::optional<BlockRef> ModuleCfg::locate(uint64_t vaddr) const {
  // By the CFGs' own bounds (sorted by address, as the symbols), so that a
  // ModuleCfg built by hand in tests needs no ELF file.
  auto it = std::upper_bound(functions.begin(), functions.end(), vaddr,
                             [](uint64_t a, const FunctionCfg& f) { return a < f.address; });
  if (it == functions.begin()) return std::nullopt;
  --it;
  if (vaddr - it->address >= it->size) return std::nullopt;
  int bi = it->block_at(vaddr);
  if (bi < 0) return std::nullopt;
  return BlockRef{int(it - functions.begin()), bi};
}

}  // namespace covkit::sample
