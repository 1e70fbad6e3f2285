/* The common integer instructions decoded without Zydis (step_decode.h).
 * Like Zydis, it reads the bytes one after the other and none past the
 * instruction's own, whatever `size` says: block stepping passes 15 for
 * the instruction the thread stands at, whose bytes alone are known to be
 * mapped.
 *
 * Zydis decodes every instruction, through tables of some hundred KiB that
 * the handler meets cold at each trap (the program evicted them since the
 * last tick): ~0.6 us a decoding on this VM, ~30 a vector for the
 * instructions first met. The forms compilers emit in ordinary code (the
 * ALU group, mov, lea, movzx/movsx, test, shifts, imul, cmov, setcc,
 * push/pop, the relative branches, call/jmp/push through a register or
 * memory, ret, leave, nops, endbr64) take a few dozen
 * instructions here. Anything else, or any prefix but 66, 64 (fs) and
 * REX, is declined and goes to Zydis: the facts filled here are exactly
 * those cks_step_from_zydis fills (tests/sample_emulate compares them on
 * every instruction of whole libraries; fuzz/fuzz_quick_decode.cc on
 * arbitrary bytes), so the way ahead and the
 * recordings are the same whichever decoded it. */
#include <string.h>

#include "step_decode.h"

struct quick {
  const unsigned char *b;
  uint32_t size; /* readable bytes, at most 15 */
  uint32_t i;    /* the next byte */
  uint8_t rex;   /* the REX prefix, 0: none */
  uint8_t osz;   /* the operand size: 2, 4 or 8 bytes */
  uint8_t opsize, fs;
};

/* The r/m operand of a ModRM byte (and its SIB and displacement). */
struct rm {
  uint8_t mod, reg; /* reg: the ModRM reg field with REX.R */
  uint8_t rm;       /* a register (mod 3) with REX.B */
  uint8_t base, index, scale; /* memory: CKS_EMU_NOREG, CKS_EMU_RIP or a register */
  int32_t disp;
};

static int byte(struct quick *q, uint8_t *v) {
  if (q->i >= q->size) return 0;
  *v = q->b[q->i++];
  return 1;
}

/* `n` (1, 2, 4) bytes little-endian, sign-extended */
static int simm(struct quick *q, uint32_t n, int64_t *v) {
  if (q->size - q->i < n) return 0;
  const unsigned char *p = q->b + q->i;
  q->i += n;
  if (n == 1) *v = (int8_t)p[0];
  else if (n == 2) *v = (int16_t)(p[0] | p[1] << 8);
  else *v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
  return 1;
}

static int modrm(struct quick *q, struct rm *r) {
  uint8_t m, s;
  if (!byte(q, &m)) return 0;
  const uint8_t rex_r = (q->rex >> 2) & 1, rex_x = (q->rex >> 1) & 1, rex_b = q->rex & 1;
  r->mod = m >> 6;
  r->reg = (uint8_t)(((m >> 3) & 7) | rex_r << 3);
  r->rm = (uint8_t)((m & 7) | rex_b << 3);
  r->base = r->index = CKS_EMU_NOREG;
  r->scale = 1;
  r->disp = 0;
  if (r->mod == 3) return 1;
  int64_t d = 0;
  if ((m & 7) == 4) {
    if (!byte(q, &s)) return 0;
    const uint8_t idx = (uint8_t)(((s >> 3) & 7) | rex_x << 3);
    if (idx != 4) {
      r->index = idx;
      r->scale = (uint8_t)(1u << (s >> 6));
    } else if (s >> 6) {
      return 0; /* a scale without an index */
    }
    if ((s & 7) == 5 && r->mod == 0) {
      if (!simm(q, 4, &d)) return 0;
    } else {
      r->base = (uint8_t)((s & 7) | rex_b << 3);
    }
  } else if ((m & 7) == 5 && r->mod == 0) {
    r->base = CKS_EMU_RIP;
    if (!simm(q, 4, &d)) return 0;
  } else {
    r->base = r->rm;
  }
  if (r->mod == 1 && !simm(q, 1, &d)) return 0;
  if (r->mod == 2 && !simm(q, 4, &d)) return 0;
  r->disp += (int32_t)d;
  return 1;
}

