/* Compiled with -O2 (see report/module.mk) so that inl_helper really is
 * inlined into inl_outer: the return address recorded inside it must
 * symbolize to two frames, inl_helper (inlined) then inl_outer at the line
 * that called it. */
#include "snapgen.h"

unsigned inl_call_line;

static inline __attribute__((always_inline)) void inl_helper(struct stk *s)
{
    STK_CALL(s, "inl_helper", fake_cuda_api(s));
}

__attribute__((noinline)) void inl_outer(struct stk *s)
{
    STK_ENTER(s);
    inl_call_line = __LINE__; inl_helper(s);
    /* keeps the call above from becoming a tail call (no return address) */
    __asm__ volatile("" ::: "memory");
}
