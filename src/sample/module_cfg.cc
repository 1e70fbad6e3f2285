#include "sample/module_cfg.h"

#include <algorithm>

#include "sample/noreturn_names.h"

namespace covkit::sample {

ModuleCfg build_module_cfg(BinaryImage image) {
  ModuleCfg m{std::move(image), {}, {}};
  const auto& syms = m.image.functions();
  std::vector<std::vector<DecodedInsn>> decoded;
  decoded.reserve(syms.size());
  for (const FunctionSymbol& f : syms) decoded.push_back(decode_function(f.address, m.image.bytes_at(f.address, f.size)));

  NoreturnOracle oracle = [&](uint64_t target, const std::string& name) {
    return (target != 0 && m.noreturn_functions.count(target)) || (!name.empty() && is_known_noreturn(name));
  };
  for (bool changed = true; changed;) {
    changed = false;
    m.functions.clear();
    for (size_t i = 0; i < syms.size(); ++i) m.functions.push_back(build_function_cfg(m.image, syms[i], decoded[i], oracle));
    for (size_t i = 0; i < syms.size(); ++i) {
      if (m.noreturn_functions.count(syms[i].address) || m.functions[i].may_return()) continue;
      m.noreturn_functions.insert(syms[i].address);
      changed = true;
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
