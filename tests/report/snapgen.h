/* Shared by snapgen.c and snapgen_cxx.cc: a stack captured from real calls.
 * Each function of a call chain records its own return address (an address
 * in its caller, right after the call) on entry, together with what the
 * caller announced: its function name and the line of the call.  So pc[i]
 * must symbolize to exactly func[i] at line[i] of file[i]. */
#ifndef GPULEAK_SNAPGEN_H
#define GPULEAK_SNAPGEN_H

#include <stdint.h>

#define STK_MAX 16

struct stk {
    int n;                 /* filled outermost first; reversed when written */
    uint64_t pc[STK_MAX];
    const char *func[STK_MAX];
    const char *file[STK_MAX];
    unsigned line[STK_MAX];
    const char *pend_func, *pend_file; /* announced by the caller */
    unsigned pend_line;
};

/* In the caller: announce, then call, on ONE line (same __LINE__). */
#define STK_CALL(s, fname, call) \
    ((s)->pend_func = (fname), (s)->pend_file = __FILE__, (s)->pend_line = __LINE__, call)

/* First statement of every function in a chain. */
#define STK_ENTER(s)                                                        \
    do {                                                                    \
        int n_ = (s)->n++;                                                  \
        (s)->pc[n_] = (uint64_t)(uintptr_t)__builtin_return_address(0);     \
        (s)->func[n_] = (s)->pend_func;                                     \
        (s)->file[n_] = (s)->pend_file;                                     \
        (s)->line[n_] = (s)->pend_line;                                     \
    } while (0)

#ifdef __cplusplus
extern "C" {
#endif
/* main -> ... -> cxx_train (C) -> ns::Trainer::step(int) -> leaf */
void cxx_train(struct stk *s);
/* -O2 object: inl_outer -> inl_helper (always inlined) -> leaf */
void inl_outer(struct stk *s);
extern unsigned inl_call_line;
/* main -> capture -> torch_step (C) ->
 * c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc */
void torch_step(struct stk *s);
/* the innermost function of every chain: stands for the CUDA API */
void fake_cuda_api(struct stk *s);
#ifdef __cplusplus
}
#endif

#endif
