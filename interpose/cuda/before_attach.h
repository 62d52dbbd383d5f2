/* Memory made before `gpuleak attach` (docs/attach.md): it has no record and
 * no stack, so its free is counted here, never as a bad free, and the
 * ledger gets a row for it: the driver's used memory on each device at the
 * attach, less what is seen freed since. */
#ifndef GL_CUDA_BEFORE_ATTACH_H
#define GL_CUDA_BEFORE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

/* At the attach: every device whose primary context is alive is measured
 * (cuMemGetInfo in it, through the real functions) and its context learned;
 * frees of unknown memory are counted here from now on.  A device without
 * a live primary context has nothing of this process on it. */
void gl_before_attach_measure(void);

/* Frees of unknown memory are memory made before the attach (an attach is
 * on, or was). */
bool gl_before_attach_counting(void);

/* A free of unknown device memory of `size` bytes (0: not known), accepted
 * by CUDA, on `device`. */
void gl_before_attach_freed(int32_t device, uint64_t size);

struct gl_before_attach {
    uint64_t used_at_attach; /* total - free at the attach; 0: not measured */
    uint64_t freed_bytes, frees;
};

/* The figures of `device` (zeros when never measured). */
struct gl_before_attach gl_before_attach_of(int32_t device);

#endif
