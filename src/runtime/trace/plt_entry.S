/* x86-64 entry of library calls through a hooked PLT slot (plt_hooks.c):
 * a stub (plt_stubs.h) jumps here with its slot's number in r11d and, at
 * [rsp], the caller's return address, as the call left it; no instruction
 * of the function called has run. Every argument register is live (rax:
 * the vector count of a variadic call, r10: a static chain), so all are
 * saved; ckt_plt_enter(slot, number) records the enter, hooks the return
 * (the exit comes through ckt_pg_return, pg_entry.S) and gives the
 * function's address, which is jumped to with every register as it came. */

#if defined(__x86_64__)

#include "arg_registers.inc"

        .text
        .globl  ckt_plt_entry
        .hidden ckt_plt_entry
        .type   ckt_plt_entry, @function
        .p2align 4
ckt_plt_entry:
        .cfi_startproc
        push    %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset rbp, -16
        mov     %rsp, %rbp
        .cfi_def_cfa_register rbp
        and     $-16, %rsp
        sub     $CKT_ARG_AREA, %rsp
        CKT_SAVE_ARGS
        lea     8(%rbp), %rdi   /* the slot: the caller's return address */
        mov     %r11d, %esi
        call    ckt_plt_enter
        mov     %rax, %r11
        CKT_RESTORE_ARGS
        mov     %rbp, %rsp
        pop     %rbp
        .cfi_def_cfa rsp, 8
        jmp     *%r11
        .cfi_endproc
        .size   ckt_plt_entry, . - ckt_plt_entry

#endif

        .section .note.GNU-stack, "", @progbits
