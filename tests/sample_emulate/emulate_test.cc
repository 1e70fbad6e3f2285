// The look-ahead interpreter of block stepping (src/runtime/sample/emulate.c)
// against the processor: each form below is assembled into this program,
// run natively from random registers, flags and memory, and emulated from
// the same; registers, the flags the instruction defines (undefined ones
// left out by the manuals' rule for that instruction) and the memory it
// writes must be equal. Nothing here says what a result is: the processor
// does.
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <Zydis/Zydis.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "emulate.h"

namespace emulate_test {

struct NativeState {
  uint64_t r[16];
  uint64_t flags;
  uint64_t xmm[16][2];  // at 136
};

}  // namespace emulate_test

extern "C" {
emulate_test::NativeState emu_native_state;
uint64_t emu_native_host_rsp;
const void *emu_native_target;
void emu_native_run();
}

// Loads every register (%xmm0-15 too) and the flags from emu_native_state, jumps to the
// snippet, which ends in a jump to emu_native_exit: every register and the
// flags back into emu_native_state, then home.
asm(R"(
  .text
  .globl emu_native_run
emu_native_run:
  push %rbx
  push %rbp
  push %r12
  push %r13
  push %r14
  push %r15
  mov %rsp, emu_native_host_rsp(%rip)
  pushq emu_native_state+128(%rip)
  popfq
  movdqu emu_native_state+136(%rip), %xmm0
  movdqu emu_native_state+152(%rip), %xmm1
  movdqu emu_native_state+168(%rip), %xmm2
  movdqu emu_native_state+184(%rip), %xmm3
  movdqu emu_native_state+200(%rip), %xmm4
  movdqu emu_native_state+216(%rip), %xmm5
  movdqu emu_native_state+232(%rip), %xmm6
  movdqu emu_native_state+248(%rip), %xmm7
  movdqu emu_native_state+264(%rip), %xmm8
  movdqu emu_native_state+280(%rip), %xmm9
  movdqu emu_native_state+296(%rip), %xmm10
  movdqu emu_native_state+312(%rip), %xmm11
  movdqu emu_native_state+328(%rip), %xmm12
  movdqu emu_native_state+344(%rip), %xmm13
  movdqu emu_native_state+360(%rip), %xmm14
  movdqu emu_native_state+376(%rip), %xmm15
  mov emu_native_state+0(%rip), %rax
  mov emu_native_state+8(%rip), %rcx
  mov emu_native_state+16(%rip), %rdx
  mov emu_native_state+24(%rip), %rbx
  mov emu_native_state+32(%rip), %rsp
  mov emu_native_state+40(%rip), %rbp
  mov emu_native_state+48(%rip), %rsi
  mov emu_native_state+56(%rip), %rdi
  mov emu_native_state+64(%rip), %r8
  mov emu_native_state+72(%rip), %r9
  mov emu_native_state+80(%rip), %r10
  mov emu_native_state+88(%rip), %r11
  mov emu_native_state+96(%rip), %r12
  mov emu_native_state+104(%rip), %r13
  mov emu_native_state+112(%rip), %r14
  mov emu_native_state+120(%rip), %r15
  jmp *emu_native_target(%rip)
  .globl emu_native_exit
emu_native_exit:
  movdqu %xmm0, emu_native_state+136(%rip)
  movdqu %xmm1, emu_native_state+152(%rip)
  movdqu %xmm2, emu_native_state+168(%rip)
  movdqu %xmm3, emu_native_state+184(%rip)
  movdqu %xmm4, emu_native_state+200(%rip)
  movdqu %xmm5, emu_native_state+216(%rip)
  movdqu %xmm6, emu_native_state+232(%rip)
  movdqu %xmm7, emu_native_state+248(%rip)
  movdqu %xmm8, emu_native_state+264(%rip)
  movdqu %xmm9, emu_native_state+280(%rip)
  movdqu %xmm10, emu_native_state+296(%rip)
  movdqu %xmm11, emu_native_state+312(%rip)
  movdqu %xmm12, emu_native_state+328(%rip)
  movdqu %xmm13, emu_native_state+344(%rip)
  movdqu %xmm14, emu_native_state+360(%rip)
  movdqu %xmm15, emu_native_state+376(%rip)
  mov %rax, emu_native_state+0(%rip)
  mov %rcx, emu_native_state+8(%rip)
  mov %rdx, emu_native_state+16(%rip)
  mov %rbx, emu_native_state+24(%rip)
  mov %rsp, emu_native_state+32(%rip)
  mov %rbp, emu_native_state+40(%rip)
  mov %rsi, emu_native_state+48(%rip)
  mov %rdi, emu_native_state+56(%rip)
  mov %r8, emu_native_state+64(%rip)
  mov %r9, emu_native_state+72(%rip)
  mov %r10, emu_native_state+80(%rip)
  mov %r11, emu_native_state+88(%rip)
  mov %r12, emu_native_state+96(%rip)
  mov %r13, emu_native_state+104(%rip)
  mov %r14, emu_native_state+112(%rip)
  mov %r15, emu_native_state+120(%rip)
  mov emu_native_host_rsp(%rip), %rsp
  pushfq
  popq emu_native_state+128(%rip)
  pop %r15
  pop %r14
  pop %r13
  pop %r12
  pop %rbp
  pop %rbx
  ret
)");

