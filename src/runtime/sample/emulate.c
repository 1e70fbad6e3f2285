/* The look-ahead interpreter (emulate.h). Each instruction reads all it
 * needs first and writes only once nothing can fail, so a refusal leaves
 * the state as it was. Flags follow the processor's documented rules;
 * where the manuals leave a flag undefined (AF after logic, everything but
 * CF and OF after imul, OF after multi-bit shifts) the value here is one
 * the compiled code never branches on. */
#include "emulate.h"

#include <string.h>

#define EFL_CF 0x1ull
#define EFL_PF 0x4ull
#define EFL_AF 0x10ull
#define EFL_ZF 0x40ull
#define EFL_SF 0x80ull
#define EFL_OF 0x800ull
#define EFL_ARITH (EFL_CF | EFL_PF | EFL_AF | EFL_ZF | EFL_SF | EFL_OF)

_Static_assert(sizeof(struct cks_emu_insn) == 32, "an emulated instruction is half a cache line");

/* ---- from Zydis's decoding ---- */

static int emu_gpr(ZydisRegister r, uint8_t *num, uint8_t *high, uint8_t *size) {
  *high = 0;
  if (r >= ZYDIS_REGISTER_AL && r <= ZYDIS_REGISTER_R15B) {
    unsigned i = (unsigned)(r - ZYDIS_REGISTER_AL);
    *size = 1;
    if (i >= 4 && i < 8) { /* ah, ch, dh, bh */
      *num = (uint8_t)(i - 4);
      *high = 1;
    } else {
      *num = (uint8_t)(i >= 8 ? i - 4 : i); /* spl.. are 4..7, r8b.. 8.. */
    }
    return 1;
  }
  if (r >= ZYDIS_REGISTER_AX && r <= ZYDIS_REGISTER_R15W) {
    *num = (uint8_t)(r - ZYDIS_REGISTER_AX);
    *size = 2;
    return 1;
  }
  if (r >= ZYDIS_REGISTER_EAX && r <= ZYDIS_REGISTER_R15D) {
    *num = (uint8_t)(r - ZYDIS_REGISTER_EAX);
    *size = 4;
    return 1;
  }
  if (r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15) {
    *num = (uint8_t)(r - ZYDIS_REGISTER_RAX);
    *size = 8;
    return 1;
  }
  return 0;
}

static int emu_address_reg(ZydisRegister r, uint8_t *num) {
  if (r == ZYDIS_REGISTER_NONE) {
    *num = CKS_EMU_NOREG;
    return 1;
  }
  if (r == ZYDIS_REGISTER_RIP) {
    *num = CKS_EMU_RIP;
    return 1;
  }
  if (r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15) {
    *num = (uint8_t)(r - ZYDIS_REGISTER_RAX);
    return 1;
  }
  return 0; /* a 32-bit address, a vector index */
}

/* An operand into `out`, its address or value into the instruction `x`,
 * which holds one of each (a second is refused). */
static int emu_operand(const ZydisDecodedOperand *op, struct cks_emu_insn *x, struct cks_emu_operand *out) {
  memset(out, 0, sizeof *out);
  out->size = (uint8_t)(op->size / 8);
  switch (op->type) {
    case ZYDIS_OPERAND_TYPE_REGISTER:
      if (op->reg.value >= ZYDIS_REGISTER_XMM0 && op->reg.value <= ZYDIS_REGISTER_XMM15) {
        out->kind = CKS_EMU_OPND_XMM;
        out->reg = (uint8_t)(op->reg.value - ZYDIS_REGISTER_XMM0);
        return 1;
      }
      out->kind = CKS_EMU_OPND_REG;
      return emu_gpr(op->reg.value, &out->reg, &out->high, &out->size);
    case ZYDIS_OPERAND_TYPE_MEMORY:
      if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_AGEN) return 0;
      if (x->scale) return 0; /* a second memory operand */
      if (op->mem.segment == ZYDIS_REGISTER_FS)
        x->fs = 1;
      else if (op->mem.segment == ZYDIS_REGISTER_GS)
        return 0;
      /* a 64-bit displacement (movabs's absolute address) does not fit */
      if (op->mem.disp.value != (int32_t)op->mem.disp.value) return 0;
      out->kind = CKS_EMU_OPND_MEM;
      x->scale = op->mem.scale ? op->mem.scale : 1;
      x->disp = (int32_t)op->mem.disp.value;
      return emu_address_reg(op->mem.base, &x->base) && emu_address_reg(op->mem.index, &x->index);
    case ZYDIS_OPERAND_TYPE_IMMEDIATE:
      out->kind = CKS_EMU_OPND_IMM;
      x->imm = op->imm.value.s;
      return 1;
    default:
      return 0;
  }
}

/* The condition code of jcc/setcc/cmovcc: Zydis lists each family in
 * alphabetical order, not in x86's; this maps its order to x86's. */
static uint8_t emu_cc_from_alpha(unsigned i) {
  /* b, be, l, le, nb, nbe, nl, nle, no, np, ns, nz, o, p, s, z */
  static const uint8_t cc[16] = {2, 6, 12, 14, 3, 7, 13, 15, 1, 11, 9, 5, 0, 10, 8, 4};
  return cc[i];
}

