/* gl_stack_regs(gregs): the caller's general registers into a ucontext_t's
 * uc_mcontext.gregs, as libunwind's getcontext stores them (RIP = the return
 * address, RSP = the caller's stack pointer after the return), but without
 * the floating-point state, which a backtrace never reads: the stack cache
 * takes the registers on every capture (stack_cache.c). */
#if defined(__x86_64__)
    .text
    .globl gl_stack_regs
    .hidden gl_stack_regs
    .type gl_stack_regs, @function
gl_stack_regs:
    .cfi_startproc
    movq %r8,   0*8(%rdi)
    movq %r9,   1*8(%rdi)
    movq %r10,  2*8(%rdi)
    movq %r11,  3*8(%rdi)
    movq %r12,  4*8(%rdi)
    movq %r13,  5*8(%rdi)
    movq %r14,  6*8(%rdi)
    movq %r15,  7*8(%rdi)
    movq %rdi,  8*8(%rdi)
    movq %rsi,  9*8(%rdi)
    movq %rbp, 10*8(%rdi)
    movq %rbx, 11*8(%rdi)
    movq %rdx, 12*8(%rdi)
    movq %rax, 13*8(%rdi)
    movq %rcx, 14*8(%rdi)
    leaq 8(%rsp), %rax
    movq %rax, 15*8(%rdi)
    movq (%rsp), %rax
    movq %rax, 16*8(%rdi)
    xorl %eax, %eax
    ret
    .cfi_endproc
    .size gl_stack_regs, .-gl_stack_regs
#endif
    .section .note.GNU-stack,"",@progbits