/* ---- the emulated operands (as emulate.c's translation makes them) ---- */

static void reg_operand(const struct quick *q, struct cks_emu_operand *o, uint8_t num, uint8_t size) {
  o->kind = CKS_EMU_OPND_REG;
  o->size = size;
  o->reg = num;
  o->high = 0;
  if (size == 1 && !q->rex && num >= 4 && num < 8) { /* ah, ch, dh, bh */
    o->reg = (uint8_t)(num - 4);
    o->high = 1;
  }
}

/* the r/m operand: a register or memory of `size` bytes */
static void rm_operand(const struct quick *q, const struct rm *r, struct cks_emu_insn *x, struct cks_emu_operand *o,
                       uint8_t size) {
  if (r->mod == 3) {
    reg_operand(q, o, r->rm, size);
    return;
  }
  o->kind = CKS_EMU_OPND_MEM;
  o->size = size;
  x->base = r->base;
  x->index = r->index;
  x->scale = r->scale;
  x->disp = r->disp;
  x->fs = q->fs;
}

static void imm_operand(struct cks_emu_insn *x, struct cks_emu_operand *o, int64_t value, uint8_t size) {
  o->kind = CKS_EMU_OPND_IMM;
  o->size = size;
  x->imm = value;
}

/* A register operand that is the stack pointer (rsp, esp, sp, spl). */
static int is_sp(const struct cks_emu_operand *o) { return o->kind == CKS_EMU_OPND_REG && o->reg == 4 && !o->high; }

/* The step facts of an instruction that only moves on: the stack written
 * through the r/m operand when it is written memory based on rsp. */
static void plain(struct cks_step_insn *out, const struct cks_emu_insn *x, const struct cks_emu_operand *written) {
  out->kind = CKS_STEP_PLAIN;
  if (written && written->kind == CKS_EMU_OPND_MEM && x->base == 4) {
    out->stack_write = x->index == CKS_EMU_NOREG ? 1 : 2;
    if (out->stack_write == 1) {
      out->write_disp = x->disp;
      out->write_size = written->size;
    }
  }
}

enum { ALU_ADD, ALU_OR, ALU_ADC, ALU_SBB, ALU_AND, ALU_SUB, ALU_XOR, ALU_CMP };
static const uint8_t alu_op[8] = {CKS_EMU_ADD, CKS_EMU_OR,  CKS_EMU_ADC, CKS_EMU_SBB,
                                  CKS_EMU_AND, CKS_EMU_SUB, CKS_EMU_XOR, CKS_EMU_CMP};

/* Two operands, o[0] the destination (written unless `reads_only`),
 * o[1] the source; the stack pointer as a written register is declined
 * (Zydis's facts: a stop there), but for add/sub rsp, imm. */
static int two(struct cks_step_insn *out, struct cks_emu_insn *x, int reads_only) {
  x->noperands = 2;
  if (!reads_only && is_sp(&x->o[0])) {
    if ((x->op != CKS_EMU_ADD && x->op != CKS_EMU_SUB) || x->o[0].size != 8 || x->o[1].kind != CKS_EMU_OPND_IMM)
      return 0;
    out->kind = CKS_STEP_PLAIN;
    out->rsp_delta = x->op == CKS_EMU_ADD ? x->imm : -x->imm;
    return 1;
  }
  plain(out, x, reads_only ? NULL : &x->o[0]);
  return 1;
}

