/* x86-64 entry points of GCC/clang -pg: `mcount` (called after the
 * function's prologue, frame pointer set up) and, with -mfentry,
 * `__fentry__` (the function's first instruction, before its prologue);
 * and the exit trampoline whose address replaces the function's return
 * address (see return_hook.h). The C halves are in pg_hooks.c.
 *
 * The hooks are not ordinary calls for the compiler: every argument
 * register (and al, the vector count of a variadic call; r10, the static
 * chain of a nested function) is live and the stack need not be 16-byte
 * aligned, so everything is saved and the stack aligned here. The
 * trampoline runs after the function's `ret`: only the return registers
 * are live (rax, rdx, xmm0, xmm1; st0 for long double, which no C code of
 * the runtime touches, so it is left where it is). */

#if defined(__x86_64__)

#include "arg_registers.inc"

        .text

/* Saves what a hook must preserve and calls \handler(slot in rdi,
 * hook return address in rsi, kind in edx). On entry rbp is already our
 * frame pointer (pushed by the caller of the macro). A non-zero result is
 * the address of another implementation to jump to with every register as
 * it was on entry (glibc's, when tracing is off: gprof keeps working). */
.macro CKT_HOOK_BODY slot_from_rbp, kind
        and     $-16, %rsp
        sub     $CKT_ARG_AREA, %rsp
        CKT_SAVE_ARGS
        \slot_from_rbp
        mov     8(%rbp), %rsi
        mov     $\kind, %edx
        call    ckt_pg_enter
        mov     %rax, %r11
        CKT_RESTORE_ARGS
        mov     %rbp, %rsp
        pop     %rbp
        .cfi_def_cfa rsp, 8
        test    %r11, %r11
        jnz     1f
        ret
1:      jmp     *%r11
.endm

/* mcount: the function's rbp is its frame; the caller's return address is
 * at 8(function rbp). */
.macro CKT_MCOUNT_SLOT
        mov     0(%rbp), %rdi
        add     $8, %rdi
.endm

/* __fentry__: on entry [rsp] is our return address and [rsp + 8] the
 * caller's return address; after `push rbp` they are at 8 and 16(rbp). */
.macro CKT_FENTRY_SLOT
        lea     16(%rbp), %rdi
.endm

        .globl  mcount
        .type   mcount, @function
        .globl  _mcount
        .type   _mcount, @function
        .p2align 4
mcount:
_mcount:
        .cfi_startproc
        push    %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset rbp, -16
        mov     %rsp, %rbp
        .cfi_def_cfa_register rbp
        CKT_HOOK_BODY CKT_MCOUNT_SLOT, 1
        .cfi_endproc
        .size   mcount, . - mcount
        .size   _mcount, . - _mcount

/* A hook entry with a frame of its own: push rbp, then the body. */
.macro CKT_HOOK_ENTRY name, slot, kind
        .p2align 4
\name:
        .cfi_startproc
        push    %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset rbp, -16
        mov     %rsp, %rbp
        .cfi_def_cfa_register rbp
        CKT_HOOK_BODY \slot, \kind
        .cfi_endproc
        .size   \name, . - \name
.endm

        .globl  __fentry__
        .type   __fentry__, @function
        CKT_HOOK_ENTRY __fentry__, CKT_FENTRY_SLOT, 2

/* ckt_patch_entry: what a patched -fpatchable-function-entry site calls
 * (through a trampoline near its module, patch.c): the same frame as
 * __fentry__'s, another kind. */
        .globl  ckt_patch_entry
        .hidden ckt_patch_entry
        .type   ckt_patch_entry, @function
        CKT_HOOK_ENTRY ckt_patch_entry, CKT_FENTRY_SLOT, 4

/* Reached by the hooked function's `ret`: rsp is one word above the slot
 * that held the return address. ckt_pg_exit(slot) records the exit and
 * gives back the original return address. The unwinder never walks
 * through here (it has no caller; unwinding restores the addresses first). */
        .globl  ckt_pg_return
        .hidden ckt_pg_return
        .type   ckt_pg_return, @function
        .p2align 4
        nop     /* a return address minus one (how unwinders look it up) stays inside */
ckt_pg_return:
        .cfi_startproc
        .cfi_undefined rip
        push    %rbp            /* into the old slot: rbp = the slot */
        mov     %rsp, %rbp
        and     $-16, %rsp
        sub     $48, %rsp
        mov     %rax, 0(%rsp)
        mov     %rdx, 8(%rsp)
        movdqa  %xmm0, 16(%rsp)
        movdqa  %xmm1, 32(%rsp)
        mov     %rbp, %rdi
        call    ckt_pg_exit
        mov     %rax, %r11
        mov     0(%rsp), %rax
        mov     8(%rsp), %rdx
        movdqa  16(%rsp), %xmm0
        movdqa  32(%rsp), %xmm1
        mov     %rbp, %rsp
        pop     %rbp
        jmp     *%r11
        .cfi_endproc
        .size   ckt_pg_return, . - ckt_pg_return

#endif

        .section .note.GNU-stack, "", @progbits