namespace emulate_test {

// Which flags a form's last flag-writing instruction defines.
enum FlagRule {
  kAll,     // CF PF AF ZF SF OF (arithmetic; or none written: all unchanged)
  kNoAf,    // logic: AF undefined
  kImul,    // CF OF only
  kShift,   // by the count: see shift_flags
};

struct Form {
  const char *name;
  const unsigned char *begin, *end;
  FlagRule rule;
  int shift_bits;  // kShift: the operand's width
  int shift_count; // kShift: the immediate count, or -1 for cl
  int may_refuse;  // 1: a 32-bit register shift by cl may be refused when the count is 0
};

#define EMU_SNIPPET(name, text, rule, bits, count, refuse)                                                     \
  asm(".pushsection .text\n.globl emu_b_" #name "\nemu_b_" #name ":\n" text "\n.globl emu_e_" #name "\nemu_e_" #name \
      ":\njmp emu_native_exit\n.popsection\n");                                                                \
  extern "C" const unsigned char emu_b_##name[], emu_e_##name[];
#define EMU_ROW(name, text, rule, bits, count, refuse) {#name, emu_b_##name, emu_e_##name, rule, bits, count, refuse},

// Arithmetic and logic in each operand shape: registers of every width (ah
// too), immediates of each size, memory as source and destination.
#define EMU_ALU(X, op, rule)                                          \
  X(op##_r64, #op " %rbx,%rax", rule, 0, 0, 0)                        \
  X(op##_r32, #op " %ebx,%eax", rule, 0, 0, 0)                        \
  X(op##_r16, #op " %bx,%ax", rule, 0, 0, 0)                          \
  X(op##_r8, #op " %bl,%al", rule, 0, 0, 0)                           \
  X(op##_r8h, #op " %bh,%ah", rule, 0, 0, 0)                          \
  X(op##_rx, #op " %r9,%r10", rule, 0, 0, 0)                          \
  X(op##_i8, #op "q $0x7f,%rcx", rule, 0, 0, 0)                       \
  X(op##_i8n, #op "l $-5,%edx", rule, 0, 0, 0)                        \
  X(op##_i32, #op "q $0x12345678,%rax", rule, 0, 0, 0)                \
  X(op##_i16, #op "w $0x8ff0,%ax", rule, 0, 0, 0)                     \
  X(op##_ib, #op "b $0x80,%bl", rule, 0, 0, 0)                        \
  X(op##_m64, #op " (%rsi),%rax", rule, 0, 0, 0)                      \
  X(op##_mdst, #op " %rax,8(%rsi)", rule, 0, 0, 0)                    \
  X(op##_midx, #op " 4(%rsi,%r8,4),%ecx", rule, 0, 0, 0)              \
  X(op##_mib, #op "b $3,1(%rdi)", rule, 0, 0, 0)                      \
  X(op##_mw, #op "w %dx,2(%rdi)", rule, 0, 0, 0)                      \
  X(op##_mil, #op "l $-1,(%rdi,%r8,8)", rule, 0, 0, 0)

#define EMU_UNARY(X, op, rule)                          \
  X(op##_q, #op "q %rax", rule, 0, 0, 0)                \
  X(op##_l, #op "l %ebx", rule, 0, 0, 0)                \
  X(op##_w, #op "w %cx", rule, 0, 0, 0)                 \
  X(op##_b, #op "b %dl", rule, 0, 0, 0)                 \
  X(op##_bh, #op "b %dh", rule, 0, 0, 0)                \
  X(op##_mq, #op "q 8(%rsi)", rule, 0, 0, 0)            \
  X(op##_ml, #op "l (%rdi,%r8,4)", rule, 0, 0, 0)

#define EMU_SHIFT(X, op)                                  \
  X(op##_1q, #op "q %rax", kShift, 64, 1, 0)              \
  X(op##_1b, #op "b %ah", kShift, 8, 1, 0)                \
  X(op##_3l, #op "l $3,%eax", kShift, 32, 3, 0)           \
  X(op##_63q, #op "q $63,%rdx", kShift, 64, 63, 0)        \
  X(op##_31l, #op "l $31,%ebx", kShift, 32, 31, 0)        \
  X(op##_12w, #op "w $12,%si", kShift, 16, 12, 0)         \
  X(op##_clq, #op "q %cl,%rax", kShift, 64, -1, 0)        \
  X(op##_cll, #op "l %cl,%ebx", kShift, 32, -1, 1)        \
  X(op##_clw, #op "w %cl,%dx", kShift, 16, -1, 0)         \
  X(op##_clb, #op "b %cl,%al", kShift, 8, -1, 0)          \
  X(op##_ml, #op "l $2,(%rsi)", kShift, 32, 2, 0)         \
  X(op##_mclq, #op "q %cl,8(%rdi)", kShift, 64, -1, 0)

// The 16 conditions, by GNU as's names.
#define EMU_CCS(X, M)                                                                                   \
  M(X, o) M(X, no) M(X, b) M(X, nb) M(X, z) M(X, nz) M(X, be) M(X, nbe) M(X, s) M(X, ns) M(X, p) M(X, np) \
  M(X, l) M(X, nl) M(X, le) M(X, nle)
#define EMU_JCC(X, cc)                                                 \
  X(j##cc, "j" #cc " 1f; not %rax; 1:", kAll, 0, 0, 0)                \
  X(cmpj##cc, "cmp %rbx,%rax; j" #cc " 1f; inc %rcx; 1:", kAll, 0, 0, 0)
#define EMU_SET(X, cc) X(set##cc, "set" #cc " %al", kAll, 0, 0, 0)
#define EMU_CMOV(X, cc) X(cmov##cc, "cmov" #cc " %rbx,%rax", kAll, 0, 0, 0)

#define EMU_FORMS(X)                                                                                               \
  EMU_ALU(X, add, kAll)                                                                                             \
  EMU_ALU(X, adc, kAll)                                                                                             \
  EMU_ALU(X, sub, kAll)                                                                                             \
  EMU_ALU(X, sbb, kAll)                                                                                             \
  EMU_ALU(X, cmp, kAll)                                                                                             \
  EMU_ALU(X, and, kNoAf)                                                                                            \
  EMU_ALU(X, or, kNoAf)                                                                                             \
  EMU_ALU(X, xor, kNoAf)                                                                                            \
  EMU_ALU(X, test, kNoAf)                                                                                           \
  EMU_UNARY(X, not, kAll)                                                                                           \
  EMU_UNARY(X, neg, kAll)                                                                                           \
  EMU_UNARY(X, inc, kAll)                                                                                           \
  EMU_UNARY(X, dec, kAll)                                                                                           \
  EMU_SHIFT(X, shl)                                                                                                 \
  EMU_SHIFT(X, shr)                                                                                                 \
  EMU_SHIFT(X, sar)                                                                                                 \
  X(mov_r64, "mov %rbx,%rax", kAll, 0, 0, 0)                                                                         \
  X(mov_r32, "mov %ebx,%eax", kAll, 0, 0, 0)                                                                         \
  X(mov_r16, "mov %bx,%ax", kAll, 0, 0, 0)                                                                           \
  X(mov_r8h, "mov %bl,%ah", kAll, 0, 0, 0)                                                                           \
  X(mov_i32, "mov $-1,%eax", kAll, 0, 0, 0)                                                                          \
  X(mov_i64, "movabs $0x123456789abcdef0,%rax", kAll, 0, 0, 0)                                                       \
  X(mov_is, "movq $-2,%rax", kAll, 0, 0, 0)                                                                          \
  X(mov_m, "mov (%rsi),%rax", kAll, 0, 0, 0)                                                                         \
  X(mov_midx, "mov 3(%rsi,%r8,2),%ecx", kAll, 0, 0, 0)                                                               \
  X(mov_mdst, "mov %rdx,16(%rdi)", kAll, 0, 0, 0)                                                                    \
  X(mov_mib, "movb $7,(%rdi)", kAll, 0, 0, 0)                                                                        \
  X(mov_mw, "movw %dx,2(%rdi)", kAll, 0, 0, 0)                                                                       \
  X(mov_fs, "mov %fs:0x28,%rax", kAll, 0, 0, 0)                                                                      \
  X(movzbl, "movzbl %bl,%eax", kAll, 0, 0, 0)                                                                        \
  X(movzbl_h, "movzbl %ah,%ecx", kAll, 0, 0, 0)                                                                      \
  X(movzbw, "movzbw %al,%cx", kAll, 0, 0, 0)                                                                         \
  X(movzwl_m, "movzwl (%rsi),%eax", kAll, 0, 0, 0)                                                                   \
  X(movzbq_m, "movzbq 1(%rsi),%rax", kAll, 0, 0, 0)                                                                  \
  X(movsbl, "movsbl %bl,%eax", kAll, 0, 0, 0)                                                                        \
  X(movsbq_m, "movsbq (%rsi),%rcx", kAll, 0, 0, 0)                                                                   \
  X(movswl, "movswl %dx,%eax", kAll, 0, 0, 0)                                                                        \
  X(movsbw, "movsbw %al,%dx", kAll, 0, 0, 0)                                                                         \
  X(movslq, "movslq %ebx,%rax", kAll, 0, 0, 0)                                                                       \
  X(movslq_m, "movslq 4(%rsi),%rdx", kAll, 0, 0, 0)                                                                  \
  X(lea_sib, "lea 8(%rax,%rbx,4),%rcx", kAll, 0, 0, 0)                                                               \
  X(lea_32, "lea (%rax,%rax),%edx", kAll, 0, 0, 0)                                                                   \
  X(lea_neg, "lea -1(%rbx),%eax", kAll, 0, 0, 0)                                                                     \
  X(lea_rip, "lea 1f(%rip),%rax; 1:", kAll, 0, 0, 0)                                                                 \
  X(lea_idx, "lea 0x10(,%rcx,8),%rdx", kAll, 0, 0, 0)                                                                \
  X(lea_16, "lea (%rbx,%rcx),%dx", kAll, 0, 0, 0)                                                                    \
  X(imul_r64, "imul %rbx,%rax", kImul, 0, 0, 0)                                                                      \
  X(imul_r32, "imul %ebx,%eax", kImul, 0, 0, 0)                                                                      \
  X(imul_r16, "imul %bx,%ax", kImul, 0, 0, 0)                                                                        \
  X(imul_m, "imul (%rsi),%rcx", kImul, 0, 0, 0)                                                                      \
  X(imul_i8, "imul $-7,%rbx,%rax", kImul, 0, 0, 0)                                                                   \
  X(imul_i32, "imul $100000,%edx,%ecx", kImul, 0, 0, 0)                                                              \
  X(imul_mi, "imul $3,(%rsi),%eax", kImul, 0, 0, 0)                                                                  \
  EMU_CCS(X, EMU_JCC)                                                                                               \
  EMU_CCS(X, EMU_SET)                                                                                               \
  EMU_CCS(X, EMU_CMOV)                                                                                              \
  X(cmovz_32, "cmovz %ebx,%eax", kAll, 0, 0, 0)                                                                      \
  X(cmovl_m, "cmovl (%rsi),%rcx", kAll, 0, 0, 0)                                                                     \
  X(cmovb_16, "cmovb %bx,%ax", kAll, 0, 0, 0)                                                                        \
  X(setz_h, "setz %ah", kAll, 0, 0, 0)                                                                               \
  X(setl_m, "setl (%rdi)", kAll, 0, 0, 0)                                                                            \
  X(setnz_x, "setnz %r9b", kAll, 0, 0, 0)                                                                            \
  X(xchg_64, "xchg %rbx,%rax", kAll, 0, 0, 0)                                                                        \
  X(xchg_32, "xchg %ecx,%edx", kAll, 0, 0, 0)                                                                        \
  X(xchg_8, "xchg %bl,%ah", kAll, 0, 0, 0)                                                                           \
  X(cltq, "cltq", kAll, 0, 0, 0)                                                                                     \
  X(cwtl, "cwtl", kAll, 0, 0, 0)                                                                                     \
  X(cqto, "cqto", kAll, 0, 0, 0)                                                                                     \
  X(cltd, "cltd", kAll, 0, 0, 0)                                                                                     \
  X(push_r, "push %rax", kAll, 0, 0, 0)                                                                              \
  X(push_rx, "push %r12", kAll, 0, 0, 0)                                                                             \
  X(push_rsp, "push %rsp", kAll, 0, 0, 0)                                                                            \
  X(push_i8, "pushq $-3", kAll, 0, 0, 0)                                                                             \
  X(push_i32, "pushq $0x12345", kAll, 0, 0, 0)                                                                       \
  X(push_m, "pushq 8(%rsi)", kAll, 0, 0, 0)                                                                          \
  X(pop_r, "pop %rbx", kAll, 0, 0, 0)                                                                                \
  X(pop_rx, "pop %r13", kAll, 0, 0, 0)                                                                               \
  X(push_pop, "push %rax; pop %rcx", kAll, 0, 0, 0)                                                                  \
  X(leave, "mov %rsi,%rbp; leave", kAll, 0, 0, 0)                                                                    \
  X(nop, "nop", kAll, 0, 0, 0)                                                                                       \
  X(nopl, "nopl 0(%rax,%rax,1)", kAll, 0, 0, 0)                                                                      \
  X(nopw, "nopw 0(%rax,%rax,1)", kAll, 0, 0, 0)                                                                      \
  X(endbr64, "endbr64", kAll, 0, 0, 0)                                                                               \
  X(call_ret, "call 3f; jmp 4f; 3: add %rbx,%rax; ret; 4:", kAll, 0, 0, 0)                                          \
  X(call_reg, "lea 3f(%rip),%rax; call *%rax; jmp 4f; 3: ret; 4:", kAll, 0, 0, 0)                                   \
  X(call_mem, "lea 3f(%rip),%rax; mov %rax,(%rsi); call *(%rsi); jmp 4f; 3: ret $16; 4:", kAll, 0, 0, 0)           \
  X(ret_push, "lea 1f(%rip),%rax; push %rax; ret; 1:", kAll, 0, 0, 0)                                               \
  X(jmp_reg, "lea 1f(%rip),%rdx; jmp *%rdx; ud2; 1:", kAll, 0, 0, 0)                                                \
  X(jmp_table, "lea 1f(%rip),%rax; mov %rax,8(%rdi,%r8,8); jmp *8(%rdi,%r8,8); ud2; 1:", kAll, 0, 0, 0)             \
  X(jmp_long, "jmp 1f; .fill 200,1,0xcc; 1:", kAll, 0, 0, 0)                                                         \
  X(seq_gtu, "movzbl (%rsi),%eax; movzbl (%rdi),%edx; cmp %dl,%al; jne 1f; movzbl 1(%rsi),%eax; "                 \
             "movzbl 1(%rdi),%edx; cmp %dl,%al; jne 1f; mov $0,%eax; 1: nop", kAll, 0, 0, 0)                    \
  X(seq_loop, "mov $5,%ecx; 2: add (%rsi,%rcx,8),%rax; dec %ecx; jnz 2b", kAll, 0, 0, 0)                            \
  X(seq_forward, "mov %rax,(%rdi); addq $1,(%rdi); movb %bl,3(%rdi); mov (%rdi),%rbx; push %rbx; pop %rdx; "        \
                 "movzwl 2(%rdi),%ecx", kAll, 0, 0, 0)                                                              \
  X(seq_carry, "add %rbx,%rax; adc %rcx,%rdx; sbb %r9,%r10; setb %r11b; cmovo %r12,%r13", kAll, 0, 0, 0)            \
  X(seq_bits, "shr $3,%rax; and $7,%eax; lea (%rax,%rax,2),%rdx; sar %cl,%rdx; test %rdx,%rdx; js 1f; neg %rdx; 1: cmp %rax,%rdx", \
    kAll, 0, 0, 0)                                                                                                  \
  /* 32-bit registers whose upper half is clear shifted by cl = 0 (bzip2's mainSort), or 1: never refused */       \
  X(seq_shift0, "xor %ecx,%ecx; mov %esi,%eax; sar %cl,%eax; mov %ebx,%ebx; shr %cl,%ebx; mov %edx,%edx; "          \
                "shl %cl,%edx; and $0x21,%r9d; mov %r9d,%ecx; mov %edi,%r10d; sar %cl,%r10d; cmp %rax,%rbx",        \
    kAll, 0, 0, 0)                                                                                                  \
  /* stores that straddle 8-byte granules, loads of their parts (the store buffer's bloom filter) */           \
  X(seq_overlap, "mov %rax,4(%rdi); movw %bx,15(%rdi); movb %cl,23(%rdi); movzwl 10(%rdi),%edx; "                   \
                 "mov 9(%rdi),%r9; movzbl 3(%rdi),%r10d; mov 16(%rdi),%r11; movzbl 23(%rdi),%r12d; "               \
                 "mov 1(%rdi),%r13", kAll, 0, 0, 0)                                                                 \
  /* SSE moves: through general registers, memory and other %xmm (BZ2_decompress keeps pointers there) */         \
  X(movq_from_xmm, "movq %xmm2,%rdx", kAll, 0, 0, 0)                                                                 \
  X(movd_from_xmm, "movd %xmm9,%eax", kAll, 0, 0, 0)                                                                 \
  X(movq_to_xmm, "movq %rbx,%xmm3", kAll, 0, 0, 0)                                                                   \
  X(movd_to_xmm, "movd %ecx,%xmm12", kAll, 0, 0, 0)                                                                  \
  X(movq_xx, "movq %xmm4,%xmm5", kAll, 0, 0, 0)                                                                      \
  X(movq_load, "movq 8(%rsi),%xmm6", kAll, 0, 0, 0)                                                                  \
  X(movd_load, "movd (%rsi,%r8,4),%xmm7", kAll, 0, 0, 0)                                                             \
  X(movq_store, "movq %xmm1,16(%rdi)", kAll, 0, 0, 0)                                                                \
  X(movd_store, "movd %xmm0,4(%rdi)", kAll, 0, 0, 0)                                                                 \
  X(movq_gpr_mem, "movq %xmm2,%rax; mov %rax,(%rdi); movq (%rdi),%xmm8; movq %xmm8,%rcx", kAll, 0, 0, 0)           \
  X(movaps_xx, "movaps %xmm1,%xmm2", kAll, 0, 0, 0)                                                                  \
  X(movdqa_xx, "movdqa %xmm10,%xmm11", kAll, 0, 0, 0)                                                                \
  X(movups_load, "movups 3(%rsi),%xmm4", kAll, 0, 0, 0)                                                              \
  X(movdqu_store, "movdqu %xmm5,5(%rdi)", kAll, 0, 0, 0)                                                             \
  X(movaps_store, "lea 15(%rdi),%rax; and $-16,%rax; movaps %xmm6,(%rax)", kAll, 0, 0, 0)                         \
  X(movdqa_load, "lea 15(%rsi),%rax; and $-16,%rax; movdqa (%rax),%xmm7", kAll, 0, 0, 0)                          \
  X(movapd_xx, "movapd %xmm3,%xmm13", kAll, 0, 0, 0)                                                                 \
  X(movupd_load, "movupd 1(%rsi),%xmm14", kAll, 0, 0, 0)                                                             \
  X(movhlps, "movhlps %xmm2,%xmm7", kAll, 0, 0, 0)                                                                   \
  X(movlhps, "movlhps %xmm3,%xmm1", kAll, 0, 0, 0)                                                                   \
  X(punpcklqdq, "punpcklqdq %xmm4,%xmm15", kAll, 0, 0, 0)                                                            \
  X(punpcklqdq_self, "punpcklqdq %xmm4,%xmm4", kAll, 0, 0, 0)                                                        \
  X(pxor_zero, "pxor %xmm0,%xmm0", kAll, 0, 0, 0)                                                                    \
  X(pxor, "pxor %xmm1,%xmm2", kAll, 0, 0, 0)                                                                         \
  X(xorps, "xorps %xmm8,%xmm9", kAll, 0, 0, 0)                                                                       \
  X(xorpd, "xorpd %xmm10,%xmm3", kAll, 0, 0, 0)                                                                      \
  X(seq_spill, "movq %rax,%xmm2; movhlps %xmm2,%xmm7; movq %xmm2,%rdx; punpcklqdq %xmm7,%xmm2; "                   \
               "movq %xmm2,%rcx; cmp %ecx,(%rsi,%r8,4); jge 1f; movq %xmm7,%rbx; 1:", kAll, 0, 0, 0)

EMU_FORMS(EMU_SNIPPET)

const Form kForms[] = {EMU_FORMS(EMU_ROW)};

constexpr uint64_t kCF = 0x1, kPF = 0x4, kAF = 0x10, kZF = 0x40, kSF = 0x80, kOF = 0x800;
constexpr uint64_t kArith = kCF | kPF | kAF | kZF | kSF | kOF;

// The data the snippets' pointers (rsi, rdi) address, and their stack.
alignas(64) unsigned char g_data[1024];
alignas(64) unsigned char g_stack[4096];

struct Sandbox {
  uint64_t fs_base = 0;
};

bool inside(uint64_t addr, uint32_t size, const void *area, size_t area_size) {
  auto lo = reinterpret_cast<uint64_t>(area);
  return addr >= lo && addr + size <= lo + area_size && addr + size >= addr;
}

// The runtime reads through process_vm_readv; here only the sandbox is
// readable, so a load elsewhere is seen to be refused.
int sandbox_read(void *ctx, uint64_t addr, void *out, uint32_t size) {
  auto *box = static_cast<Sandbox *>(ctx);
  if (inside(addr, size, g_data, sizeof g_data) || inside(addr, size, g_stack, sizeof g_stack) ||
      (box->fs_base && addr >= box->fs_base && addr + size <= box->fs_base + 0x100)) {
    std::memcpy(out, reinterpret_cast<const void *>(addr), size);
    return 1;
  }
  return 0;
}

int sandbox_fs(void *ctx, uint64_t *base) {
  *base = static_cast<Sandbox *>(ctx)->fs_base;
  return *base != 0;
}

uint64_t fs_base() {
  unsigned long base = 0;
  if (syscall(SYS_arch_prctl, ARCH_GET_FS, &base) != 0) return 0;
  return base;
}

class Decoder {
 public:
  Decoder() {
    ZydisDecoderInit(&decoder_, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ZydisFormatterInit(&fmt_, ZYDIS_FORMATTER_STYLE_ATT);
  }
  // 1 translated; the instruction's text for messages.
  bool translate(uint64_t at, cks_emu_insn *out, std::string *text) const {
    ZydisDecodedInstruction in;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder_, reinterpret_cast<const void *>(at), 15, &in, ops))) return false;
    char buf[128];
    ZydisFormatterFormatInstruction(&fmt_, &in, ops, in.operand_count_visible, buf, sizeof buf, at, nullptr);
    *text = buf;
    return cks_emu_translate(&in, ops, out) == 1;
  }

 private:
  ZydisDecoder decoder_;
  ZydisFormatter fmt_;
};

// Values that reach the edges of each width more often than uniform ones.
uint64_t random_value(std::mt19937_64 &rng) {
  static const uint64_t edges[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
                                   0xffffffff, 0x7fffffffffffffff, 0x8000000000000000, ~0ull, ~1ull};
  switch (rng() % 6) {
    case 0: return edges[rng() % (sizeof edges / sizeof edges[0])];
    case 1: return edges[rng() % (sizeof edges / sizeof edges[0])] ^ (rng() & 0xf);
    case 2: return rng() & 0xff;
    case 3: return rng() % 80;  // shift counts around the widths
    default: return rng();
  }
}

struct Inputs {
  NativeState regs;
  unsigned char data[sizeof g_data];
  unsigned char stack[sizeof g_stack];
};

Inputs random_inputs(std::mt19937_64 &rng) {
  Inputs in{};
  for (auto &r : in.regs.r) r = random_value(rng);
  // only the bytes near the pointers are read: the rest needs no edges
  for (size_t i = 0; i < sizeof in.data; i += 8) {
    uint64_t v = i >= 64 && i < 512 ? random_value(rng) : rng();
    std::memcpy(in.data + i, &v, 8);
  }
  for (size_t i = 0; i < sizeof in.stack; i += 8) {
    uint64_t v = rng();
    std::memcpy(in.stack + i, &v, 8);
  }
  in.regs.r[6] = reinterpret_cast<uint64_t>(g_data) + 64 + rng() % 64;   // rsi
  in.regs.r[7] = reinterpret_cast<uint64_t>(g_data) + 256 + rng() % 64;  // rdi
  in.regs.r[8] = rng() % 16;                                              // r8: an index
  in.regs.r[4] = reinterpret_cast<uint64_t>(g_stack) + 2048 - 8 * (rng() % 8);
  in.regs.flags = 0x202 | (rng() & kArith);
  for (auto &x : in.regs.xmm) x[0] = random_value(rng), x[1] = random_value(rng);
  return in;
}

// The flags `form` defines, given its inputs.
uint64_t defined_flags(const Form &form, const Inputs &in) {
  switch (form.rule) {
    case kAll: return kArith;
    case kNoAf: return kArith & ~kAF;
    case kImul: return kCF | kOF;
    case kShift: {
      uint64_t count = form.shift_count >= 0 ? static_cast<uint64_t>(form.shift_count) : in.regs.r[1] & 0xff;
      count &= form.shift_bits == 64 ? 63 : 31;
      if (count == 0) return kArith;  // nothing changes
      uint64_t f = kArith & ~kAF;
      if (count != 1) f &= ~kOF;
      if (form.shift_bits < 32 && count >= static_cast<uint64_t>(form.shift_bits)) f &= ~kCF;
      return f;
    }
  }
  return kArith;
}

struct Outcome {
  bool refused = false;
  std::string why;
  NativeState regs{};
  unsigned char data[sizeof g_data];
  unsigned char stack[sizeof g_stack];
};

// Emulates the snippet from `in` (memory as in `in`, already in place).
Outcome emulate(const Decoder &dec, const Form &form, const Inputs &in, Sandbox &box) {
  Outcome out;
  static cks_emu e;
  std::memset(&e, 0, sizeof e);
  std::memcpy(e.r, in.regs.r, sizeof e.r);
  std::memcpy(e.xmm, in.regs.xmm, sizeof e.xmm);
  e.xmm_known = 1;
  e.flags = in.regs.flags;
  e.rip = reinterpret_cast<uint64_t>(form.begin);
  e.read = sandbox_read;
  e.fs_base = sandbox_fs;
  e.ctx = &box;
  const uint64_t end = reinterpret_cast<uint64_t>(form.end);
  for (int steps = 0; e.rip != end; steps++) {
    cks_emu_insn x;
    std::string text;
    if (steps > 64 || !dec.translate(e.rip, &x, &text)) {
      out.refused = true;
      out.why = "not translated: " + text;
      return out;
    }
    cks_emu before = e;
    if (!cks_emu_step(&e, &x)) {
      out.refused = true;
      out.why = "refused: " + text;
      // a refusal leaves the state as it was
      EXPECT_EQ(0, std::memcmp(&before, &e, sizeof e)) << form.name << ": " << text;
      return out;
    }
  }
  std::memcpy(out.regs.r, e.r, sizeof e.r);
  std::memcpy(out.regs.xmm, e.xmm, sizeof e.xmm);
  out.regs.flags = e.flags;
  std::memcpy(out.data, in.data, sizeof out.data);
  std::memcpy(out.stack, in.stack, sizeof out.stack);
  for (uint32_t i = 0; i < e.nstores; i++) {
    const auto &s = e.stores[i];
    for (uint32_t k = 0; k < s.size; k++) {
      uint64_t at = s.addr + k;
      auto byte = static_cast<unsigned char>(s.value >> (8 * k));
      if (inside(at, 1, g_data, sizeof g_data))
        out.data[at - reinterpret_cast<uint64_t>(g_data)] = byte;
      else if (inside(at, 1, g_stack, sizeof g_stack))
        out.stack[at - reinterpret_cast<uint64_t>(g_stack)] = byte;
      else
        ADD_FAILURE() << form.name << ": a store outside the sandbox at " << std::hex << at;
    }
  }
  return out;
}

Outcome run_native(const Form &form, const Inputs &in) {
  Outcome out;
  std::memcpy(g_data, in.data, sizeof g_data);
  std::memcpy(g_stack, in.stack, sizeof g_stack);
  emu_native_state = in.regs;
  emu_native_target = form.begin;
  emu_native_run();
  out.regs = emu_native_state;
  std::memcpy(out.data, g_data, sizeof g_data);
  std::memcpy(out.stack, g_stack, sizeof g_stack);
  return out;
}

const char *const kRegNames[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

// Runs `form` from `rounds` random inputs natively and emulated; returns how
// many were emulated (the rest refused where the form allows it).
int compare_form(const Form &form, int rounds, std::mt19937_64 &rng) {
  Decoder dec;
  Sandbox box;
  box.fs_base = fs_base();
  int emulated = 0;
  for (int round = 0; round < rounds; round++) {
    Inputs in = random_inputs(rng);
    std::memcpy(g_data, in.data, sizeof g_data);
    std::memcpy(g_stack, in.stack, sizeof g_stack);
    Outcome em = emulate(dec, form, in, box);
    Outcome hw = run_native(form, in);
    if (em.refused) {
      uint64_t cl = in.regs.r[1] & 31;
      EXPECT_TRUE(form.may_refuse && cl == 0) << form.name << ": " << em.why;
      if (!(form.may_refuse && cl == 0)) return emulated;
      continue;
    }
    emulated++;
    bool same = true;
    for (int i = 0; i < 16; i++) {
      if (em.regs.r[i] != hw.regs.r[i]) {
        ADD_FAILURE() << form.name << " round " << round << ": " << kRegNames[i] << " emulated " << std::hex
                      << em.regs.r[i] << ", ran " << hw.regs.r[i] << " (in: rax " << in.regs.r[0] << " rcx "
                      << in.regs.r[1] << " rdx " << in.regs.r[2] << " rbx " << in.regs.r[3] << " flags "
                      << in.regs.flags << ")";
        same = false;
      }
    }
    for (int i = 0; i < 16; i++) {
      if (em.regs.xmm[i][0] != hw.regs.xmm[i][0] || em.regs.xmm[i][1] != hw.regs.xmm[i][1]) {
        ADD_FAILURE() << form.name << " round " << round << ": xmm" << i << " emulated " << std::hex
                      << em.regs.xmm[i][1] << ":" << em.regs.xmm[i][0] << ", ran " << hw.regs.xmm[i][1] << ":"
                      << hw.regs.xmm[i][0];
        same = false;
      }
    }
    uint64_t mask = defined_flags(form, in);
    if ((em.regs.flags & mask) != (hw.regs.flags & mask)) {
      ADD_FAILURE() << form.name << " round " << round << ": flags emulated " << std::hex << (em.regs.flags & mask)
                    << ", ran " << (hw.regs.flags & mask) << " (mask " << mask << ", in: rax " << in.regs.r[0]
                    << " rbx " << in.regs.r[3] << " rcx " << in.regs.r[1] << " flags " << in.regs.flags << ")";
      same = false;
    }
    if (std::memcmp(em.data, hw.data, sizeof em.data) != 0) {
      ADD_FAILURE() << form.name << " round " << round << ": memory differs";
      same = false;
    }
    if (std::memcmp(em.stack, hw.stack, sizeof em.stack) != 0) {
      ADD_FAILURE() << form.name << " round " << round << ": stack differs";
      same = false;
    }
    if (!same) return emulated;
  }
  return emulated;
}

TEST(SampleEmulate, EveryFormAsTheProcessorRunsIt) {
  std::mt19937_64 rng(0x5eed33);
  for (const Form &form : kForms) {
    SCOPED_TRACE(form.name);
    int emulated = compare_form(form, 400, rng);
    // a refusal is allowed only for cl = 0 (1 in 32 of the counts)
    EXPECT_GE(emulated, form.may_refuse ? 300 : 400) << form.name;
  }
}

// A refused load, a full store buffer and instructions outside the set
// leave the state as it was, so the caller can take over from the thread.
TEST(SampleEmulate, RefusesWhatItDoesNotModel) {
  Decoder dec;
  Sandbox box;
  cks_emu e;
  std::memset(&e, 0, sizeof e);
  e.read = sandbox_read;
  e.fs_base = sandbox_fs;
  e.ctx = &box;
  // mov (%rsi),%rax with rsi outside what is readable
  static const unsigned char load[] = {0x48, 0x8b, 0x06};
  cks_emu_insn x;
  std::string text;
  ASSERT_TRUE(dec.translate(reinterpret_cast<uint64_t>(load), &x, &text));
  e.r[6] = 0x10;
  e.rip = reinterpret_cast<uint64_t>(load);
  cks_emu before = e;
  EXPECT_EQ(0, cks_emu_step(&e, &x));
  EXPECT_EQ(0, std::memcmp(&before, &e, sizeof e));
  // push %rax until the buffer is full
  static const unsigned char push[] = {0x50};
  ASSERT_TRUE(dec.translate(reinterpret_cast<uint64_t>(push), &x, &text));
  e.r[4] = reinterpret_cast<uint64_t>(g_stack) + 2048;
  unsigned pushed = 0;
  for (;;) {
    e.rip = reinterpret_cast<uint64_t>(push);
    before = e;
    if (!cks_emu_step(&e, &x)) break;
    pushed++;
  }
  EXPECT_EQ(pushed, static_cast<unsigned>(CKS_EMU_STORES));
  EXPECT_EQ(0, std::memcmp(&before, &e, sizeof e));
  // locked, string, system, division and vector instructions
  static const unsigned char lock_add[] = {0xf0, 0x48, 0x01, 0x06};
  static const unsigned char rep_movsb[] = {0xf3, 0xa4};
  static const unsigned char sys[] = {0x0f, 0x05};
  static const unsigned char div[] = {0x48, 0xf7, 0xf3};
  static const unsigned char xchg_mem[] = {0x48, 0x87, 0x06};
  // SSE arithmetic, a VEX move (vmovq %xmm2,%rdx), an MMX one (movq %mm0,%rax)
  static const unsigned char paddq[] = {0x66, 0x0f, 0xd4, 0xc1};
  static const unsigned char vmovq[] = {0xc4, 0xe1, 0xf9, 0x7e, 0xd2};
  static const unsigned char mmx[] = {0x48, 0x0f, 0x7e, 0xc0};
  static const unsigned char gs_load[] = {0x65, 0x48, 0x8b, 0x06};
  static const unsigned char jrcxz[] = {0xe3, 0x00};
  // movabs 0x1122334455667788,%rax: a 64-bit absolute address, wider than
  // the decoding keeps; enter $16,$0: two immediates, one is kept
  static const unsigned char moffs[] = {0x48, 0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
  static const unsigned char enter[] = {0xc8, 0x10, 0x00, 0x00};
  for (const unsigned char *code :
       {lock_add, rep_movsb, sys, div, xchg_mem, paddq, vmovq, mmx, gs_load, jrcxz, moffs, enter})
    EXPECT_FALSE(dec.translate(reinterpret_cast<uint64_t>(code), &x, &text)) << text;
  // the SSE moves without the thread's %xmm registers (no signal frame's),
  // and a movaps whose address is not aligned (the processor faults)
  static const unsigned char movq_out[] = {0x66, 0x48, 0x0f, 0x7e, 0xd2};  // movq %xmm2,%rdx
  static const unsigned char movaps_in[] = {0x0f, 0x28, 0x06};             // movaps (%rsi),%xmm0
  ASSERT_TRUE(dec.translate(reinterpret_cast<uint64_t>(movq_out), &x, &text)) << text;
  e.rip = reinterpret_cast<uint64_t>(movq_out);
  e.xmm_known = 0;
  before = e;
  EXPECT_EQ(0, cks_emu_step(&e, &x));
  EXPECT_EQ(0, std::memcmp(&before, &e, sizeof e));
  e.xmm_known = 1;
  EXPECT_EQ(1, cks_emu_step(&e, &x));
  ASSERT_TRUE(dec.translate(reinterpret_cast<uint64_t>(movaps_in), &x, &text)) << text;
  e.rip = reinterpret_cast<uint64_t>(movaps_in);
  e.nstores = 0;
  e.r[6] = reinterpret_cast<uint64_t>(g_data) + 72;  // 8 past a 64-byte boundary
  before = e;
  EXPECT_EQ(0, cks_emu_step(&e, &x));
  EXPECT_EQ(0, std::memcmp(&before, &e, sizeof e));
  e.r[6] = reinterpret_cast<uint64_t>(g_data) + 64;
  EXPECT_EQ(1, cks_emu_step(&e, &x));
}

// Block stepping's decode cache (block_step.c) serves an entry wherever
// the same bytes come back, at any address: an instruction decoded at one
// place must run at another relative to that other place (branch targets
// and rip-relative operands relative, never absolute).
TEST(SampleEmulate, DecodingDoesNotDependOnTheAddress) {
  Decoder dec;
  Sandbox box;
  // lea 0x10(%rip),%rax; jne .+0x25 (rel32 0x20); call .+0x105 (rel32 0x100)
  static const unsigned char lea[] = {0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00};
  static const unsigned char jne[] = {0x0f, 0x85, 0x20, 0x00, 0x00, 0x00};
  static const unsigned char call[] = {0xe8, 0x00, 0x01, 0x00, 0x00};
  const uint64_t elsewhere[] = {0x400000, 0x7f0000001000, 0x1234567};
  for (const unsigned char *code : {lea, jne, call}) {
    cks_emu_insn x;
    std::string text;
    ASSERT_TRUE(dec.translate(reinterpret_cast<uint64_t>(code), &x, &text)) << text;
    for (uint64_t at : elsewhere) {
      cks_emu e;
      std::memset(&e, 0, sizeof e);
      e.read = sandbox_read;
      e.ctx = &box;
      e.r[4] = reinterpret_cast<uint64_t>(g_stack) + 2048;
      e.flags = 0x202; /* ZF clear: jne taken */
      e.rip = at;
      ASSERT_EQ(1, cks_emu_step(&e, &x)) << text;
      const uint64_t next = at + x.length;
      if (code == lea) {
        EXPECT_EQ(next + 0x10, e.r[0]) << text;
        EXPECT_EQ(next, e.rip);
      } else if (code == jne) {
        EXPECT_EQ(next + 0x20, e.rip) << text;
      } else {
        EXPECT_EQ(next + 0x100, e.rip) << text;
        uint64_t pushed = 0;
        ASSERT_EQ(1, cks_emu_load(&e, e.r[4], 8, &pushed));
        EXPECT_EQ(next, pushed) << text;
      }
    }
  }
}

}  // namespace emulate_test
