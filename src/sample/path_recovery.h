#pragma once
// What one sample (or one breakpoint hit) proves ran, as blocks. Only what
// the evidence shows is taken, never a guess:
//  - consecutive taken branches (b_i, b_i+1), oldest first: everything from
//    b_i.to up to b_i+1.from ran, provided that range is straight-line code
//    of one function (blocks linked by fall-through only: a not-taken
//    conditional jump or a leader). A range that would cross a jump, call,
//    ret or function boundary contradicts the CFG (a filtered or damaged
//    vector, or a wrong CFG) and is dropped whole;
//  - the `from` of every pair and the `to` of the last one: their blocks ran;
//  - every single-stepped instruction and the sample's ip: their blocks ran;
//  - every return address on the stack: the call before it ran (its block
//    must end in a call right before the address, else nothing is taken).
// A block counts as run when any instruction of it ran (blocks end at every
// call, so that is the whole block but for faults and an entry mid-block).
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "sample/module_cfg.h"

namespace covkit::sample {

// An address already placed in a module (module index -1: in none analyzed).
struct Located {
  int module = -1;
  uint64_t vaddr = 0;
};

struct LocatedBranch {
  Located from, to;
};

struct SampleEvidence {
  std::vector<LocatedBranch> branches;  // oldest first
  std::vector<Located> steps;
  std::vector<Located> stack;  // return addresses
  std::optional<Located> ip;
};

struct ModuleBlock {
  int module = -1;
  BlockRef block;
  auto operator<=>(const ModuleBlock&) const = default;
};

struct RecoveryStats {
  uint64_t ranges = 0, ranges_dropped = 0;  // branch-to-branch ranges seen / contradicting the CFG
  uint64_t unplaced = 0;                    // addresses in no analyzed function
};

// The blocks one sample proves ran (each once).
std::vector<ModuleBlock> recover_blocks(const std::vector<const ModuleCfg*>& modules, const SampleEvidence& sample,
                                        RecoveryStats* stats = nullptr);

// The straight-line blocks from `to` through `from` in one function, or
// nullopt when the range is not straight-line code.
std::optional<std::vector<BlockRef>> straight_line_range(const ModuleCfg& module, uint64_t to, uint64_t from);

}  // namespace covkit::sample
