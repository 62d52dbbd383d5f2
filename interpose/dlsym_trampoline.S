/* dlsym/dlvsym entry points: ask gl_*_decide(); if it returns NULL, restore
 * the arguments and tail-jump to glibc so that the caller's return address,
 * which glibc uses for RTLD_NEXT/RTLD_DEFAULT, is untouched.  See
 * dlsym_hook.c. */
#if defined(__x86_64__)
    .text

    .globl dlsym
    .type dlsym, @function
dlsym:
    .cfi_startproc
    push %rdi
    .cfi_adjust_cfa_offset 8
    push %rsi
    .cfi_adjust_cfa_offset 8
    sub $8, %rsp                 /* keep the stack 16-byte aligned */
    .cfi_adjust_cfa_offset 8
    call gl_dlsym_decide
    add $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop %rsi
    .cfi_adjust_cfa_offset -8
    pop %rdi
    .cfi_adjust_cfa_offset -8
    test %rax, %rax
    jz 1f
    ret
1:  mov gl_libc_dlsym_ptr(%rip), %rax
    test %rax, %rax
    jz 2f
    jmp *%rax
2:  ret                          /* no dlsym found in libc: NULL */
    .cfi_endproc
    .size dlsym, .-dlsym

    .globl dlvsym
    .type dlvsym, @function
dlvsym:
    .cfi_startproc
    push %rdi
    .cfi_adjust_cfa_offset 8
    push %rsi
    .cfi_adjust_cfa_offset 8
    push %rdx
    .cfi_adjust_cfa_offset 8
    call gl_dlvsym_decide
    pop %rdx
    .cfi_adjust_cfa_offset -8
    pop %rsi
    .cfi_adjust_cfa_offset -8
    pop %rdi
    .cfi_adjust_cfa_offset -8
    test %rax, %rax
    jz 1f
    ret
1:  mov gl_libc_dlvsym_ptr(%rip), %rax
    test %rax, %rax
    jz 2f
    jmp *%rax
2:  ret                          /* no dlvsym in this libc: NULL */
    .cfi_endproc
    .size dlvsym, .-dlvsym

    .section .note.GNU-stack,"",@progbits
#else
#error "dlsym trampolines are written for x86-64 only; see docs/interception.md"
#endif
