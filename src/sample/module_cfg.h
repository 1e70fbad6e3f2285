#pragma once
// Every function of one module as a CFG, with the module's noreturn
// functions found by a fixpoint: start from the library names
// (noreturn_names), then a local function none of whose reachable blocks
// returns or leaves (every path ends in a noreturn call or a halt) is
// noreturn too; calls to it lose their fall-through, which may make its
// callers noreturn, until nothing changes. This under-approximates (as
// ddisasm's analysis does): a function is only called noreturn on proof.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "sample/binary_image.h"
#include "sample/function_cfg.h"

namespace covkit::sample {

struct BlockRef {
  int function = -1, block = -1;
  auto operator<=>(const BlockRef&) const = default;
};

struct ModuleCfg {
  BinaryImage image;
  std::vector<FunctionCfg> functions;     // parallel to image.functions(), sorted by address
  std::set<uint64_t> noreturn_functions;  // entries of local functions found noreturn

  // The function and block holding a file-relative vaddr.
  std::optional<BlockRef> locate(uint64_t vaddr) const;
  const BasicBlock& block(BlockRef r) const { return functions[size_t(r.function)].blocks[size_t(r.block)]; }
};

ModuleCfg build_module_cfg(BinaryImage image);

}  // namespace covkit::sample
