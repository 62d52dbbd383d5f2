/* Which frames belong to the CUDA libraries or to gpuleak itself, so that
 * stacks can start at the user's code.  The table is in fold.c. */
#ifndef GPULEAK_FOLD_H
#define GPULEAK_FOLD_H

#include <stdbool.h>

#include "model/symbolize.h"

/* True when f is a CUDA-library or libgpuleak frame.  Only ever applied to
 * the innermost end of a stack (see stackdb.c). */
bool fold_is_cuda_frame(const struct sym_frame *f);

/* True when f is a CUDA API entry point (cudaMalloc, cuMemAlloc_v2, the
 * static runtime's cudart:: internals) whatever module it is in. */
bool fold_is_cuda_api_frame(const struct sym_frame *f);

/* True when f lies in a shared CUDA library or libgpuleak. */
bool fold_is_cuda_library(const struct sym_frame *f);

/* True when f is C-library process or thread start code (_start,
 * __libc_start_main, start_thread, clone3...), which is hidden at the
 * outermost end of a stack so that it ends at main or the thread's start
 * function (see stackdb.c). */
bool fold_is_start_frame(const struct sym_frame *f);

#endif
