#pragma once
// One function's control-flow graph from its machine code. Blocks end at
// every control transfer, calls included (so a block ran whole or not at
// all, unless something inside it faults), and start at the function's
// entry, every branch or jump-table target inside it and every instruction
// after a block end. Leaving the function (ret, a tail call - a jump out of
// [address, address+size) -, a noreturn call, hlt/ud2/int3, an unresolved
// indirect jump) is an exit: the post-dominators' virtual exit.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sample/binary_image.h"
#include "sample/dominators.h"
#include "sample/instruction_decoder.h"

namespace covkit::sample {

enum class BlockEnd : uint8_t {
  fallthrough,    // the next instruction starts another block
  cond_jump,      // taken: target block (or out of the function), else the next block
  jump,           // to a block of this function
  jump_table,     // an indirect jump whose table was read: every entry is a successor
  call,           // returns to the next block (as far as anyone knows)
  noreturn_call,  // calls a function that never returns: no successor
  ret,
  tail_call,      // jumps out of the function (to another function's entry, a .cold part, a PLT stub)
  unknown_jump,   // indirect jump not understood: successors unknown
  halt,           // hlt, ud2, int3, undecodable bytes
  falls_off,      // the last instruction of the symbol is not a transfer
};

struct BasicBlock {
  uint64_t start = 0, end = 0;       // [start, end) in the file's addresses
  size_t first_insn = 0, insn_count = 0;
  BlockEnd kind = BlockEnd::fallthrough;
  std::vector<int> succ;             // block indices, no duplicates
  bool exits = false;                // an edge to the virtual exit (see above)
  uint64_t callee = 0;               // kind == call/noreturn_call, direct calls
  std::string callee_name;           // when known (a symbol or PLT import)

  uint64_t last_insn_address(const std::vector<DecodedInsn>& insns) const {
    return insns[first_insn + insn_count - 1].address;
  }
};

struct FunctionCfg {
  std::string name;
  uint64_t address = 0, size = 0;
  std::vector<DecodedInsn> insns;
  std::vector<BasicBlock> blocks;  // sorted by start; blocks[0] is the entry

  // The block holding vaddr (-1 if none).
  int block_at(uint64_t vaddr) const;
  // The index in insns of the instruction at exactly vaddr (-1 if none).
  int insn_at(uint64_t vaddr) const;
  Graph graph() const;
  // Which blocks have an edge to the virtual exit. With `calls_exit`, every
  // block ending in a call does too: the callee may never return (longjmp,
  // exit deep inside, an exception), so post-dominance must not cross calls.
  std::vector<bool> exits(bool calls_exit) const;
  // Whether some block the entry reaches leaves the function other than by
  // a noreturn call or a halt (the noreturn fixpoint's test).
  bool may_return() const;
};

// Whether a call to `target` (named `name` if known, else empty) never returns.
using NoreturnOracle = std::function<bool(uint64_t target, const std::string& name)>;

FunctionCfg build_function_cfg(const BinaryImage& image, const FunctionSymbol& fn, std::vector<DecodedInsn> insns,
                               const NoreturnOracle& noreturn);

}  // namespace covkit::sample