static int emu_cc(ZydisMnemonic m, uint8_t *cc) {
  static const ZydisMnemonic jcc[16] = {ZYDIS_MNEMONIC_JB,  ZYDIS_MNEMONIC_JBE,  ZYDIS_MNEMONIC_JL,  ZYDIS_MNEMONIC_JLE,
                                        ZYDIS_MNEMONIC_JNB, ZYDIS_MNEMONIC_JNBE, ZYDIS_MNEMONIC_JNL, ZYDIS_MNEMONIC_JNLE,
                                        ZYDIS_MNEMONIC_JNO, ZYDIS_MNEMONIC_JNP,  ZYDIS_MNEMONIC_JNS, ZYDIS_MNEMONIC_JNZ,
                                        ZYDIS_MNEMONIC_JO,  ZYDIS_MNEMONIC_JP,   ZYDIS_MNEMONIC_JS,  ZYDIS_MNEMONIC_JZ};
  static const ZydisMnemonic set[16] = {
      ZYDIS_MNEMONIC_SETB,  ZYDIS_MNEMONIC_SETBE,  ZYDIS_MNEMONIC_SETL,  ZYDIS_MNEMONIC_SETLE,
      ZYDIS_MNEMONIC_SETNB, ZYDIS_MNEMONIC_SETNBE, ZYDIS_MNEMONIC_SETNL, ZYDIS_MNEMONIC_SETNLE,
      ZYDIS_MNEMONIC_SETNO, ZYDIS_MNEMONIC_SETNP,  ZYDIS_MNEMONIC_SETNS, ZYDIS_MNEMONIC_SETNZ,
      ZYDIS_MNEMONIC_SETO,  ZYDIS_MNEMONIC_SETP,   ZYDIS_MNEMONIC_SETS,  ZYDIS_MNEMONIC_SETZ};
  static const ZydisMnemonic cmov[16] = {
      ZYDIS_MNEMONIC_CMOVB,  ZYDIS_MNEMONIC_CMOVBE,  ZYDIS_MNEMONIC_CMOVL,  ZYDIS_MNEMONIC_CMOVLE,
      ZYDIS_MNEMONIC_CMOVNB, ZYDIS_MNEMONIC_CMOVNBE, ZYDIS_MNEMONIC_CMOVNL, ZYDIS_MNEMONIC_CMOVNLE,
      ZYDIS_MNEMONIC_CMOVNO, ZYDIS_MNEMONIC_CMOVNP,  ZYDIS_MNEMONIC_CMOVNS, ZYDIS_MNEMONIC_CMOVNZ,
      ZYDIS_MNEMONIC_CMOVO,  ZYDIS_MNEMONIC_CMOVP,   ZYDIS_MNEMONIC_CMOVS,  ZYDIS_MNEMONIC_CMOVZ};
  for (unsigned i = 0; i < 16; i++)
    if (m == jcc[i] || m == set[i] || m == cmov[i]) {
      *cc = emu_cc_from_alpha(i);
      return 1;
    }
  return 0;
}

