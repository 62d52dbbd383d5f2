/* Green contexts (CUDA 12.4+): which CUcontexts are a device's primary
 * context under another handle.  cuda.h: cuGreenCtxCreate "will retain the
 * primary context on device dev, which is released when the green context is
 * destroyed", and the CUcontext cuCtxFromGreenCtx gives "is a normal primary
 * context but with the resources of the green context".  So what is
 * allocated while that CUcontext is current belongs to the primary context
 * (gl_where_driver attributes it to ctx 0), and the primary context's last
 * release may happen inside cuGreenCtxDestroy.  The hooks
 * (hooks/hooks_driver_ctx.c) fill this table; where.c reads it.
 *
 * A small fixed table with atomics, no lock: a green context it has no room
 * for is not followed (its allocations are attributed to its CUcontext, and
 * its destruction drops nothing: what gpuleak did before it knew green
 * contexts). */
#ifndef GL_CUDA_GREEN_CTX_H
#define GL_CUDA_GREEN_CTX_H

#include <stdint.h>

#define GL_GREEN_SLOTS 64

/* A green context was created on `device`. */
void gl_green_note(uint64_t green, int32_t device);
/* cuCtxFromGreenCtx converted it to `ctx`. */
void gl_green_note_ctx(uint64_t green, uint64_t ctx);
/* The device of a green context noted and not forgotten; -1 when unknown. */
int32_t gl_green_device(uint64_t green);
/* It was destroyed: its handle and its CUcontext are no alias any more. */
void gl_green_forget(uint64_t green);
/* 1 when ctx is the CUcontext of a live green context on `device`, that is
 * the device's primary context. */
int gl_green_is_primary_alias(uint64_t ctx, int32_t device);

#endif