int cks_quick_decode(const unsigned char *bytes, size_t size, uint64_t at, struct cks_step_insn *out,
                     struct cks_emu_insn *x) {
  struct quick q = {bytes, size < 15 ? (uint32_t)size : 15, 0, 0, 4, 0, 0};
  uint8_t c;
  int64_t v = 0;
  struct rm r;
  cks_step_clear(out, x);
  memset(x, 0, sizeof *x);
  /* endbr64, byte by byte: each byte read is one the instruction has
   * after those before it (memcmp might read four at once past a short
   * instruction at a mapping's end) */
  if (q.size >= 4 && bytes[0] == 0xf3 && bytes[1] == 0x0f && bytes[2] == 0x1e && bytes[3] == 0xfa) {
    x->op = CKS_EMU_NOP;
    x->width = 4;
    out->length = x->length = 4;
    out->kind = CKS_STEP_PLAIN;
    return 1;
  }
  for (;;) {
    if (!byte(&q, &c)) return 0;
    if (c == 0x66 && !q.opsize) q.opsize = 1;
    else if (c == 0x64 && !q.fs) q.fs = 1;
    else break;
  }
  if ((c & 0xf0) == 0x40) {
    q.rex = c;
    if (!byte(&q, &c)) return 0;
  }
  const int rex_w = (q.rex >> 3) & 1;
  q.osz = rex_w ? 8 : q.opsize ? 2 : 4;
  const uint8_t osz = q.osz;
  /* byte forms take neither 66 nor REX.W; branches and stack operations
   * no 66 (their 16-bit forms) */
  int memory = 0; /* an r/m operand that is memory (fs applies to it) */
  if (c < 0x40 && (c & 7) < 6 && c != 0x0f) {
    /* the ALU group: op r/m,r; op r,r/m; op al/eax,imm */
    const uint8_t alu = c >> 3, form = c & 7, size1 = form & 1 ? osz : 1;
    if (!(form & 1) && (q.opsize || rex_w)) return 0;
    x->op = alu_op[alu];
    x->width = size1;
    if (form < 4) {
      if (!modrm(&q, &r)) return 0;
      memory = r.mod != 3;
      struct cks_emu_operand *m = &x->o[form < 2 ? 0 : 1], *g = &x->o[form < 2 ? 1 : 0];
      rm_operand(&q, &r, x, m, size1);
      reg_operand(&q, g, r.reg, size1);
    } else {
      const uint8_t isz = size1 == 1 ? 1 : size1 == 2 ? 2 : 4;
      if (!simm(&q, isz, &v)) return 0;
      reg_operand(&q, &x->o[0], 0, size1);
      imm_operand(x, &x->o[1], v, isz);
    }
    if (!two(out, x, alu == ALU_CMP)) return 0;
  } else if (c == 0x80 || c == 0x81 || c == 0x83) {
    const uint8_t size1 = c == 0x80 ? 1 : osz;
    if (c == 0x80 && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r)) return 0;
    memory = r.mod != 3;
    const uint8_t alu = r.reg & 7;
    const uint8_t isz = c == 0x81 ? (osz == 2 ? 2 : 4) : 1;
    if (!simm(&q, isz, &v)) return 0;
    x->op = alu_op[alu];
    x->width = size1;
    rm_operand(&q, &r, x, &x->o[0], size1);
    imm_operand(x, &x->o[1], v, isz);
    if (!two(out, x, alu == ALU_CMP)) return 0;
  } else if (c == 0x84 || c == 0x85) { /* test r/m, r */
    const uint8_t size1 = c == 0x84 ? 1 : osz;
    if (c == 0x84 && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r)) return 0;
    memory = r.mod != 3;
    x->op = CKS_EMU_TEST;
    x->width = size1;
    rm_operand(&q, &r, x, &x->o[0], size1);
    reg_operand(&q, &x->o[1], r.reg, size1);
    two(out, x, 1);
  } else if (c >= 0x88 && c <= 0x8b) { /* mov */
    const uint8_t size1 = c & 1 ? osz : 1;
    if (!(c & 1) && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r)) return 0;
    memory = r.mod != 3;
    struct cks_emu_operand *m = &x->o[c < 0x8a ? 0 : 1], *g = &x->o[c < 0x8a ? 1 : 0];
    x->op = CKS_EMU_MOV;
    x->width = size1;
    rm_operand(&q, &r, x, m, size1);
    reg_operand(&q, g, r.reg, size1);
    if (!two(out, x, 0)) return 0;
  } else if (c == 0x8d) { /* lea */
    if (!modrm(&q, &r) || r.mod == 3 || q.fs) return 0;
    x->op = CKS_EMU_LEA;
    x->width = osz;
    reg_operand(&q, &x->o[0], r.reg, osz);
    rm_operand(&q, &r, x, &x->o[1], 8); /* Zydis: an address's size */
    x->noperands = 2;
    if (is_sp(&x->o[0])) {
      if (osz != 8 || r.base != 4 || r.index != CKS_EMU_NOREG) return 0;
      out->rsp_delta = r.disp;
    }
    out->kind = CKS_STEP_PLAIN;
  } else if (c >= 0x50 && c <= 0x5f) { /* push, pop r64 */
    const uint8_t num = (uint8_t)((c & 7) | (q.rex & 1) << 3);
    if (q.opsize || (c >= 0x58 && num == 4)) return 0;
    x->op = c < 0x58 ? CKS_EMU_PUSH : CKS_EMU_POP;
    x->width = 8;
    x->noperands = 1;
    reg_operand(&q, &x->o[0], num, 8);
    out->kind = CKS_STEP_PLAIN;
    out->rsp_delta = c < 0x58 ? -8 : 8;
    if (c < 0x58) {
      out->stack_write = 1; /* what it pushes: the slot below */
      out->write_disp = -8;
      out->write_size = 8;
    }
  } else if (c == 0x68 || c == 0x6a) { /* push imm */
    if (q.opsize) return 0;
    const uint8_t isz = c == 0x68 ? 4 : 1;
    if (!simm(&q, isz, &v)) return 0;
    x->op = CKS_EMU_PUSH;
    x->width = 8;
    x->noperands = 1;
    imm_operand(x, &x->o[0], v, isz);
    out->kind = CKS_STEP_PLAIN;
    out->rsp_delta = -8;
    out->stack_write = 1;
    out->write_disp = -8;
    out->write_size = 8;
  } else if ((c >= 0x70 && c <= 0x7f) || c == 0xe8 || c == 0xe9 || c == 0xeb) { /* relative branches */
    const uint8_t isz = c == 0xe8 || c == 0xe9 ? 4 : 1;
    if (q.opsize || !simm(&q, isz, &v)) return 0;
    x->op = c == 0xe8 ? CKS_EMU_CALL : c == 0xe9 || c == 0xeb ? CKS_EMU_JMP : CKS_EMU_JCC;
    x->width = 8;
    x->noperands = 1;
    imm_operand(x, &x->o[0], v, isz);
    out->target = at + q.i + (uint64_t)v;
    out->kind = x->op == CKS_EMU_JCC ? CKS_STEP_JCC : CKS_STEP_JUMP;
    if (c == 0xe8) out->rsp_delta = -8;
    if (x->op == CKS_EMU_JCC) out->cc = x->cond = c & 15;
  } else if (c == 0xc3 || c == 0xc2) { /* ret */
    if (q.opsize || q.rex) return 0;
    x->op = CKS_EMU_RET;
    x->width = 8;
    out->kind = CKS_STEP_RET;
    out->rsp_delta = 8;
    if (c == 0xc2) {
      if (!simm(&q, 2, &v)) return 0;
      v &= 0xffff;
      x->noperands = 1;
      imm_operand(x, &x->o[0], v, 2);
      out->rsp_delta += v;
    }
  } else if (c >= 0xb0 && c <= 0xbf) { /* mov r, imm */
    const uint8_t num = (uint8_t)((c & 7) | (q.rex & 1) << 3), size1 = c < 0xb8 ? 1 : osz;
    if (c < 0xb8 && (q.opsize || rex_w)) return 0;
    if (size1 == 8) {
      if (q.size - q.i < 8) return 0;
      uint64_t u = 0;
      for (int k = 7; k >= 0; k--) u = u << 8 | q.b[q.i + (uint32_t)k];
      q.i += 8;
      v = (int64_t)u;
    } else if (!simm(&q, size1, &v)) {
      return 0;
    }
    x->op = CKS_EMU_MOV;
    x->width = size1;
    reg_operand(&q, &x->o[0], num, size1);
    imm_operand(x, &x->o[1], v, size1);
    if (!two(out, x, 0)) return 0;
  } else if (c == 0xc6 || c == 0xc7) { /* mov r/m, imm */
    const uint8_t size1 = c == 0xc6 ? 1 : osz, isz = c == 0xc6 ? 1 : osz == 2 ? 2 : 4;
    if (c == 0xc6 && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r) || (r.reg & 7) != 0 || !simm(&q, isz, &v)) return 0;
    memory = r.mod != 3;
    x->op = CKS_EMU_MOV;
    x->width = size1;
    rm_operand(&q, &r, x, &x->o[0], size1);
    imm_operand(x, &x->o[1], v, isz);
    if (!two(out, x, 0)) return 0;
  } else if (c == 0xc0 || c == 0xc1 || (c >= 0xd0 && c <= 0xd3)) { /* shl, shr, sar */
    const uint8_t size1 = c & 1 ? osz : 1;
    if (!(c & 1) && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r)) return 0;
    const uint8_t kind = r.reg & 7;
    if (kind != 4 && kind != 5 && kind != 7) return 0;
    memory = r.mod != 3;
    x->op = kind == 4 ? CKS_EMU_SHL : kind == 5 ? CKS_EMU_SHR : CKS_EMU_SAR;
    x->width = size1;
    rm_operand(&q, &r, x, &x->o[0], size1);
    if (c < 0xd0) {
      if (!simm(&q, 1, &v)) return 0;
      imm_operand(x, &x->o[1], v & 0xff, 1); /* a count: unsigned */
    } else if (c < 0xd2) {
      imm_operand(x, &x->o[1], 1, 1);
    } else {
      reg_operand(&q, &x->o[1], 1, 1);
    }
    if (!two(out, x, 0)) return 0;
  } else if (c == 0xff && q.i < q.size && ((q.b[q.i] >> 3) & 6) >= 2 && ((q.b[q.i] >> 3) & 1) == 0) {
    /* call, jmp and push r/m (ff /2, /4, /6): 64 bits wide; the branches
     * are stops (their target is the thread's state), the interpreter
     * runs them */
    if (q.opsize || !modrm(&q, &r)) return 0;
    const uint8_t kind = r.reg & 7;
    memory = r.mod != 3;
    x->op = kind == 2 ? CKS_EMU_CALL : kind == 4 ? CKS_EMU_JMP : CKS_EMU_PUSH;
    x->width = 8;
    x->noperands = 1;
    rm_operand(&q, &r, x, &x->o[0], 8);
    if (kind == 6) {
      out->kind = CKS_STEP_PLAIN;
      out->rsp_delta = -8;
      out->stack_write = 1; /* what it pushes: the slot below */
      out->write_disp = -8;
      out->write_size = 8;
    }
  } else if (c == 0xf6 || c == 0xf7 || c == 0xfe || c == 0xff) { /* test imm, not, neg; inc, dec */
    const uint8_t size1 = c & 1 ? osz : 1;
    if (!(c & 1) && (q.opsize || rex_w)) return 0;
    if (!modrm(&q, &r)) return 0;
    const uint8_t kind = r.reg & 7;
    memory = r.mod != 3;
    x->width = size1;
    rm_operand(&q, &r, x, &x->o[0], size1);
    if (c < 0xfe && kind == 0) {
      const uint8_t isz = size1 == 1 ? 1 : size1 == 2 ? 2 : 4;
      if (!simm(&q, isz, &v)) return 0;
      x->op = CKS_EMU_TEST;
      imm_operand(x, &x->o[1], v, isz);
      two(out, x, 1);
    } else {
      if (c < 0xfe ? kind != 2 && kind != 3 : kind > 1) return 0;
      x->op = c < 0xfe ? (kind == 2 ? CKS_EMU_NOT : CKS_EMU_NEG) : (kind == 0 ? CKS_EMU_INC : CKS_EMU_DEC);
      x->noperands = 1;
      if (is_sp(&x->o[0])) return 0;
      plain(out, x, &x->o[0]);
    }
  } else if (c == 0x63 || c == 0x69 || c == 0x6b) { /* movsxd; imul r, r/m, imm */
    if (c == 0x63 && !rex_w) return 0;
    if (!modrm(&q, &r)) return 0;
    memory = r.mod != 3;
    x->width = osz;
    reg_operand(&q, &x->o[0], r.reg, osz);
    rm_operand(&q, &r, x, &x->o[1], c == 0x63 ? 4 : osz);
    if (c == 0x63) {
      x->op = CKS_EMU_MOVSX;
    } else {
      const uint8_t isz = c == 0x6b ? 1 : osz == 2 ? 2 : 4;
      if (!simm(&q, isz, &v)) return 0;
      x->op = CKS_EMU_IMUL;
      imm_operand(x, &x->o[2], v, isz);
    }
    if (!two(out, x, 0)) return 0;
    if (c != 0x63) x->noperands = 3;
  } else if (c == 0xc9) { /* leave: the stack pointer from rbp, a stop */
    if (q.opsize || q.rex) return 0;
    x->op = CKS_EMU_LEAVE;
    x->width = 8;
  } else if (c == 0x0f) {
    uint8_t c2;
    if (!byte(&q, &c2)) return 0;
    if (c2 == 0x1f) { /* nop r/m */
      if (!modrm(&q, &r) || (r.reg & 7) != 0 || r.mod == 3 || r.base == 4 || q.fs) return 0;
      x->op = CKS_EMU_NOP;
      x->width = osz;
      out->kind = CKS_STEP_PLAIN;
    } else if (c2 >= 0x80 && c2 <= 0x8f) { /* jcc rel32 */
      if (q.opsize || !simm(&q, 4, &v)) return 0;
      x->op = CKS_EMU_JCC;
      x->width = 8;
      x->noperands = 1;
      imm_operand(x, &x->o[0], v, 4);
      out->target = at + q.i + (uint64_t)v;
      out->kind = CKS_STEP_JCC;
      out->cc = x->cond = c2 & 15;
    } else if ((c2 >= 0x40 && c2 <= 0x4f) || c2 == 0xaf || c2 == 0xb6 || c2 == 0xb7 || c2 == 0xbe || c2 == 0xbf) {
      /* cmov, imul r, r/m, movzx, movsx */
      if (!modrm(&q, &r)) return 0;
      memory = r.mod != 3;
      x->width = osz;
      reg_operand(&q, &x->o[0], r.reg, osz);
      rm_operand(&q, &r, x, &x->o[1], c2 < 0xb0 ? osz : c2 & 1 ? 2 : 1);
      if (c2 < 0x50) {
        x->op = CKS_EMU_CMOV;
        x->cond = c2 & 15;
      } else {
        x->op = c2 == 0xaf ? CKS_EMU_IMUL : c2 < 0xb8 ? CKS_EMU_MOVZX : CKS_EMU_MOVSX;
      }
      if (!two(out, x, 0)) return 0;
    } else if (c2 >= 0x90 && c2 <= 0x9f) { /* setcc r/m8 */
      if (q.opsize || rex_w || !modrm(&q, &r) || (r.reg & 7) != 0) return 0;
      memory = r.mod != 3;
      x->op = CKS_EMU_SETCC;
      x->cond = c2 & 15;
      x->width = 1;
      x->noperands = 1;
      rm_operand(&q, &r, x, &x->o[0], 1);
      if (is_sp(&x->o[0])) return 0;
      plain(out, x, &x->o[0]);
    } else {
      return 0;
    }
  } else if (c == 0x90 && !q.rex && !q.opsize) {
    x->op = CKS_EMU_NOP;
    x->width = 4;
    out->kind = CKS_STEP_PLAIN;
  } else {
    return 0;
  }
  if (q.fs && !memory) return 0;
  out->length = x->length = (uint8_t)q.i;
  (void)at;
  return 1;
}
