#pragma once
// Every function of one module as a CFG. Built in rounds until nothing
// changes:
//  - noreturn functions: start from the library names (noreturn_names);
//    a local function none of whose reachable blocks returns or leaves
//    (every path ends in a noreturn call or a halt) is noreturn too; calls
//    to it lose their fall-through, which may make its callers noreturn.
//    This under-approximates (as ddisasm's analysis does): a function is
//    only called noreturn on proof.
//  - jumps between functions: where a function jumps into another one
//    other than at its entry (a .cold part's entries), that place is a
//    root of the other; where a .cold part jumps back into its function,
//    the function's jumps into the part may return there.
// Only the functions a round changes are built again.
#include <cstdint>
#include <optional>
#include <set>
#include <span>
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

// `candidates`: sorted addresses where blocks may start, from the module's
// line table (every row) - see function_cfg.h; empty without line
// information (then each function finds its own).
ModuleCfg build_module_cfg(BinaryImage image, std::span<const uint64_t> candidates = {});

}  // namespace covkit::sample
