#pragma once
// x86-64 machine code into the few facts the CFG and the indirect-jump
// analysis need, one record per instruction. Zydis 4 decodes: every
// encoding a current CPU runs (VEX, EVEX/AVX-512, AMX, every prefix form),
// so an instruction's length is never guessed; a breakpoint planted at the
// wrong byte would land inside an instruction (SIGILL or a corrupt
// operand). Zydis' types stay in instruction_decoder.cc, so that the CFG
// and jump-table code can be tested on plain data. Zydis is loaded when
// first needed (zydis_library.h); without it nothing decodes.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace covkit::sample {

enum class Flow : uint8_t {
  plain,          // falls through to the next instruction
  cond_jump,      // jcc, jrcxz, loop: to `target` or the next instruction
  jump,           // jmp to `target`
  indirect_jump,  // jmp through a register or memory (or a far jump)
  call,           // call `target`
  indirect_call,  // call through a register or memory
  ret,            // ret, iret, sysret
  halt,           // hlt, ud0/1/2, int3: execution does not go on here
  invalid,        // bytes that are no instruction (data, or a damaged file)
};

// General-purpose registers by their 64-bit names, numbered as the CPU
// does: an operand eax, ax, al or ah names rax, with its width in
// Operand::size. Everything else (vector, segment, control registers) is
// `other`.
enum class Reg : int8_t {
  none = -1, rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15, other
};
inline constexpr int kGprCount = 16;
inline constexpr uint16_t reg_bit(Reg r) { return r >= Reg::rax && r <= Reg::r15 ? uint16_t(1u << int(r)) : 0; }
// What a call may leave changed: the System V ABI's caller-saved registers.
inline constexpr uint16_t kCallClobbered = reg_bit(Reg::rax) | reg_bit(Reg::rcx) | reg_bit(Reg::rdx) |
                                           reg_bit(Reg::rsi) | reg_bit(Reg::rdi) | reg_bit(Reg::r8) |
                                           reg_bit(Reg::r9) | reg_bit(Reg::r10) | reg_bit(Reg::r11);

// The instructions the indirect-jump analysis follows; the rest is `other`.
enum class Op : uint8_t { other, mov, movzx, movsx, lea, add, sub, and_, xor_, cmp, test, shl, shr, nop, jcc };

// A conditional jump's condition, as it reads the flags of `cmp a, b`
// (unsigned: b/ae/be/a; signed: l/ge/le/g).
enum class Cond : uint8_t { none, o, no, b, ae, e, ne, be, a, s, ns, p, np, l, ge, le, g, rcxz, loop };

struct Operand {
  enum Kind : uint8_t { kNone, kReg, kImm, kMem } kind = kNone;
  uint8_t size = 0;     // bytes read or written
  Reg reg = Reg::none;  // kReg
  bool high_byte = false;  // ah, ch, dh, bh
  int64_t imm = 0;      // kImm, sign-extended as the instruction extends it
  // kMem: [base + index * scale + disp]. A rip-relative operand is an
  // absolute address here: base none, disp the address.
  Reg base = Reg::none, index = Reg::none;
  uint8_t scale = 1;
  int64_t disp = 0;
  bool segment = false;  // %fs:/%gs: relative (thread-local), never a table
};

struct DecodedInsn {
  uint64_t address = 0;
  uint8_t size = 0;
  Flow flow = Flow::plain;
  Op op = Op::other;
  Cond cond = Cond::none;  // op == jcc
  uint64_t target = 0;  // direct jumps and calls; for `jmp/call *slot(%rip)` the slot's address
  bool rip_slot = false;  // target is a memory slot (rip-relative), not code
  bool nop = false;       // a no-op of any form (nop, nopw, xchg %ax,%ax, ...): padding when unreached
  uint8_t op_count = 0;   // explicit operands, destination first (Intel order)
  Operand ops[3];
  uint16_t writes = 0;    // reg_bit() of every GPR it writes, explicitly or implicitly
  bool writes_flags = false;

  uint64_t next() const { return address + size; }
  bool writes_reg(Reg r) const { return (writes & reg_bit(r)) != 0; }
};

// The instruction at the start of `bytes` (which may run past it; at most
// 15 are read), or nullopt when the bytes are no valid instruction, or a
// branch whose length and target depend on the processor's vendor (an
// operand-size prefix without REX.W: Intel ignores it, AMD does not).
std::optional<DecodedInsn> decode_instruction(uint64_t address, std::span<const uint8_t> bytes);

// Only the length, without operands (faster): for the differential test
// and the emulation's steps; nullopt as decode_instruction's.
std::optional<uint32_t> instruction_length(std::span<const uint8_t> bytes);

// Decodes [address, address + bytes.size()) front to back (a linear sweep);
// an undecodable byte becomes a one-byte `invalid` record and decoding
// goes on after it.
std::vector<DecodedInsn> decode_function(uint64_t address, std::span<const uint8_t> bytes);

}  // namespace covkit::sample