static uint8_t emu_op_of(ZydisMnemonic m, uint8_t *cc) {
  switch (m) {
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_ENDBR64: return CKS_EMU_NOP;
    case ZYDIS_MNEMONIC_MOV: return CKS_EMU_MOV;
    case ZYDIS_MNEMONIC_MOVZX: return CKS_EMU_MOVZX;
    case ZYDIS_MNEMONIC_MOVSX:
    case ZYDIS_MNEMONIC_MOVSXD: return CKS_EMU_MOVSX;
    case ZYDIS_MNEMONIC_LEA: return CKS_EMU_LEA;
    case ZYDIS_MNEMONIC_ADD: return CKS_EMU_ADD;
    case ZYDIS_MNEMONIC_ADC: return CKS_EMU_ADC;
    case ZYDIS_MNEMONIC_SUB: return CKS_EMU_SUB;
    case ZYDIS_MNEMONIC_SBB: return CKS_EMU_SBB;
    case ZYDIS_MNEMONIC_CMP: return CKS_EMU_CMP;
    case ZYDIS_MNEMONIC_AND: return CKS_EMU_AND;
    case ZYDIS_MNEMONIC_OR: return CKS_EMU_OR;
    case ZYDIS_MNEMONIC_XOR: return CKS_EMU_XOR;
    case ZYDIS_MNEMONIC_TEST: return CKS_EMU_TEST;
    case ZYDIS_MNEMONIC_NOT: return CKS_EMU_NOT;
    case ZYDIS_MNEMONIC_NEG: return CKS_EMU_NEG;
    case ZYDIS_MNEMONIC_INC: return CKS_EMU_INC;
    case ZYDIS_MNEMONIC_DEC: return CKS_EMU_DEC;
    case ZYDIS_MNEMONIC_SHL: return CKS_EMU_SHL;
    case ZYDIS_MNEMONIC_SHR: return CKS_EMU_SHR;
    case ZYDIS_MNEMONIC_SAR: return CKS_EMU_SAR;
    case ZYDIS_MNEMONIC_IMUL: return CKS_EMU_IMUL;
    case ZYDIS_MNEMONIC_XCHG: return CKS_EMU_XCHG;
    case ZYDIS_MNEMONIC_CDQE:
    case ZYDIS_MNEMONIC_CWDE: return CKS_EMU_CDQE;
    case ZYDIS_MNEMONIC_CQO:
    case ZYDIS_MNEMONIC_CDQ: return CKS_EMU_CQO;
    case ZYDIS_MNEMONIC_PUSH: return CKS_EMU_PUSH;
    case ZYDIS_MNEMONIC_POP: return CKS_EMU_POP;
    case ZYDIS_MNEMONIC_LEAVE: return CKS_EMU_LEAVE;
    case ZYDIS_MNEMONIC_CALL: return CKS_EMU_CALL;
    case ZYDIS_MNEMONIC_RET: return CKS_EMU_RET;
    case ZYDIS_MNEMONIC_JMP: return CKS_EMU_JMP;
    case ZYDIS_MNEMONIC_MOVD:
    case ZYDIS_MNEMONIC_MOVQ:
    case ZYDIS_MNEMONIC_MOVAPS:
    case ZYDIS_MNEMONIC_MOVUPS:
    case ZYDIS_MNEMONIC_MOVAPD:
    case ZYDIS_MNEMONIC_MOVUPD:
    case ZYDIS_MNEMONIC_MOVDQA:
    case ZYDIS_MNEMONIC_MOVDQU: return CKS_EMU_MOVX;
    case ZYDIS_MNEMONIC_MOVHLPS: return CKS_EMU_MOVHLPS;
    case ZYDIS_MNEMONIC_MOVLHPS: return CKS_EMU_MOVLHPS;
    case ZYDIS_MNEMONIC_PUNPCKLQDQ: return CKS_EMU_PUNPCKLQDQ;
    case ZYDIS_MNEMONIC_PXOR:
    case ZYDIS_MNEMONIC_XORPS:
    case ZYDIS_MNEMONIC_XORPD: return CKS_EMU_PXOR;
    default: break;
  }
  if (!emu_cc(m, cc)) return CKS_EMU_NONE;
  if (m >= ZYDIS_MNEMONIC_JB && m <= ZYDIS_MNEMONIC_JZ) return CKS_EMU_JCC;
  if (m >= ZYDIS_MNEMONIC_SETB && m <= ZYDIS_MNEMONIC_SETZ) return CKS_EMU_SETCC;
  return CKS_EMU_CMOV;
}

/* The shapes each operation is emulated in (anything else is refused). */
static int emu_shape_ok(const struct cks_emu_insn *x) {
  const struct cks_emu_operand *o = x->o;
  const unsigned n = x->noperands;
  switch (x->op) {
    case CKS_EMU_NOP:
    case CKS_EMU_CDQE:
    case CKS_EMU_CQO:
    case CKS_EMU_LEAVE: return 1;
    case CKS_EMU_MOV:
    case CKS_EMU_MOVZX:
    case CKS_EMU_MOVSX:
    case CKS_EMU_ADD:
    case CKS_EMU_ADC:
    case CKS_EMU_SUB:
    case CKS_EMU_SBB:
    case CKS_EMU_CMP:
    case CKS_EMU_AND:
    case CKS_EMU_OR:
    case CKS_EMU_XOR:
    case CKS_EMU_TEST:
    case CKS_EMU_CMOV: return n == 2 && o[0].kind != CKS_EMU_OPND_IMM;
    case CKS_EMU_LEA: return n == 2 && o[0].kind == CKS_EMU_OPND_REG && o[1].kind == CKS_EMU_OPND_MEM && !x->fs;
    case CKS_EMU_XCHG: return n == 2 && o[0].kind == CKS_EMU_OPND_REG && o[1].kind == CKS_EMU_OPND_REG;
    case CKS_EMU_NOT:
    case CKS_EMU_NEG:
    case CKS_EMU_INC:
    case CKS_EMU_DEC:
    case CKS_EMU_SETCC: return n == 1 && o[0].kind != CKS_EMU_OPND_IMM;
    case CKS_EMU_SHL:
    case CKS_EMU_SHR:
    case CKS_EMU_SAR:
      /* a count: an immediate (1 when implicit, made explicit in translation) or cl */
      return n == 2 && o[0].kind != CKS_EMU_OPND_IMM &&
             (o[1].kind == CKS_EMU_OPND_IMM || (o[1].kind == CKS_EMU_OPND_REG && o[1].reg == 1 && !o[1].high));
    case CKS_EMU_IMUL: return (n == 2 || n == 3) && o[0].kind == CKS_EMU_OPND_REG && x->width >= 2;
    case CKS_EMU_PUSH: return n == 1 && x->width == 8;
    case CKS_EMU_POP: return n == 1 && x->width == 8 && o[0].kind == CKS_EMU_OPND_REG && o[0].reg != 4;
    case CKS_EMU_CALL:
    case CKS_EMU_JMP:
    case CKS_EMU_JCC: return n == 1 && (o[0].kind == CKS_EMU_OPND_IMM || o[0].size == 8);
    case CKS_EMU_RET: return n == 0 || (n == 1 && o[0].kind == CKS_EMU_OPND_IMM);
    case CKS_EMU_MOVX: {
      /* an %xmm register on one side at least; a general register of the
       * move's width (movd, movq) on the other, or memory, or %xmm */
      if (n != 2 || (o[0].kind != CKS_EMU_OPND_XMM && o[1].kind != CKS_EMU_OPND_XMM)) return 0;
      for (unsigned i = 0; i < 2; i++)
        if (o[i].kind == CKS_EMU_OPND_IMM || (o[i].kind == CKS_EMU_OPND_REG && (o[i].high || o[i].size != x->width)))
          return 0;
      if (o[0].kind == CKS_EMU_OPND_REG || o[1].kind == CKS_EMU_OPND_REG) return x->width == 4 || x->width == 8;
      return x->width == 4 || x->width == 8 || x->width == 16;
    }
    case CKS_EMU_MOVHLPS:
    case CKS_EMU_MOVLHPS:
    case CKS_EMU_PUNPCKLQDQ:
    case CKS_EMU_PXOR: return n == 2 && o[0].kind == CKS_EMU_OPND_XMM && o[1].kind == CKS_EMU_OPND_XMM;
    default: return 0;
  }
}

