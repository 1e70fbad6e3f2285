#include "sample/instruction_decoder.h"

#include "sample/capstone_library.h"

namespace covkit::sample {

namespace {

class Capstone {
 public:
  Capstone() {
    auto library = capstone_library();
    if (!library) return;
    cs_ = *library;
    if (cs_->cs_open(CS_ARCH_X86, CS_MODE_64, &h_) != CS_ERR_OK) {
      h_ = 0;
      return;
    }
    cs_->cs_option(h_, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~Capstone() {
    if (h_) cs_->cs_close(&h_);
  }
  csh handle() const { return h_; }
  const CapstoneLibrary& functions() const { return *cs_; }

 private:
  const CapstoneLibrary* cs_ = nullptr;
  csh h_ = 0;
};

bool in_group(const cs_insn& insn, uint8_t group) {
  const cs_detail* d = insn.detail;
  for (uint8_t i = 0; i < d->groups_count; ++i)
    if (d->groups[i] == group) return true;
  return false;
}

Operand to_operand(const cs_x86_op& op) {
  Operand o;
  switch (op.type) {
    case X86_OP_REG:
      o.kind = Operand::kReg;
      o.reg = op.reg;
      break;
    case X86_OP_IMM:
      o.kind = Operand::kImm;
      o.imm = op.imm;
      break;
    case X86_OP_MEM:
      o.kind = Operand::kMem;
      o.base = op.mem.base;
      o.index = op.mem.index;
      o.scale = op.mem.scale;
      o.disp = op.mem.disp;
      break;
    default: break;
  }
  return o;
}

Flow classify(const cs_insn& insn) {
  switch (insn.id) {
    case X86_INS_HLT:
    case X86_INS_UD2:
    case X86_INS_INT3: return Flow::halt;
    default: break;
  }
  if (in_group(insn, CS_GRP_RET)) return Flow::ret;
  const cs_x86& x = insn.detail->x86;
  bool direct = x.op_count == 1 && x.operands[0].type == X86_OP_IMM;
  if (in_group(insn, CS_GRP_CALL)) return direct ? Flow::call : Flow::indirect_call;
  if (in_group(insn, CS_GRP_JUMP)) {
    if (insn.id == X86_INS_JMP || insn.id == X86_INS_LJMP) return direct ? Flow::jump : Flow::indirect_jump;
    return Flow::cond_jump;
  }
  return Flow::plain;
}

void fill(DecodedInsn& out, const cs_insn& insn) {
  const cs_x86& x = insn.detail->x86;
  out.flow = classify(insn);
  out.op_count = uint8_t(x.op_count < 2 ? x.op_count : 2);
  for (uint8_t i = 0; i < out.op_count; ++i) out.ops[i] = to_operand(x.operands[i]);
  bool branch = out.flow == Flow::jump || out.flow == Flow::cond_jump || out.flow == Flow::call ||
                out.flow == Flow::indirect_jump || out.flow == Flow::indirect_call;
  if (!branch || x.op_count != 1) return;
  const cs_x86_op& op = x.operands[0];
  if (op.type == X86_OP_IMM) {
    out.target = uint64_t(op.imm);
  } else if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP && op.mem.index == X86_REG_INVALID) {
    out.target = out.next() + uint64_t(op.mem.disp);
    out.rip_slot = true;
  }
}

}  // namespace

std::vector<DecodedInsn> decode_function(uint64_t address, std::span<const uint8_t> bytes) {
  static thread_local Capstone cs;
  std::vector<DecodedInsn> out;
  if (!cs.handle()) return out;
  const CapstoneLibrary& lib = cs.functions();
  cs_insn* insn = lib.cs_malloc(cs.handle());
  const uint8_t* code = bytes.data();
  size_t left = bytes.size();
  uint64_t addr = address;
  while (left > 0) {
    const uint8_t* before = code;
    DecodedInsn d;
    d.address = addr;
    if (lib.cs_disasm_iter(cs.handle(), &code, &left, &addr, insn)) {
      d.size = uint8_t(insn->size);
      d.id = insn->id;
      fill(d, *insn);
    } else {
      d.size = 1;
      d.flow = Flow::invalid;
      code = before + 1;
      --left;
      addr = d.address + 1;
    }
    out.push_back(d);
  }
  lib.cs_free(insn, 1);
  return out;
}

int canonical_register(int reg) {
  // Each row: the 64-bit register, then its 32-, 16- and 8-bit parts.
  static const int kFamilies[][5] = {
      {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH},
      {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH},
      {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH},
      {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH},
      {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL},
      {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL},
      {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL},
      {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_REG_SPL},
      {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B},
      {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B},
      {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B},
      {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B},
      {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B},
      {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B},
      {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B},
      {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B},
  };
  for (const auto& f : kFamilies)
    for (int r : f)
      if (r == reg) return f[0];
  return reg;
}

}  // namespace covkit::sample
