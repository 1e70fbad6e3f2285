#pragma once
// One function's control-flow graph from its machine code, found by
// following the code from where control enters it (recursive descent),
// never by decoding every byte of the symbol: the alignment padding after
// a jmp or ret, and data, are no blocks, so nothing is planted there.
//
// Control enters at the function's entry, at the places other functions
// jump into (a .cold part's entries), and at the cases of every jump table
// (indirect_jumps.h) - those are followed. It may also enter where the CFG
// cannot see: exception landing pads, the targets of an indirect jump
// whose table was not understood. So every *candidate* (a line-table row
// or a symbol inside the function; without line information, every
// instruction after an unconditional transfer that is not padding) that
// the descent did not reach is followed too, when it is an instruction
// start of the linear decoding and its code agrees with what is known; its
// blocks are *roots*, entered from outside.
//
// Blocks end at every control transfer, calls included (so a block ran
// whole or not at all, unless something inside it faults). Leaving the
// function (ret, a tail call - a jump out of [address, address+size) -, a
// noreturn call, hlt/ud2/int3) is an exit: the post-dominators' virtual
// exit. A function whose code cannot be decoded where control reaches it
// (bytes that are no instruction, instructions that overlap) is not
// complete: the breakpoint plan leaves it alone and says so.
#include <cstdint>
#include <functional>
#include <span>
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
  tail_call,      // jumps out of the function (to another function's entry, a PLT stub)
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
  bool candidate = false;            // an unknown jump may land here (see FunctionCfg::graph)

  uint64_t last_insn_address(const std::vector<DecodedInsn>& insns) const {
    return insns[first_insn + insn_count - 1].address;
  }
};

struct FunctionCfg {
  std::string name;
  uint64_t address = 0, size = 0;
  std::vector<DecodedInsn> insns;  // the instructions control reaches, by address
  std::vector<BasicBlock> blocks;  // sorted by start; blocks[0] is the entry
  std::vector<int> roots;          // other blocks control enters from outside (see above)
  bool unknown_jumps = false;      // some indirect jump's targets are unknown
  bool complete = true;            // false: see `problem`
  std::string problem;             // why the code could not be decoded ("undecodable bytes at 0x...")
  // Addresses outside the function its jumps and tables go to (a .cold
  // part's entries): the module makes them roots of the function there.
  std::vector<uint64_t> outside_targets;

  // The block holding vaddr (-1 if none).
  int block_at(uint64_t vaddr) const;
  // The index in insns of the instruction at exactly vaddr (-1 if none).
  int insn_at(uint64_t vaddr) const;
  // The graph the dominator analyses use: node i < blocks.size() is block
  // i. When control enters elsewhere than the entry (roots), a virtual
  // root node has edges to the entry and every root, and is the graph's
  // entry; when an indirect jump's targets are unknown, a node stands for
  // them, with an edge from each such jump and to every candidate block.
  // Nodes past the blocks are no blocks: users skip them.
  Graph graph() const;
  // Which nodes of graph() have an edge to the virtual exit. With
  // `calls_exit`, every block ending in a call does too: the callee may
  // never return (longjmp, exit deep inside, an exception), so
  // post-dominance must not cross calls.
  std::vector<bool> exits(bool calls_exit) const;
  // Whether some block the entry reaches leaves the function other than by
  // a noreturn call or a halt (the noreturn fixpoint's test).
  bool may_return() const;
};

// Whether a call to `target` (named `name` if known, else empty) never returns.
using NoreturnOracle = std::function<bool(uint64_t target, const std::string& name)>;

// What the module knows of a function beyond its own bytes.
struct CfgHints {
  std::vector<uint64_t> roots;       // where other functions jump in (its entries as a .cold part)
  // Where this function's .cold parts jump back into it: a jump into a
  // part may come back at any of them (an edge to each), so the function's
  // own dominators stay what they are without the detour.
  std::vector<uint64_t> part_returns;
  std::span<const uint64_t> candidates;  // sorted: line-table rows and symbols inside it
  bool line_info = false;                // the module has line rows for this function
};

// `sweep`: the symbol's bytes decoded front to back (decode_function).
FunctionCfg build_function_cfg(const BinaryImage& image, const FunctionSymbol& fn, std::span<const DecodedInsn> sweep,
                               const CfgHints& hints, const NoreturnOracle& noreturn);

}  // namespace covkit::sample