int cks_emu_translate(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct cks_emu_insn *out) {
  memset(out, 0, sizeof *out);
  out->length = in->length;
  if (in->machine_mode != ZYDIS_MACHINE_MODE_LONG_64 || in->address_width != 64 ||
      (in->attributes & (ZYDIS_ATTRIB_HAS_LOCK | ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
                         ZYDIS_ATTRIB_HAS_REPNE)) ||
      in->encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY)
    return 0;
  uint8_t cc = 0;
  uint8_t op = emu_op_of(in->mnemonic, &cc);
  if (op == CKS_EMU_NONE) return 0;
  unsigned n = op == CKS_EMU_NOP ? 0 : in->operand_count_visible;
  if (n > 3) return 0;
  unsigned immediates = 0;
  for (unsigned i = 0; i < n; i++) immediates += ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
  if (immediates > 1) return 0; /* enter: two */
  for (unsigned i = 0; i < n; i++)
    if (!emu_operand(&ops[i], out, &out->o[i])) return out->op = CKS_EMU_NONE, 0;
  out->op = op;
  out->cond = cc;
  out->noperands = (uint8_t)n;
  out->width = (uint8_t)(in->operand_width / 8);
  if (op == CKS_EMU_NOP) out->noperands = 0; /* nop's memory operand is never read */
  if ((op == CKS_EMU_SHL || op == CKS_EMU_SHR || op == CKS_EMU_SAR) && n == 1) {
    out->o[1].kind = CKS_EMU_OPND_IMM; /* d0/d1: a count of 1 that Zydis may list as hidden */
    out->o[1].size = 1;
    out->imm = 1;
    out->noperands = 2;
  }
  /* the relative branches' immediates become targets */
  if ((op == CKS_EMU_CALL || op == CKS_EMU_JMP || op == CKS_EMU_JCC) && out->o[0].kind == CKS_EMU_OPND_IMM &&
      !ops[0].imm.is_relative)
    return out->op = CKS_EMU_NONE, 0;
  if (op == CKS_EMU_CDQE || op == CKS_EMU_CQO) out->noperands = 0; /* the accumulator is implicit */
  if (op == CKS_EMU_LEAVE) {
    if (in->operand_width != 64) return out->op = CKS_EMU_NONE, 0;
    out->noperands = 0;
  }
  if (op == CKS_EMU_RET && in->operand_width != 64) return out->op = CKS_EMU_NONE, 0;
  if (op == CKS_EMU_CALL || op == CKS_EMU_RET) out->width = 8;
  /* an operand of another size than the operation (movzx's, movsx's
   * source, a shift's count) keeps its own; the rest are the operation's */
  const int sse = op >= CKS_EMU_MOVX;
  /* Zydis's operand width is not the move's for these: the mnemonic is */
  if (sse)
    out->width = in->mnemonic == ZYDIS_MNEMONIC_MOVD ? 4 : in->mnemonic == ZYDIS_MNEMONIC_MOVQ ? 8 : 16;
  out->aligned = in->mnemonic == ZYDIS_MNEMONIC_MOVAPS || in->mnemonic == ZYDIS_MNEMONIC_MOVAPD ||
                 in->mnemonic == ZYDIS_MNEMONIC_MOVDQA;
  if (!emu_shape_ok(out)) return out->op = CKS_EMU_NONE, 0;
  if (out->width != 1 && out->width != 2 && out->width != 4 && out->width != 8 && op != CKS_EMU_NOP &&
      !(sse && out->width == 16))
    return out->op = CKS_EMU_NONE, 0;
  return 1;
}

/* ---- running it ---- */

static uint64_t emu_mask(unsigned size) { return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1; }

static uint64_t emu_sext(uint64_t v, unsigned size) {
  if (size >= 8) return v;
  unsigned shift = 64 - size * 8;
  return (uint64_t)((int64_t)(v << shift) >> shift);
}

