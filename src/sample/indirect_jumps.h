#pragma once
// The targets of an indirect jump through a table, read from the binary's
// data. Not by matching a fixed window of instructions: the jump's target
// is evaluated backwards, through every path of the function's code found
// so far (reaching definitions, so a table base loaded once at the
// function's entry into a callee-saved register counts), into
//     target = load8(T + 8 * i)              absolute entries (non-PIE
//                                            switches, computed goto)
//     target = B + sext(load4(T + 4 * i))    entries relative to B (PIE/PIC)
// and the index i is bounded on every path into the jump: by a compare
// and a conditional jump anywhere before it (`cmp $N, x; ja default`,
// jae, or the table on the taken side of jbe/jb; on the index itself, a
// copy of it, the value it was derived from by `sub`/`lea`, or the memory
// it was loaded from), else by its own range (`and $0x7f`, a byte load).
// A table bounded by a compare must hold only valid targets; one bounded
// by a range alone ends at its first invalid entry or the end of its
// symbol (a computed goto's `disptab` has one). Anything else stays
// unresolved: the CFG then treats the jump as one whose targets are
// unknown rather than guess.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "sample/binary_image.h"
#include "sample/instruction_decoder.h"

namespace covkit::sample {

// What the analysis reads of the function being built: its decoded
// instructions and how control reaches each of them.
class CodeView {
 public:
  virtual ~CodeView() = default;
  // The instruction starting at `address`, when the CFG reached it.
  virtual const DecodedInsn* at(uint64_t address) const = 0;
  // The instructions control comes from into `address` (falling through
  // or branching).
  virtual std::span<const uint64_t> predecessors(uint64_t address) const = 0;
  // Where control enters from outside (the entry, a landing pad): values
  // there are unknown.
  virtual bool is_root(uint64_t address) const = 0;

  // What writes the `r` that reaches `address`, as far as a forward
  // analysis of the whole function knows: one instruction, nothing (the
  // value came in from outside), a call that may have clobbered it, or
  // several writers. A view that does not know says `several`, and the
  // analysis walks back by itself.
  enum class Reaching : uint8_t { one, outside, clobbered, several };
  struct ReachingDef {
    Reaching kind = Reaching::several;
    uint64_t at = 0;  // kind == one
  };
  virtual ReachingDef reaching_def(Reg r, uint64_t address) const {
    (void)r;
    (void)address;
    return {};
  }
};

struct JumpTable {
  uint64_t table = 0;        // the address of entry 0
  uint8_t entry_size = 0;    // 8 (absolute) or 4 (relative)
  uint64_t base = 0;         // relative entries: the address they are added to
  bool bounded = false;      // the entry count came from a compare on every path
  std::vector<uint64_t> targets;  // distinct, in table order
};

// Whether `target` may be an entry of the table of the jump at `jump`
// (an instruction start of the function, or of its .cold part).
using TargetCheck = std::function<bool(uint64_t target)>;

std::optional<JumpTable> resolve_jump_table(const BinaryImage& image, const CodeView& code, uint64_t jump,
                                            const TargetCheck& valid);

}  // namespace covkit::sample
