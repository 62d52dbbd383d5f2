/* What a device's primary context costs, measured: when a retain makes the
 * context active (creates it), the driver's used memory on that device
 * (total - free, cuMemGetInfo asked in that context right away, before the
 * program can allocate in it).  That figure is the context's own memory
 * (its local memory, printf and malloc heaps, the runtime's kernels) plus
 * whatever other processes held on the device at that moment: one call
 * cannot tell them apart, and before the context exists there is none to
 * ask.  The reporter's LEDGER shows it under that name.  A reset (or the
 * last release) ends the context; the next retain creates it again and is
 * measured again.  Contexts made with cuCtxCreate are not measured. */
#ifndef GL_CUDA_CTX_COST_H
#define GL_CUDA_CTX_COST_H

#include <stdbool.h>
#include <stdint.h>

/* Whether device's primary context is inactive now (a retain would create
 * it); false when the driver cannot say.  One cuDevicePrimaryCtxGetState. */
bool gl_ctx_primary_inactive(int32_t device);

/* A retain just made device's primary context active (its handle noted with
 * gl_where_note_primary): measures it.  Safe at any hook depth: it calls the
 * real driver only (push the context, cuMemGetInfo, pop) and takes no lock;
 * a failed query records nothing. */
void gl_ctx_note_created(int32_t device);

/* The last measurement of device's primary context and how many creations
 * were measured (0: none, and used_at_create is 0). */
struct gl_ctx_measure {
    uint64_t used_at_create;
    uint32_t creations;
};
struct gl_ctx_measure gl_ctx_measured(int32_t device);

#endif
