/* What every hook does around the real call: find the device and context,
 * capture the stack, update the table.  Kept out of the hooks so each hook
 * reads as "call the real function, then record what happened".
 *
 * Was record.c.  "Record" means one thing: a typed section of a snapshot
 * file (GL_REC_*, docs/snapshot-format.md).  An entry of the live table is a
 * struct gl_live (state/track.h), written into a snapshot's ALLOCS record;
 * the CUDA calls of this module (gl_call_*) make and take them. */
#ifndef GL_CUDA_CALLS_H
#define GL_CUDA_CALLS_H

#include <stdint.h>

#include "cuda/driver_view.h"
#include "cuda/where.h"
#include "state/track.h"

/* Records a successful allocation.  host: host memory (device -1), owned by
 * the context of w.device. */
void gl_call_alloc(struct gl_where w, uint64_t addr, uint64_t size, uint64_t stream,
                   uint16_t kind, uint16_t api, uint32_t space);
/* The same with a stack interned earlier: memory that the program asked for
 * in one call and that comes into being later (a graph allocation made by a
 * launch is blamed on the node's creation). */
void gl_call_alloc_stack(struct gl_where w, uint64_t addr, uint64_t size, uint64_t stream,
                         uint16_t kind, uint16_t api, uint32_t space, struct gl_stack *stack);
/* An allocation failed with out-of-memory: counted, put in the history with
 * the requested size, its stack and the driver's free/total memory at that
 * moment, which *mem receives (for the snapshot the hook then asks for:
 * gl_hook_out_of_memory). */
void gl_call_failed(int32_t device, uint64_t size, uint64_t stream, uint16_t kind, uint16_t api,
                    struct gl_mem_view *mem);

/* Frees: take the record before the real call (the address may be reused as
 * soon as it returns), then settle once the result is known. */
struct gl_live *gl_call_free_begin(uint32_t space, uint64_t addr);
void gl_call_free_end(struct gl_live *r, int ok, int32_t device_if_unknown);
/* The same for a free the program called: when r is NULL (no live
 * allocation had that key), the free's stack and API are kept too
 * (bad_free.h). */
void gl_call_free_end_api(struct gl_live *r, int ok, int32_t device_if_unknown, uint64_t key, uint16_t api);

#endif
