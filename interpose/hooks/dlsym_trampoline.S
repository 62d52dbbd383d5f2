/* dlsym/dlvsym entry points: ask gl_*_decide(); if it returns NULL, restore
 * the arguments and tail-jump to glibc so that the caller's return address,
 * which glibc uses for RTLD_NEXT/RTLD_DEFAULT, is untouched.  See
 * dlsym_hook.c. */
#if defined(__x86_64__)
    .text

    .globl dlsym
    .type dlsym, @function
    .globl gl_dlsym_trampoline
    .hidden gl_dlsym_trampoline
    .type gl_dlsym_trampoline, @function
gl_dlsym_trampoline:
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
    .globl gl_dlvsym_trampoline
    .hidden gl_dlvsym_trampoline
    .type gl_dlvsym_trampoline, @function
gl_dlvsym_trampoline:
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
#elif defined(__aarch64__)
/* The same on AArch64.  The caller's return address is in x30 on entry;
 * glibc reads it there, so x30 (and x29) are restored before the tail
 * branch, which goes through x16 (IP0, free to clobber at a call). */
    .text

    .globl dlsym
    .type dlsym, %function
    .globl gl_dlsym_trampoline
    .hidden gl_dlsym_trampoline
    .p2align 2
gl_dlsym_trampoline:
dlsym:
    .cfi_startproc
    stp x29, x30, [sp, #-32]!
    .cfi_def_cfa_offset 32
    .cfi_offset 29, -32
    .cfi_offset 30, -24
    mov x29, sp
    stp x0, x1, [sp, #16]
    bl gl_dlsym_decide
    mov x16, x0
    ldp x0, x1, [sp, #16]
    ldp x29, x30, [sp], #32
    .cfi_restore 29
    .cfi_restore 30
    .cfi_def_cfa_offset 0
    cbz x16, 1f
    mov x0, x16
    ret
1:  adrp x16, gl_libc_dlsym_ptr
    ldr x16, [x16, :lo12:gl_libc_dlsym_ptr]
    cbz x16, 2f
    br x16
2:  mov x0, #0                   /* no dlsym found in libc: NULL */
    ret
    .cfi_endproc
    .size dlsym, .-dlsym

    .globl dlvsym
    .type dlvsym, %function
    .globl gl_dlvsym_trampoline
    .hidden gl_dlvsym_trampoline
    .p2align 2
gl_dlvsym_trampoline:
dlvsym:
    .cfi_startproc
    stp x29, x30, [sp, #-48]!
    .cfi_def_cfa_offset 48
    .cfi_offset 29, -48
    .cfi_offset 30, -40
    mov x29, sp
    stp x0, x1, [sp, #16]
    str x2, [sp, #32]
    bl gl_dlvsym_decide
    mov x16, x0
    ldp x0, x1, [sp, #16]
    ldr x2, [sp, #32]
    ldp x29, x30, [sp], #48
    .cfi_restore 29
    .cfi_restore 30
    .cfi_def_cfa_offset 0
    cbz x16, 1f
    mov x0, x16
    ret
1:  adrp x16, gl_libc_dlvsym_ptr
    ldr x16, [x16, :lo12:gl_libc_dlvsym_ptr]
    cbz x16, 2f
    br x16
2:  mov x0, #0                   /* no dlvsym in this libc: NULL */
    ret
    .cfi_endproc
    .size dlvsym, .-dlvsym

    .section .note.GNU-stack,"",@progbits
#else
#error "dlsym trampolines are written for x86-64 and AArch64 only; see docs/interception.md"
#endif
