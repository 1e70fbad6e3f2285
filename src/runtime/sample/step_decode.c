/* An instruction's step facts from Zydis's decoding (step_decode.h). */
#include "step_decode.h"

static int is_rsp(ZydisRegister r) {
  return r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP || r == ZYDIS_REGISTER_SPL;
}

/* How an ordinary instruction moves the stack pointer: 1 when it is
 * followed here (push, pop, add/sub rsp imm, lea rsp,[rsp+disp]). */
static int stack_effect(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, int64_t *delta) {
  int writes = 0;
  for (unsigned i = 0; i < in->operand_count; i++)
    if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && is_rsp(ops[i].reg.value) &&
        (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
      writes = 1;
  *delta = 0;
  if (!writes) return 1;
  int64_t width = in->operand_width / 8;
  const ZydisDecodedOperand *first = in->operand_count_visible ? &ops[0] : NULL;
  int first_is_rsp = first && first->type == ZYDIS_OPERAND_TYPE_REGISTER && is_rsp(first->reg.value);
  switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_PUSH:
    case ZYDIS_MNEMONIC_PUSHFQ:
      *delta = -width;
      return width > 0;
    case ZYDIS_MNEMONIC_POP:
    case ZYDIS_MNEMONIC_POPFQ:
      *delta = width;
      return width > 0 && !first_is_rsp;
    case ZYDIS_MNEMONIC_ADD:
    case ZYDIS_MNEMONIC_SUB:
      if (!first_is_rsp || first->reg.value != ZYDIS_REGISTER_RSP || in->operand_count_visible != 2 ||
          ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
        return 0;
      *delta = in->mnemonic == ZYDIS_MNEMONIC_ADD ? ops[1].imm.value.s : -ops[1].imm.value.s;
      return 1;
    case ZYDIS_MNEMONIC_LEA:
      if (!first_is_rsp || first->reg.value != ZYDIS_REGISTER_RSP || ops[1].mem.base != ZYDIS_REGISTER_RSP ||
          ops[1].mem.index != ZYDIS_REGISTER_NONE)
        return 0;
      *delta = ops[1].mem.disp.value;
      return 1;
    default:
      return 0;
  }
}

static void stack_writes(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct cks_step_insn *out) {
  for (unsigned i = 0; i < in->operand_count; i++) {
    const ZydisDecodedOperand *op = &ops[i];
    if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ||
        op->mem.type != ZYDIS_MEMOP_TYPE_MEM || !is_rsp(op->mem.base))
      continue;
    if (op->mem.index != ZYDIS_REGISTER_NONE || out->stack_write) {
      out->stack_write = 2;
      return;
    }
    out->stack_write = 1;
    out->write_disp = op->mem.disp.value;
    out->write_size = op->size / 8 ? op->size / 8 : 64;
  }
}

static int writes_rip(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops) {
  for (unsigned i = 0; i < in->operand_count; i++)
    if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
        (ops[i].reg.value == ZYDIS_REGISTER_RIP || ops[i].reg.value == ZYDIS_REGISTER_EIP ||
         ops[i].reg.value == ZYDIS_REGISTER_IP))
      return 1;
  return 0;
}

static int relative_target(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t at,
                           uint64_t *target) {
  if (in->operand_count_visible != 1 || ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !ops[0].imm.is_relative)
    return 0;
  *target = at + in->length + (uint64_t)ops[0].imm.value.s;
  return 1;
}

/* jo .. jnle as x86 numbers them (cks_emu_condition), 0xff for the rest */
static uint8_t jcc_condition(ZydisMnemonic m) {
  switch (m) {
    case ZYDIS_MNEMONIC_JO: return 0;
    case ZYDIS_MNEMONIC_JNO: return 1;
    case ZYDIS_MNEMONIC_JB: return 2;
    case ZYDIS_MNEMONIC_JNB: return 3;
    case ZYDIS_MNEMONIC_JZ: return 4;
    case ZYDIS_MNEMONIC_JNZ: return 5;
    case ZYDIS_MNEMONIC_JBE: return 6;
    case ZYDIS_MNEMONIC_JNBE: return 7;
    case ZYDIS_MNEMONIC_JS: return 8;
    case ZYDIS_MNEMONIC_JNS: return 9;
    case ZYDIS_MNEMONIC_JP: return 10;
    case ZYDIS_MNEMONIC_JNP: return 11;
    case ZYDIS_MNEMONIC_JL: return 12;
    case ZYDIS_MNEMONIC_JNL: return 13;
    case ZYDIS_MNEMONIC_JLE: return 14;
    case ZYDIS_MNEMONIC_JNLE: return 15;
    default: return 0xff;
  }
}