int cks_emu_condition(unsigned cc, uint64_t fl) {
  int cf = !!(fl & EFL_CF), pf = !!(fl & EFL_PF), zf = !!(fl & EFL_ZF), sf = !!(fl & EFL_SF), of = !!(fl & EFL_OF);
  int r;
  switch (cc >> 1) {
    case 0: r = of; break;
    case 1: r = cf; break;
    case 2: r = zf; break;
    case 3: r = cf || zf; break;
    case 4: r = sf; break;
    case 5: r = pf; break;
    case 6: r = sf != of; break;
    default: r = zf || sf != of; break;
  }
  return (cc & 1) ? !r : r;
}

/* The bloom bit of the 8-byte granule holding `addr`. */
static void emu_bloom_bit(uint64_t addr, uint32_t *word, uint64_t *bit) {
  const uint64_t g = addr >> 3, h = (g ^ (g >> 10)) & (CKS_EMU_BLOOM_WORDS * 64 - 1);
  *word = (uint32_t)(h >> 6);
  *bit = 1ull << (h & 63);
}

/* 1 when a store made ahead may overlap [addr, addr + size), size 1-8: two
 * granules at most. */
static int emu_may_overlap(const struct cks_emu *e, uint64_t addr, uint32_t size) {
  uint32_t w;
  uint64_t b;
  emu_bloom_bit(addr, &w, &b);
  if (e->store_bloom[w] & b) return 1;
  emu_bloom_bit(addr + size - 1, &w, &b);
  return (e->store_bloom[w] & b) != 0;
}

void cks_emu_clear_stores(struct cks_emu *e) {
  e->nstores = 0;
  memset(e->store_bloom, 0, sizeof e->store_bloom);
}

int cks_emu_load(struct cks_emu *e, uint64_t addr, uint32_t size, uint64_t *value) {
  unsigned char b[8] = {0};
  if (size > 8 || !e->read(e->ctx, addr, b, size)) return 0;
  for (uint32_t i = emu_may_overlap(e, addr, size) ? 0 : e->nstores; i < e->nstores; i++) {
    const struct cks_emu_store *s = &e->stores[i];
    if (s->addr - addr >= size && addr - s->addr >= s->size) continue; /* apart */
    for (uint32_t k = 0; k < s->size; k++) {
      uint64_t at = s->addr + k;
      if (at - addr < size) b[at - addr] = (unsigned char)(s->value >> (8 * k));
    }
  }
  uint64_t v = 0;
  memcpy(&v, b, 8); /* little-endian */
  *value = v & emu_mask(size);
  return 1;
}

/* The stores of one instruction, made only once it cannot fail. */
struct emu_pending {
  uint32_t n;
  struct cks_emu_store s[2];
};

static int emu_address(struct cks_emu *e, const struct cks_emu_insn *x, uint64_t next, uint64_t *addr) {
  uint64_t a = (uint64_t)(int64_t)x->disp;
  if (x->base == CKS_EMU_RIP)
    a += next;
  else if (x->base != CKS_EMU_NOREG)
    a += e->r[x->base];
  if (x->index != CKS_EMU_NOREG) a += e->r[x->index] * x->scale;
  if (x->fs) {
    uint64_t base = 0;
    if (!e->fs_base || !e->fs_base(e->ctx, &base)) return 0;
    a += base;
  }
  *addr = a;
  return 1;
}

static uint64_t emu_reg_get(const struct cks_emu *e, const struct cks_emu_operand *o) {
  uint64_t v = e->r[o->reg];
  if (o->high) return (v >> 8) & 0xff;
  return v & emu_mask(o->size);
}

static void emu_reg_set(struct cks_emu *e, uint8_t reg, uint8_t high, unsigned size, uint64_t v) {
  uint64_t *r = &e->r[reg];
  if (high)
    *r = (*r & ~0xff00ull) | ((v & 0xff) << 8);
  else if (size == 4)
    *r = v & 0xffffffffull; /* a 32-bit write clears the upper half */
  else if (size == 8)
    *r = v;
  else
    *r = (*r & ~emu_mask(size)) | (v & emu_mask(size));
}

/* An operand's value (sign-extended immediates truncated to `size`). */
static int emu_get(struct cks_emu *e, const struct cks_emu_insn *x, const struct cks_emu_operand *o, unsigned size,
                   uint64_t next, uint64_t *v) {
  switch (o->kind) {
    case CKS_EMU_OPND_REG: *v = emu_reg_get(e, o); return 1;
    case CKS_EMU_OPND_IMM: *v = (uint64_t)x->imm & emu_mask(size); return 1;
    case CKS_EMU_OPND_MEM: {
      uint64_t a;
      return emu_address(e, x, next, &a) && cks_emu_load(e, a, size, v);
    }
    default: return 0;
  }
}

/* Writing an operand: a register at once, memory into `p` (addressed now:
 * the instruction's registers are still those before it). */
static int emu_put(struct cks_emu *e, const struct cks_emu_insn *x, const struct cks_emu_operand *o, unsigned size,
                   uint64_t next, uint64_t v, struct emu_pending *p, int *reg_write) {
  if (o->kind == CKS_EMU_OPND_REG) {
    *reg_write = 1;
    return 1;
  }
  uint64_t a;
  if (o->kind != CKS_EMU_OPND_MEM || !emu_address(e, x, next, &a)) return 0;
  p->s[p->n].addr = a;
  p->s[p->n].value = v & emu_mask(size);
  p->s[p->n].size = size;
  p->n++;
  return 1;
}

