#include "sample/instruction_decoder.h"

#include <algorithm>

#include "runtime/sample/step_decode.h"  // cks_vendor_dependent_branch: the runtime's rule too
#include "sample/zydis_library.h"

namespace covkit::sample {

namespace {

// Zydis' functions (loaded when first needed) and a decoder for x86-64,
// read-only once initialized, so every thread may share it; nullptr when
// the library cannot be loaded (the commands that decode said so first).
struct Decoder {
  const ZydisLibrary* z = nullptr;
  ZydisDecoder decoder;
};

const Decoder* zydis() {
  static const Decoder d = [] {
    Decoder out;
    auto library = zydis_library();
    if (!library) return out;
    out.z = *library;
    out.z->ZydisDecoderInit(&out.decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    return out;
  }();
  return d.z ? &d : nullptr;
}

Reg gpr(ZydisRegister r) {
  if (r == ZYDIS_REGISTER_NONE) return Reg::none;
  ZydisRegister big = zydis()->z->ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
  if (big >= ZYDIS_REGISTER_RAX && big <= ZYDIS_REGISTER_R15) return Reg(int(big - ZYDIS_REGISTER_RAX));
  return Reg::other;
}

bool is_high_byte(ZydisRegister r) {
  return r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_CH || r == ZYDIS_REGISTER_DH || r == ZYDIS_REGISTER_BH;
}

Cond condition(ZydisMnemonic m) {
  switch (m) {
    case ZYDIS_MNEMONIC_JO: return Cond::o;
    case ZYDIS_MNEMONIC_JNO: return Cond::no;
    case ZYDIS_MNEMONIC_JB: return Cond::b;
    case ZYDIS_MNEMONIC_JNB: return Cond::ae;
    case ZYDIS_MNEMONIC_JZ: return Cond::e;
    case ZYDIS_MNEMONIC_JNZ: return Cond::ne;
    case ZYDIS_MNEMONIC_JBE: return Cond::be;
    case ZYDIS_MNEMONIC_JNBE: return Cond::a;
    case ZYDIS_MNEMONIC_JS: return Cond::s;
    case ZYDIS_MNEMONIC_JNS: return Cond::ns;
    case ZYDIS_MNEMONIC_JP: return Cond::p;
    case ZYDIS_MNEMONIC_JNP: return Cond::np;
    case ZYDIS_MNEMONIC_JL: return Cond::l;
    case ZYDIS_MNEMONIC_JNL: return Cond::ge;
    case ZYDIS_MNEMONIC_JLE: return Cond::le;
    case ZYDIS_MNEMONIC_JNLE: return Cond::g;
    case ZYDIS_MNEMONIC_JCXZ:
    case ZYDIS_MNEMONIC_JECXZ:
    case ZYDIS_MNEMONIC_JRCXZ: return Cond::rcxz;
    case ZYDIS_MNEMONIC_LOOP:
    case ZYDIS_MNEMONIC_LOOPE:
    case ZYDIS_MNEMONIC_LOOPNE: return Cond::loop;
    default: return Cond::none;
  }
}

Op operation(ZydisMnemonic m) {
  switch (m) {
    case ZYDIS_MNEMONIC_MOV: return Op::mov;
    case ZYDIS_MNEMONIC_MOVZX: return Op::movzx;
    case ZYDIS_MNEMONIC_MOVSX:
    case ZYDIS_MNEMONIC_MOVSXD: return Op::movsx;
    case ZYDIS_MNEMONIC_LEA: return Op::lea;
    case ZYDIS_MNEMONIC_ADD: return Op::add;
    case ZYDIS_MNEMONIC_SUB: return Op::sub;
    case ZYDIS_MNEMONIC_AND: return Op::and_;
    case ZYDIS_MNEMONIC_XOR: return Op::xor_;
    case ZYDIS_MNEMONIC_CMP: return Op::cmp;
    case ZYDIS_MNEMONIC_TEST: return Op::test;
    case ZYDIS_MNEMONIC_SHL: return Op::shl;
    case ZYDIS_MNEMONIC_SHR: return Op::shr;
    case ZYDIS_MNEMONIC_NOP: return Op::nop;
    default: return Op::other;
  }
}

Operand to_operand(const ZydisDecodedInstruction& insn, const ZydisDecodedOperand& op, uint64_t address) {
  Operand o;
  o.size = uint8_t(op.size / 8);
  switch (op.type) {
    case ZYDIS_OPERAND_TYPE_REGISTER:
      o.kind = Operand::kReg;
      o.reg = gpr(op.reg.value);
      o.high_byte = is_high_byte(op.reg.value);
      break;
    case ZYDIS_OPERAND_TYPE_IMMEDIATE:
      o.kind = Operand::kImm;
      o.imm = op.imm.is_signed ? op.imm.value.s : int64_t(op.imm.value.u);
      break;
    case ZYDIS_OPERAND_TYPE_MEMORY:
      o.kind = Operand::kMem;
      o.scale = op.mem.scale ? op.mem.scale : 1;
      o.disp = op.mem.disp.has_displacement ? op.mem.disp.value : 0;
      o.segment = op.mem.segment == ZYDIS_REGISTER_FS || op.mem.segment == ZYDIS_REGISTER_GS;
      if (op.mem.base == ZYDIS_REGISTER_RIP || op.mem.base == ZYDIS_REGISTER_EIP) {
        ZyanU64 abs = 0;
        if (ZYAN_SUCCESS(zydis()->z->ZydisCalcAbsoluteAddress(&insn, &op, address, &abs))) o.disp = int64_t(abs);
      } else {
        o.base = gpr(op.mem.base);
      }
      o.index = gpr(op.mem.index);
      break;
    default: break;  // far pointers: kNone
  }
  return o;
}

Flow classify(const ZydisDecodedInstruction& insn, const ZydisDecodedOperand* ops) {
  switch (insn.mnemonic) {
    case ZYDIS_MNEMONIC_HLT:
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_INT1: return Flow::halt;
    case ZYDIS_MNEMONIC_IRET:
    case ZYDIS_MNEMONIC_IRETD:
    case ZYDIS_MNEMONIC_IRETQ:
    case ZYDIS_MNEMONIC_SYSRET:
    case ZYDIS_MNEMONIC_SYSEXIT: return Flow::ret;
    // Outside a transaction these go on; inside, they abort to the
    // xbegin's handler, which xbegin's own edge already stands for.
    case ZYDIS_MNEMONIC_XABORT:
    case ZYDIS_MNEMONIC_XEND: return Flow::plain;
    default: break;
  }
  bool direct = insn.operand_count_visible >= 1 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
                ops[0].imm.is_relative;
  switch (insn.meta.category) {
    case ZYDIS_CATEGORY_RET: return Flow::ret;
    case ZYDIS_CATEGORY_CALL: return direct ? Flow::call : Flow::indirect_call;
    case ZYDIS_CATEGORY_UNCOND_BR: return direct ? Flow::jump : Flow::indirect_jump;
    case ZYDIS_CATEGORY_COND_BR: return direct ? Flow::cond_jump : Flow::indirect_jump;
    default: return Flow::plain;
  }
}

void fill(DecodedInsn& out, const ZydisDecodedInstruction& insn, const ZydisDecodedOperand* ops) {
  out.size = insn.length;
  out.flow = classify(insn, ops);
  out.op = operation(insn.mnemonic);
  out.nop = insn.mnemonic == ZYDIS_MNEMONIC_NOP || insn.mnemonic == ZYDIS_MNEMONIC_FNOP;
  if (out.flow == Flow::cond_jump) {
    out.cond = condition(insn.mnemonic);
    out.op = Op::jcc;
  }
  out.op_count = uint8_t(std::min<int>(insn.operand_count_visible, 3));
  for (uint8_t i = 0; i < out.op_count; ++i) out.ops[i] = to_operand(insn, ops[i], out.address);
  if (insn.mnemonic == ZYDIS_MNEMONIC_CDQE) {  // cltq: movslq %eax, %rax, with its operands hidden
    out.op = Op::movsx;
    out.op_count = 2;
    out.ops[0] = Operand{Operand::kReg, 8, Reg::rax};
    out.ops[1] = Operand{Operand::kReg, 4, Reg::rax};
  }
  for (uint8_t i = 0; i < insn.operand_count; ++i)
    if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
      out.writes |= reg_bit(gpr(ops[i].reg.value));
  out.writes_flags = insn.cpu_flags && insn.cpu_flags->modified != 0;
  bool branch = out.flow == Flow::jump || out.flow == Flow::cond_jump || out.flow == Flow::call ||
                out.flow == Flow::indirect_jump || out.flow == Flow::indirect_call;
  if (!branch || insn.operand_count_visible < 1) return;
  const ZydisDecodedOperand& op = ops[0];
  ZyanU64 abs = 0;
  if (op.type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op.imm.is_relative) {
    if (ZYAN_SUCCESS(zydis()->z->ZydisCalcAbsoluteAddress(&insn, &op, out.address, &abs))) out.target = abs;
  } else if (op.type == ZYDIS_OPERAND_TYPE_MEMORY && op.mem.base == ZYDIS_REGISTER_RIP &&
             op.mem.index == ZYDIS_REGISTER_NONE) {
    if (ZYAN_SUCCESS(zydis()->z->ZydisCalcAbsoluteAddress(&insn, &op, out.address, &abs))) {
      out.target = abs;
      out.rip_slot = true;
    }
  }
}

}  // namespace

std::optional<DecodedInsn> decode_instruction(uint64_t address, std::span<const uint8_t> bytes) {
  const Decoder* d0 = zydis();
  if (!d0) return std::nullopt;
  ZydisDecodedInstruction insn;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS(d0->z->ZydisDecoderDecodeFull(&d0->decoder, bytes.data(), bytes.size(), &insn, ops)) ||
      cks_vendor_dependent_branch(&insn))
    return std::nullopt;
  DecodedInsn d;
  d.address = address;
  fill(d, insn, ops);
  return d;
}

std::optional<uint32_t> instruction_length(std::span<const uint8_t> bytes) {
  const Decoder* d = zydis();
  if (!d) return std::nullopt;
  ZydisDecodedInstruction insn;
  if (!ZYAN_SUCCESS(d->z->ZydisDecoderDecodeInstruction(&d->decoder, nullptr, bytes.data(), bytes.size(), &insn)) ||
      cks_vendor_dependent_branch(&insn))
    return std::nullopt;
  return insn.length;
}

std::vector<DecodedInsn> decode_function(uint64_t address, std::span<const uint8_t> bytes) {
  std::vector<DecodedInsn> out;
  out.reserve(bytes.size() / 4);
  for (size_t at = 0; at < bytes.size();) {
    if (auto d = decode_instruction(address + at, bytes.subspan(at))) {
      out.push_back(*d);
      at += d->size;
      continue;
    }
    DecodedInsn bad;
    bad.address = address + at;
    bad.size = 1;
    bad.flow = Flow::invalid;
    out.push_back(bad);
    ++at;
  }
  return out;
}

}  // namespace covkit::sample
