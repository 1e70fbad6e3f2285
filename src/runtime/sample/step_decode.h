/* What an instruction does to the way ahead of block stepping
 * (block_step.c): its length, whether the next instruction follows or a
 * branch, a return or a rep string instruction decides, how it moves the
 * stack pointer and what it writes on the stack; with the look-ahead
 * interpreter's decoding of it (emulate.h). Two decoders fill it: Zydis's
 * (step_decode.c, every instruction) and a quick one (quick_decode.c) for
 * the common integer forms, which gives exactly what Zydis's gives or
 * declines (tests/sample_emulate compares them on whole libraries).
 *
 * C11, no allocation, async-signal-safe. */
#ifndef CKS_STEP_DECODE_H
#define CKS_STEP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <Zydis/DecoderTypes.h>

#include "emulate.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CKS_STEP_FN
#define CKS_STEP_FN __attribute__((visibility("hidden")))
#endif

/* A branch with an operand-size prefix (0x66) and no REX.W: Intel's
 * processors ignore the prefix in 64-bit mode, AMD's honour it (rel16, a
 * 16-bit target, 2 bytes pushed or popped), and Zydis decodes as Intel
 * does: its length and target are the machine's, so it is single-stepped
 * (CKS_STEP_OTHER), and a step's length is not taken from it. covkit's own
 * decoder (src/sample/instruction_decoder.cc) takes it as undecodable, so
 * nothing is planted in its function. (REX.W wins over 0x66 on both: the
 * TLS sequence `66 66 48 e8` is a plain call.) */
static inline int cks_vendor_dependent_branch(const ZydisDecodedInstruction *in) {
  const ZydisInstructionCategory c = in->meta.category;
  return (c == ZYDIS_CATEGORY_COND_BR || c == ZYDIS_CATEGORY_UNCOND_BR || c == ZYDIS_CATEGORY_CALL ||
          c == ZYDIS_CATEGORY_RET) &&
         (in->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) && !in->raw.rex.W;
}

enum cks_step_kind {
  CKS_STEP_PLAIN,    /* the next instruction follows; the stack pointer moves by `rsp_delta` */
  CKS_STEP_JUMP,     /* to `target`, whatever the state (jmp rel, call rel) */
  CKS_STEP_JCC,      /* to `target` or the next instruction, by the flags */
  CKS_STEP_RET,      /* to the address on the stack */
  CKS_STEP_REP,      /* rep movs/stos: the same address again for each pass but the last, rcx passes */
  CKS_STEP_OTHER     /* needs the thread's state in a way not followed here: single-step it */
};

struct cks_step_insn {
  enum cks_step_kind kind;
  uint32_t length;
  int64_t rsp_delta; /* after the instruction, for PLAIN, JUMP (call: -8) and RET */
  uint64_t target;
  uint8_t cc; /* CKS_STEP_JCC: x86's condition code; 0xff: none (loop, jrcxz) */
  /* memory it writes relative to the stack pointer (PLAIN): 0 none, 1 the
   * `write_size` bytes at rsp + `write_disp`, 2 somewhere (an index) */
  int stack_write;
  int64_t write_disp;
  uint32_t write_size;
};

/* `out` and `emu` as for bytes that do not decode (length 0). */
CKS_STEP_FN void cks_step_clear(struct cks_step_insn *out, struct cks_emu_insn *emu);

/* From Zydis's full decoding of the instruction at `at`. */
CKS_STEP_FN void cks_step_from_zydis(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t at,
                                     struct cks_step_insn *out, struct cks_emu_insn *emu);

/* The common forms without Zydis (`size`: the bytes readable at `bytes`,
 * up to 15): 1 with `out` and `emu` filled exactly as cks_step_from_zydis
 * fills them, 0 for anything else (then Zydis decodes it). */
CKS_STEP_FN int cks_quick_decode(const unsigned char *bytes, size_t size, uint64_t at, struct cks_step_insn *out,
                                 struct cks_emu_insn *emu);

#ifdef __cplusplus
}
#endif
#endif