static int emu_commit(struct cks_emu *e, const struct emu_pending *p) {
  if (e->nstores + p->n > CKS_EMU_STORES) return 0;
  for (uint32_t i = 0; i < p->n; i++) {
    const struct cks_emu_store *s = &p->s[i];
    uint32_t w;
    uint64_t b;
    emu_bloom_bit(s->addr, &w, &b);
    e->store_bloom[w] |= b;
    emu_bloom_bit(s->addr + s->size - 1, &w, &b);
    e->store_bloom[w] |= b;
    e->stores[e->nstores++] = *s;
  }
  return 1;
}

/* push and call: eight bytes stored below the stack pointer, which moves. */
static int emu_push(struct cks_emu *e, uint64_t value) {
  struct emu_pending p = {0};
  p.s[0].addr = e->r[4] - 8;
  p.s[0].value = value;
  p.s[0].size = 8;
  p.n = 1;
  if (!emu_commit(e, &p)) return 0;
  e->r[4] -= 8;
  return 1;
}

static uint64_t emu_szp(uint64_t r, unsigned size) {
  uint64_t f = 0;
  r &= emu_mask(size);
  if (!r) f |= EFL_ZF;
  if (r >> (size * 8 - 1)) f |= EFL_SF;
  if (!(__builtin_popcount((unsigned)(r & 0xff)) & 1)) f |= EFL_PF;
  return f;
}

/* a + b + carry, or a - b - borrow, with every arithmetic flag */
static uint64_t emu_addsub(uint64_t a, uint64_t b, unsigned carry, int sub, unsigned size, uint64_t *flags) {
  const uint64_t m = emu_mask(size), top = 1ull << (size * 8 - 1);
  a &= m;
  b &= m;
  unsigned __int128 wide =
      sub ? (unsigned __int128)a - b - carry : (unsigned __int128)a + b + carry;
  uint64_t r = (uint64_t)wide & m;
  uint64_t f = emu_szp(r, size);
  int cf = size >= 8 ? (int)((wide >> 64) & 1) : (int)(((uint64_t)wide >> (size * 8)) & 1);
  if (cf) f |= EFL_CF;
  if ((a ^ b ^ r) & 0x10) f |= EFL_AF;
  if (sub ? ((a ^ b) & (a ^ r) & top) : ((~(a ^ b)) & (a ^ r) & top)) f |= EFL_OF;
  *flags = f;
  return r;
}

static void emu_set_flags(struct cks_emu *e, uint64_t which, uint64_t values) {
  e->flags = (e->flags & ~which) | (values & which);
}

/* The shifts (the caller refuses a 32-bit register whose upper half is
 * set shifted by 0: whether it is cleared then is not the same
 * everywhere). */
static int emu_shift(struct cks_emu *e, unsigned op, uint64_t a, uint64_t count, unsigned size, uint64_t *out,
                     int *flags_change) {
  const unsigned bits = size * 8;
  count &= size == 8 ? 63 : 31;
  a &= emu_mask(size);
  *flags_change = count != 0;
  if (!count) {
    *out = a;
    return 1;
  }
  uint64_t r, cf;
  if (op == CKS_EMU_SHL) {
    r = count >= 64 ? 0 : a << count;
    cf = count > bits ? 0 : (a >> (bits - count)) & 1;
  } else if (op == CKS_EMU_SHR) {
    r = count >= 64 ? 0 : a >> count;
    cf = count > bits ? 0 : (a >> (count - 1)) & 1;
  } else {
    int64_t s = (int64_t)emu_sext(a, size);
    r = (uint64_t)(s >> (count > 63 ? 63 : count));
    cf = (uint64_t)(s >> (count - 1 > 63 ? 63 : count - 1)) & 1;
  }
  r &= emu_mask(size);
  uint64_t f = emu_szp(r, size) | (cf ? EFL_CF : 0);
  uint64_t of;
  if (op == CKS_EMU_SHL)
    of = ((r >> (bits - 1)) & 1) ^ cf;
  else if (op == CKS_EMU_SHR)
    of = (a >> (bits - 1)) & 1;
  else
    of = 0;
  if (of) f |= EFL_OF;
  emu_set_flags(e, EFL_CF | EFL_PF | EFL_ZF | EFL_SF | EFL_OF, f);
  *out = r;
  return 1;
}

