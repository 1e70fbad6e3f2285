#pragma once
// x86-64 machine code into the few facts the CFG needs, one record per
// instruction (capstone does the decoding). Keeping capstone's types out of
// the other files lets the CFG and jump-table code be tested on plain data.
#include <cstdint>
#include <span>
#include <vector>

namespace covkit::sample {

enum class Flow : uint8_t {
  plain,          // falls through to the next instruction
  cond_jump,      // jcc, jrcxz, loop: to `target` or the next instruction
  jump,           // jmp to `target`
  indirect_jump,  // jmp through a register or memory
  call,           // call `target`
  indirect_call,  // call through a register or memory
  ret,
  halt,           // hlt, ud2, int3: execution does not go on here
  invalid,        // bytes capstone could not decode (data, or a damaged file)
};

// An operand as the jump-table patterns look at it. Registers are
// capstone's x86_reg numbers; `canonical_register` folds eax/ax/al to rax.
struct Operand {
  enum Kind : uint8_t { kNone, kReg, kImm, kMem } kind = kNone;
  int reg = 0;  // kind == kReg
  int64_t imm = 0;
  int base = 0, index = 0, scale = 1;  // kind == kMem (0 = no register)
  int64_t disp = 0;
};

struct DecodedInsn {
  uint64_t address = 0;
  uint8_t size = 0;
  Flow flow = Flow::plain;
  unsigned id = 0;      // capstone's x86_insn
  uint64_t target = 0;  // direct jumps and calls; for `jmp/call *slot(%rip)` the slot's address
  bool rip_slot = false;  // target is a memory slot (rip-relative), not code
  uint8_t op_count = 0;
  Operand ops[2];

  uint64_t next() const { return address + size; }
};

// Decodes [address, address + bytes.size()); an undecodable byte becomes a
// one-byte `invalid` record and decoding goes on after it.
std::vector<DecodedInsn> decode_function(uint64_t address, std::span<const uint8_t> bytes);

// The 64-bit register a general-purpose register is part of (al, ax, eax ->
// rax), so that `cmp $9, %edi` bounds the index in `(,%rdi,8)`.
int canonical_register(int reg);

}  // namespace covkit::sample