CKS_STEP_FN void cks_step_clear(struct cks_step_insn *out, struct cks_emu_insn *emu) {
  out->kind = CKS_STEP_OTHER;
  out->length = 0;
  out->rsp_delta = 0;
  out->stack_write = 0;
  out->target = 0;
  out->cc = 0xff;
  out->write_disp = 0;
  out->write_size = 0;
  emu->op = CKS_EMU_NONE;
  emu->length = 0;
}

CKS_STEP_FN void cks_step_from_zydis(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t at,
                                     struct cks_step_insn *out, struct cks_emu_insn *emu) {
  cks_step_clear(out, emu);
  out->length = in->length;
  cks_emu_translate(in, ops, emu);
  if (cks_vendor_dependent_branch(in)) return;
  out->cc = jcc_condition(in->mnemonic);
  switch (in->meta.category) {
    case ZYDIS_CATEGORY_COND_BR:
      /* loop, jrcxz, xbegin: condition_holds() does not know them */
      if (relative_target(in, ops, at, &out->target)) out->kind = CKS_STEP_JCC;
      return;
    case ZYDIS_CATEGORY_UNCOND_BR:
      if (in->mnemonic == ZYDIS_MNEMONIC_JMP && relative_target(in, ops, at, &out->target)) out->kind = CKS_STEP_JUMP;
      return;
    case ZYDIS_CATEGORY_CALL:
      if (in->mnemonic == ZYDIS_MNEMONIC_CALL && in->operand_width == 64 && relative_target(in, ops, at, &out->target)) {
        out->kind = CKS_STEP_JUMP;
        out->rsp_delta = -8;
      }
      return;
    case ZYDIS_CATEGORY_RET:
      if (in->mnemonic == ZYDIS_MNEMONIC_RET && in->operand_width == 64) {
        out->kind = CKS_STEP_RET;
        out->rsp_delta = 8 + (in->operand_count_visible == 1 ? (int64_t)ops[0].imm.value.u : 0);
      }
      return;
    case ZYDIS_CATEGORY_SYSCALL:
    case ZYDIS_CATEGORY_SYSRET:
    case ZYDIS_CATEGORY_INTERRUPT:
    case ZYDIS_CATEGORY_SYSTEM:
      return;
    default:
      break;
  }
  if (writes_rip(in, ops)) return;
  /* single-stepping stops after every iteration of a rep string instruction:
   * rep movs and rep stos make as many as rcx says (cmps and scas end on
   * the data, and are single-stepped) */
  if (in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) {
    if ((in->attributes & ZYDIS_ATTRIB_HAS_REP) && in->meta.category == ZYDIS_CATEGORY_STRINGOP &&
        in->address_width == 64 &&
        (in->mnemonic == ZYDIS_MNEMONIC_MOVSB || in->mnemonic == ZYDIS_MNEMONIC_MOVSW ||
         in->mnemonic == ZYDIS_MNEMONIC_MOVSD || in->mnemonic == ZYDIS_MNEMONIC_MOVSQ ||
         in->mnemonic == ZYDIS_MNEMONIC_STOSB || in->mnemonic == ZYDIS_MNEMONIC_STOSW ||
         in->mnemonic == ZYDIS_MNEMONIC_STOSD || in->mnemonic == ZYDIS_MNEMONIC_STOSQ))
      out->kind = CKS_STEP_REP;
    return;
  }
  switch (in->mnemonic) {
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2:
    case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_INT1:
    case ZYDIS_MNEMONIC_HLT:
      return;
    default:
      break;
  }
  if (!stack_effect(in, ops, &out->rsp_delta)) return;
  out->kind = CKS_STEP_PLAIN;
  stack_writes(in, ops, out);
  if (out->rsp_delta < 0 && (in->mnemonic == ZYDIS_MNEMONIC_PUSH || in->mnemonic == ZYDIS_MNEMONIC_PUSHFQ)) {
    out->stack_write = 1; /* what it pushes: the slot below */
    out->write_disp = out->rsp_delta;
    out->write_size = (uint32_t)-out->rsp_delta;
  }
}

