/* The caller's general registers, for the stack cache (stack_regs.S). */
#ifndef GL_STACK_REGS_H
#define GL_STACK_REGS_H

#include <ucontext.h>

/* x86_64 only: stores the caller's registers into gregs (a ucontext_t's
 * uc_mcontext.gregs) as libunwind's getcontext does, RIP being the return
 * address and RSP the stack pointer after the return; no floating-point
 * state.  Returns 0. */
int gl_stack_regs(greg_t *gregs);

#endif
