/* A look-ahead interpreter of the common x86-64 integer instructions, for
 * block stepping (block_step.c): at a trap the handler holds the thread's
 * registers, copies them here, and runs the code ahead on the copy without
 * touching the thread: loads read memory through the caller's fault-safe
 * read, stores go to a private buffer that later loads consult. So each
 * conditional branch ahead is decided from emulated flags, and a whole
 * branch vector can be known from one trap. Whatever is not emulated
 * exactly (system calls, locked or string instructions, SIMD, divisions,
 * an unreadable load, ...) is refused, the state left as it was, and the
 * caller takes over there with the thread's own state.
 *
 * The SSE registers are known too (the signal frame holds them), for the
 * moves between them, the general registers and memory that compilers use
 * to keep values aside when registers run short (bzip2's BZ2_decompress
 * keeps pointers in %xmm2): nothing else of SSE is emulated.
 *
 * C11, no allocation, async-signal-safe, no Zydis call: the caller decodes
 * (tests/sample_emulate checks every form against the processor). */
#ifndef CKS_EMULATE_H
#define CKS_EMULATE_H

#include <stdint.h>

#include <Zydis/DecoderTypes.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cks_emu_op {
  CKS_EMU_NONE, /* not emulated */
  CKS_EMU_NOP,
  CKS_EMU_MOV,
  CKS_EMU_MOVZX,
  CKS_EMU_MOVSX,
  CKS_EMU_LEA,
  CKS_EMU_ADD,
  CKS_EMU_ADC,
  CKS_EMU_SUB,
  CKS_EMU_SBB,
  CKS_EMU_CMP,
  CKS_EMU_AND,
  CKS_EMU_OR,
  CKS_EMU_XOR,
  CKS_EMU_TEST,
  CKS_EMU_NOT,
  CKS_EMU_NEG,
  CKS_EMU_INC,
  CKS_EMU_DEC,
  CKS_EMU_SHL,
  CKS_EMU_SHR,
  CKS_EMU_SAR,
  CKS_EMU_IMUL, /* two or three operands */
  CKS_EMU_CMOV,
  CKS_EMU_SETCC,
  CKS_EMU_XCHG, /* registers only */
  CKS_EMU_CDQE, /* cltq, cwtl: the accumulator's lower half sign-extended */
  CKS_EMU_CQO,  /* cqto, cltd: rdx from the accumulator's sign */
  CKS_EMU_PUSH,
  CKS_EMU_POP,
  CKS_EMU_LEAVE,
  CKS_EMU_CALL,
  CKS_EMU_RET,
  CKS_EMU_JMP,
  CKS_EMU_JCC,
  /* SSE moves (legacy encoding, %xmm registers): */
  CKS_EMU_MOVX,    /* movd, movq, movaps, movups, movapd, movupd, movdqa, movdqu */
  CKS_EMU_MOVHLPS, /* low half from the source's high half (registers) */
  CKS_EMU_MOVLHPS, /* high half from the source's low half (registers) */
  CKS_EMU_PUNPCKLQDQ,
  CKS_EMU_PXOR     /* pxor, xorps, xorpd */
};

/* An operand. Registers are numbered as the encoding does (0 rax .. 15
 * r15); `high` is ah, ch, dh, bh. A memory operand's address and an
 * immediate's value are the instruction's (an x86 instruction has one of
 * each at most): the decoding fits one cache line with the step's own
 * facts (block_step.c's decode cache), as the handler meets it cold. */
#define CKS_EMU_NOREG 0xff
#define CKS_EMU_RIP 16 /* as a base: the next instruction's address */
enum { CKS_EMU_OPND_NONE, CKS_EMU_OPND_REG, CKS_EMU_OPND_MEM, CKS_EMU_OPND_IMM, CKS_EMU_OPND_XMM };
struct cks_emu_operand {
  uint8_t kind, reg, high, size; /* size in bytes */
};

struct cks_emu_insn {
  int64_t imm;                     /* the immediate (sign-extended), a relative branch's displacement */
  int32_t disp;                    /* the memory operand's displacement (wider ones are not emulated) */
  uint8_t op, length, width, cond; /* width: the operation's size in bytes; cond: x86's condition code */
  uint8_t noperands : 2;
  uint8_t fs : 1;                  /* the memory operand is in the fs segment */
  uint8_t aligned : 1;             /* a 16-byte memory operand must be aligned (movaps, movdqa: else #GP) */
  uint8_t base, index, scale;      /* the memory operand's address: base + index * scale + disp */
  struct cks_emu_operand o[3];
};

/* Fills `out` from Zydis's decoding: 1 when emulated, else 0 (op NONE). */
int cks_emu_translate(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                      struct cks_emu_insn *out);

/* Stores made ahead: the oldest first, consulted by every later load.
 * Enough for 16 passes of bzip2's mainSort frequency loop (8 stores a
 * pass, one taken branch): a full buffer stops the interpreter, and the
 * loop's passes then trap one by one. A load looks at the stores only when
 * one of them may overlap it (`store_bloom`: a bit per 8-byte granule,
 * hashed). */
#define CKS_EMU_STORES 256
#define CKS_EMU_BLOOM_WORDS 16
struct cks_emu {
  uint64_t r[16];
  uint64_t rip, flags; /* flags as rflags */
  uint64_t xmm[16][2]; /* %xmm0-15, low half first */
  int xmm_known;       /* 0: the SSE moves stop (no signal frame's registers) */
  /* reads `size` bytes at `addr` without faulting: 1 done, 0 unreadable */
  int (*read)(void *ctx, uint64_t addr, void *out, uint32_t size);
  /* the fs segment's base (0: unknown, then fs-relative operands stop) */
  int (*fs_base)(void *ctx, uint64_t *base);
  void *ctx;
  uint32_t nstores;
  uint64_t store_bloom[CKS_EMU_BLOOM_WORDS]; /* zero with nstores 0 (cks_emu_clear_stores) */
  struct cks_emu_store {
    uint64_t addr, value;
    uint32_t size;
  } stores[CKS_EMU_STORES];
};

/* Forgets the stores made ahead. */
void cks_emu_clear_stores(struct cks_emu *e);

/* Runs `in` (at e->rip) on the copy. 1: done, rip at the next instruction
 * or the branch's target; 0: not emulated here (an unreadable load, the
 * store buffer full, a case not modelled), e left as it was. */
int cks_emu_step(struct cks_emu *e, const struct cks_emu_insn *in);

/* x86's condition `cc` (0 o, 1 no, 2 b, ... 15 nle) on rflags. */
int cks_emu_condition(unsigned cc, uint64_t flags);

/* Reads `size` (1-8) bytes at `addr` as the emulated program sees them:
 * memory overlaid with the stores made ahead. 1 done, 0 unreadable. */
int cks_emu_load(struct cks_emu *e, uint64_t addr, uint32_t size, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif
