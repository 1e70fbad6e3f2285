/* vfork (x86-64), in the preloaded runtime only (C half: vfork.c): a vfork
 * child runs on its parent's memory, stack and thread-local storage until
 * it execs or exits, so the calls it makes would land in the stream of the
 * thread that called vfork (and its first call in a thread never traced
 * yet would start a thread in the parent's registry). Around the system
 * call the calling thread's state is set aside: the child runs with
 * tracing off (ckt_tls = &ckt_thread_off: every hook returns at once, no
 * return address is replaced) until it execs, where the new image is
 * traced as a process of its own, or exits; the parent, once the child is
 * gone, gets its state back. As in glibc's vfork, the return address is
 * kept in a register (rdi), never on the stack the child overwrites, and
 * so is the state set aside (r8): the system call keeps both, and the
 * parent's registers are its own, whatever the child does (a child that
 * vforks again sets aside its own state, which is off). */

#if defined(__x86_64__)

        .text
        .globl  vfork
        .type   vfork, @function
        .p2align 4
vfork:
        .cfi_startproc
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        .cfi_register rip, rdi
        movq    ckt_tls@gottpoff(%rip), %rsi
        movq    %fs:(%rsi), %r8         /* the thread's state, set aside */
        leaq    ckt_thread_off(%rip), %rdx
        movq    %rdx, %fs:(%rsi)
        movl    $58, %eax       /* SYS_vfork */
        syscall
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rip, 0
        testq   %rax, %rax
        jz      1f              /* the child: off until exec or exit */
        movq    ckt_tls@gottpoff(%rip), %rsi
        movq    %r8, %fs:(%rsi)         /* the parent: its state back */
        cmpq    $-4095, %rax
        jae     2f
1:      ret
2:      negl    %eax
        movl    %eax, %edi
        jmp     ckt_vfork_failed  /* errno = edi, returns -1 */
        .cfi_endproc
        .size   vfork, .-vfork

#endif

        .section .note.GNU-stack,"",@progbits