/* The SSE moves: nothing but the destination changes, no flag. */
static int emu_sse(struct cks_emu *e, const struct cks_emu_insn *x, uint64_t next) {
  const struct cks_emu_operand *o = x->o;
  const unsigned w = x->width;
  if (!e->xmm_known) return 0;
  uint64_t *d = o[0].kind == CKS_EMU_OPND_XMM ? e->xmm[o[0].reg] : NULL;
  const uint64_t *src = o[1].kind == CKS_EMU_OPND_XMM ? e->xmm[o[1].reg] : NULL;
  if (x->op != CKS_EMU_MOVX) {
    const uint64_t lo = src[0], hi = src[1];
    if (x->op == CKS_EMU_MOVHLPS) d[0] = hi;
    else if (x->op == CKS_EMU_MOVLHPS || x->op == CKS_EMU_PUNPCKLQDQ) d[1] = lo;
    else d[0] ^= lo, d[1] ^= hi;
    e->rip = next;
    return 1;
  }
  uint64_t v[2] = {0, 0}, a = 0;
  if ((o[0].kind == CKS_EMU_OPND_MEM || o[1].kind == CKS_EMU_OPND_MEM) &&
      (!emu_address(e, x, next, &a) || (w == 16 && x->aligned && (a & 15))))
    return 0; /* a misaligned movaps faults: the thread's own business */
  if (src) {
    v[0] = src[0];
    v[1] = src[1];
  } else if (o[1].kind == CKS_EMU_OPND_REG) {
    v[0] = emu_reg_get(e, &o[1]);
  } else if (!cks_emu_load(e, a, w < 8 ? w : 8, &v[0]) || (w == 16 && !cks_emu_load(e, a + 8, 8, &v[1]))) {
    return 0;
  }
  if (w < 16) v[0] &= emu_mask(w), v[1] = 0;
  if (o[0].kind == CKS_EMU_OPND_MEM) {
    struct emu_pending p = {0};
    for (unsigned i = 0; i < (w == 16 ? 2u : 1u); i++) {
      p.s[i].addr = a + 8 * i;
      p.s[i].value = v[i];
      p.s[i].size = w < 8 ? w : 8;
    }
    p.n = w == 16 ? 2 : 1;
    if (!emu_commit(e, &p)) return 0;
  } else if (d) {
    d[0] = v[0]; /* movd, movq into %xmm clear the rest */
    d[1] = v[1];
  } else {
    emu_reg_set(e, o[0].reg, 0, w, v[0]);
  }
  e->rip = next;
  return 1;
}

