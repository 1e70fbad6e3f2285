/* x86-64 entry of library calls through a hooked PLT slot (plt_hooks.c):
 * a stub (plt_stubs.h) jumps here with its slot's number in r11d and, at
 * [rsp], the caller's return address, as the call left it; no instruction
 * of the function called has run. Every argument register is live (rax:
 * the vector count of a variadic call, r10: a static chain), so all are
 * saved; ckt_plt_enter(slot, number) records the enter, hooks the return
 * (the exit comes through ckt_pg_return, pg_entry.S) and gives the
 * function's address, which is jumped to with every register as it came. */

#if defined(__x86_64__)

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
        sub     $192, %rsp
        mov     %rdi, 0(%rsp)
        mov     %rsi, 8(%rsp)
        mov     %rdx, 16(%rsp)
        mov     %rcx, 24(%rsp)
        mov     %r8, 32(%rsp)
        mov     %r9, 40(%rsp)
        mov     %rax, 48(%rsp)
        mov     %r10, 56(%rsp)
        movdqa  %xmm0, 64(%rsp)
        movdqa  %xmm1, 80(%rsp)
        movdqa  %xmm2, 96(%rsp)
        movdqa  %xmm3, 112(%rsp)
        movdqa  %xmm4, 128(%rsp)
        movdqa  %xmm5, 144(%rsp)
        movdqa  %xmm6, 160(%rsp)
        movdqa  %xmm7, 176(%rsp)
        lea     8(%rbp), %rdi   /* the slot: the caller's return address */
        mov     %r11d, %esi
        call    ckt_plt_enter
        mov     %rax, %r11
        mov     0(%rsp), %rdi
        mov     8(%rsp), %rsi
        mov     16(%rsp), %rdx
        mov     24(%rsp), %rcx
        mov     32(%rsp), %r8
        mov     40(%rsp), %r9
        mov     48(%rsp), %rax
        mov     56(%rsp), %r10
        movdqa  64(%rsp), %xmm0
        movdqa  80(%rsp), %xmm1
        movdqa  96(%rsp), %xmm2
        movdqa  112(%rsp), %xmm3
        movdqa  128(%rsp), %xmm4
        movdqa  144(%rsp), %xmm5
        movdqa  160(%rsp), %xmm6
        movdqa  176(%rsp), %xmm7
        mov     %rbp, %rsp
        pop     %rbp
        .cfi_def_cfa rsp, 8
        jmp     *%r11
        .cfi_endproc
        .size   ckt_plt_entry, . - ckt_plt_entry

#endif

        .section .note.GNU-stack, "", @progbits
