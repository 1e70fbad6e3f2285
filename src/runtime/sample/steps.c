/* The steps of a branch vector and the rules that end it: full (the taken
 * branches asked for), the step cap, or the next instruction entering the
 * kernel (stepping across a syscall could leave TF set while the program
 * blocks SIGTRAP, which the kernel answers by killing it). Below both ways
 * of stepping (handlers.c's single steps, block_step.c's decoding ahead),
 * which write the vector when it ends. */
#include <signal.h>
#include <ucontext.h>

#include "sample_runtime.h"

CKS_FN uint64_t *cks_steps_area(struct cks_thread *t) { return t->record + CKS_SAMPLE_FIXED / 8 + t->nstack; }

/* syscall (0f 05), sysenter (0f 34), int 0x80 (cd 80). The second byte is
 * read only after an opcode byte that announces it, so it is mapped. */
CKS_FN int cks_enters_kernel(uint64_t ip) {
  const unsigned char *p = (const unsigned char *)ip;
  if (p[0] == 0x0f) return p[1] == 0x05 || p[1] == 0x34;
  return p[0] == 0xcd && p[1] == 0x80;
}

CKS_FN uint32_t cks_step_rule(struct cks_step_count *c, uint64_t ip, uint32_t prev_length) {
  c->nsteps++;
  /* A taken branch: the next instruction is not the one after. The same
   * address again is a rep string instruction's next iteration, no branch
   * (a PMU records none). Without the length (no decoder), a jump of 1 to
   * 15 bytes forward stands for the next instruction. */
  uint64_t delta = ip - c->prev;
  if (delta != 0 && (prev_length ? delta != prev_length : delta > 15)) c->taken++;
  c->prev = ip;
  if (c->taken >= cks_cfg.vector) return CKS_SAMPLE_STOP_VECTOR;
  if (c->nsteps >= cks_cfg.step_cap) return CKS_SAMPLE_STOP_CAP;
  if (cks_enters_kernel(ip)) return CKS_SAMPLE_STOP_SYSCALL;
  return 0;
}

CKS_FN uint32_t cks_append_step(struct cks_thread *t, uint64_t ip, uint32_t prev_length) {
  cks_steps_area(t)[t->nsteps] = ip;
  struct cks_step_count c = {t->nsteps, t->taken, t->prev};
  uint32_t stop = cks_step_rule(&c, ip, prev_length);
  t->nsteps = c.nsteps;
  t->taken = c.taken;
  t->prev = c.prev;
  return stop;
}