int cks_emu_step(struct cks_emu *e, const struct cks_emu_insn *x) {
  if (x->op >= CKS_EMU_MOVX) return emu_sse(e, x, e->rip + x->length);
  const uint64_t next = e->rip + x->length;
  const struct cks_emu_operand *o = x->o;
  const unsigned w = x->width;
  struct emu_pending p = {0};
  uint64_t a = 0, b = 0, r = 0, f = 0;
  int reg_write = 0; /* write r to o[0]'s register */
  uint64_t new_rip = next;
  const uint64_t saved_flags = e->flags;
  switch (x->op) {
    case CKS_EMU_NOP: break;
    case CKS_EMU_MOV:
      if (!emu_get(e, x, &o[1], w, next, &r) || !emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      break;
    case CKS_EMU_MOVZX:
    case CKS_EMU_MOVSX:
      if (!emu_get(e, x, &o[1], o[1].size, next, &r)) return 0;
      if (x->op == CKS_EMU_MOVSX) r = emu_sext(r, o[1].size);
      if (!emu_put(e, x, &o[0], o[0].size, next, r, &p, &reg_write)) return 0;
      break;
    case CKS_EMU_LEA:
      if (!emu_address(e, x, next, &r)) return 0;
      reg_write = 1;
      break;
    case CKS_EMU_ADD:
    case CKS_EMU_ADC:
    case CKS_EMU_SUB:
    case CKS_EMU_SBB:
    case CKS_EMU_CMP: {
      if (!emu_get(e, x, &o[0], w, next, &a) || !emu_get(e, x, &o[1], w, next, &b)) return 0;
      int sub = x->op == CKS_EMU_SUB || x->op == CKS_EMU_SBB || x->op == CKS_EMU_CMP;
      unsigned carry = (x->op == CKS_EMU_ADC || x->op == CKS_EMU_SBB) ? (unsigned)(e->flags & EFL_CF) : 0;
      r = emu_addsub(a, b, carry, sub, w, &f);
      if (x->op != CKS_EMU_CMP && !emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      emu_set_flags(e, EFL_ARITH, f);
      break;
    }
    case CKS_EMU_AND:
    case CKS_EMU_OR:
    case CKS_EMU_XOR:
    case CKS_EMU_TEST:
      if (!emu_get(e, x, &o[0], w, next, &a) || !emu_get(e, x, &o[1], w, next, &b)) return 0;
      r = x->op == CKS_EMU_OR ? a | b : x->op == CKS_EMU_XOR ? a ^ b : a & b;
      if (x->op != CKS_EMU_TEST && !emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      emu_set_flags(e, EFL_ARITH, emu_szp(r, w)); /* CF, OF cleared; AF undefined: cleared */
      break;
    case CKS_EMU_NOT:
      if (!emu_get(e, x, &o[0], w, next, &a)) return 0;
      r = ~a;
      if (!emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      break;
    case CKS_EMU_NEG:
      if (!emu_get(e, x, &o[0], w, next, &a)) return 0;
      r = emu_addsub(0, a, 0, 1, w, &f);
      if (!emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      emu_set_flags(e, EFL_ARITH, f);
      break;
    case CKS_EMU_INC:
    case CKS_EMU_DEC:
      if (!emu_get(e, x, &o[0], w, next, &a)) return 0;
      r = emu_addsub(a, 1, 0, x->op == CKS_EMU_DEC, w, &f);
      if (!emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) return 0;
      emu_set_flags(e, EFL_ARITH & ~EFL_CF, f); /* CF stays */
      break;
    case CKS_EMU_SHL:
    case CKS_EMU_SHR:
    case CKS_EMU_SAR: {
      int changed;
      if (!emu_get(e, x, &o[0], w, next, &a) || !emu_get(e, x, &o[1], o[1].size, next, &b)) return 0;
      /* a 32-bit register shifted by 0: whether its upper half is cleared
       * is not the same everywhere, so only one already clear is emulated */
      if (o[0].kind == CKS_EMU_OPND_REG && w == 4 && (b & 31) == 0 && (e->r[o[0].reg] >> 32) != 0) return 0;
      emu_shift(e, x->op, a, b, w, &r, &changed);
      if (!changed && o[0].kind == CKS_EMU_OPND_MEM) break; /* nothing written */
      if (!emu_put(e, x, &o[0], w, next, r, &p, &reg_write)) {
        e->flags = saved_flags;
        return 0;
      }
      break;
    }
    case CKS_EMU_IMUL: {
      const struct cks_emu_operand *s1 = x->noperands == 3 ? &o[1] : &o[0];
      const struct cks_emu_operand *s2 = x->noperands == 3 ? &o[2] : &o[1];
      if (!emu_get(e, x, s1, w, next, &a) || !emu_get(e, x, s2, w, next, &b)) return 0;
      __int128 full = (__int128)(int64_t)emu_sext(a, w) * (__int128)(int64_t)emu_sext(b, w);
      r = (uint64_t)full & emu_mask(w);
      int overflow = full != (__int128)(int64_t)emu_sext(r, w);
      f = emu_szp(r, w) | (overflow ? EFL_CF | EFL_OF : 0); /* SF, ZF, PF undefined: from the result */
      emu_set_flags(e, EFL_ARITH, f);
      reg_write = 1;
      break;
    }
    case CKS_EMU_CMOV:
      if (!emu_get(e, x, &o[1], w, next, &b)) return 0; /* read whatever the condition, as the processor does */
      r = cks_emu_condition(x->cond, e->flags) ? b : emu_reg_get(e, &o[0]);
      reg_write = 1; /* a 32-bit cmov clears the upper half either way */
      break;
    case CKS_EMU_SETCC:
      r = (uint64_t)cks_emu_condition(x->cond, e->flags);
      if (!emu_put(e, x, &o[0], 1, next, r, &p, &reg_write)) return 0;
      break;
    case CKS_EMU_XCHG:
      a = emu_reg_get(e, &o[0]);
      b = emu_reg_get(e, &o[1]);
      emu_reg_set(e, o[1].reg, o[1].high, o[1].size, a);
      r = b;
      reg_write = 1;
      break;
    case CKS_EMU_CDQE:
      a = e->r[0] & emu_mask(w / 2);
      emu_reg_set(e, 0, 0, w, emu_sext(a, w / 2));
      break;
    case CKS_EMU_CQO:
      a = e->r[0] & emu_mask(w);
      emu_reg_set(e, 2, 0, w, (a >> (w * 8 - 1)) ? ~0ull : 0);
      break;
    case CKS_EMU_PUSH:
      if (!emu_get(e, x, &o[0], 8, next, &r) || !emu_push(e, r)) return 0;
      e->rip = next;
      return 1;
    case CKS_EMU_POP:
      if (!cks_emu_load(e, e->r[4], 8, &r)) return 0;
      e->r[4] += 8;
      emu_reg_set(e, o[0].reg, o[0].high, o[0].size, r);
      e->rip = next;
      return 1;
    case CKS_EMU_LEAVE:
      if (!cks_emu_load(e, e->r[5], 8, &r)) return 0;
      e->r[4] = e->r[5] + 8;
      e->r[5] = r;
      e->rip = next;
      return 1;
    case CKS_EMU_CALL:
    case CKS_EMU_JMP:
      if (o[0].kind == CKS_EMU_OPND_IMM)
        new_rip = next + (uint64_t)x->imm;
      else if (!emu_get(e, x, &o[0], 8, next, &new_rip))
        return 0;
      if (x->op == CKS_EMU_CALL && !emu_push(e, next)) return 0;
      e->rip = new_rip;
      return 1;
    case CKS_EMU_RET:
      if (!cks_emu_load(e, e->r[4], 8, &new_rip)) return 0;
      e->r[4] += 8 + (x->noperands ? (uint64_t)(x->imm & 0xffff) : 0);
      e->rip = new_rip;
      return 1;
    case CKS_EMU_JCC:
      e->rip = cks_emu_condition(x->cond, e->flags) ? next + (uint64_t)x->imm : next;
      return 1;
    default: return 0;
  }
  if (!emu_commit(e, &p)) {
    e->flags = saved_flags;
    return 0;
  }
  if (reg_write) emu_reg_set(e, o[0].reg, o[0].high, x->op == CKS_EMU_MOVZX || x->op == CKS_EMU_MOVSX ? o[0].size : w, r);
  e->rip = next;
  return 1;
}
