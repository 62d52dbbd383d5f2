/* Hook shapes: one body for each kind of hook (an allocation, a
 * stream-ordered allocation, a free, a stream-ordered free, a
 * registration, an array), shared by the runtime and the driver hooks.
 *
 * A shape names its API family, RUNTIME or DRIVER, and takes from it
 *   GL_FAM_<fam>_OK      the success value (cudaSuccess, CUDA_SUCCESS),
 *   GL_FAM_<fam>_OOM     the out-of-memory error,
 *   GL_FAM_<fam>_NO_LIB  what a hook returns without the real library,
 *   GL_FAM_<fam>         the family as a constant for the shared functions
 *                        below: where a call is recorded (the runtime's
 *                        current device, or the driver's current context)
 *                        and whether PyTorch's recorder is told.
 * The error values are the API's own tokens, so the file using a shape
 * includes that API's header.  The functions are static inline with the
 * family a constant: each hook compiles to what it was when it spelled its
 * family out (the hot path pays no test of the family). */
#ifndef GL_HOOK_SHAPE_H
#define GL_HOOK_SHAPE_H

#include "control/torch_view.h"
#include "cuda/calls.h"
#include "cuda/graph.h"
#include "cuda/pool_kinds.h"
#include "cuda/pools.h"
#include "hooks/hook.h"
#include "snapshot_format.h"

enum gl_api_family { GL_FAMILY_RUNTIME, GL_FAMILY_DRIVER };

#define GL_FAM_RUNTIME GL_FAMILY_RUNTIME
#define GL_FAM_RUNTIME_OK cudaSuccess
#define GL_FAM_RUNTIME_OOM cudaErrorMemoryAllocation
#define GL_FAM_RUNTIME_NO_LIB cudaErrorInitializationError /* libcudart not loaded */

#define GL_FAM_DRIVER GL_FAMILY_DRIVER
#define GL_FAM_DRIVER_OK CUDA_SUCCESS
#define GL_FAM_DRIVER_OOM CUDA_ERROR_OUT_OF_MEMORY
#define GL_FAM_DRIVER_NO_LIB CUDA_ERROR_NOT_INITIALIZED

/* What a hook's out-parameter holds after the call (0 without one): a
 * device pointer (CUdeviceptr) or a host or runtime pointer (void *). */
#define GL_OUT(p) ((p) != NULL ? (uint64_t)(uintptr_t)*(p) : 0)

/* Where a call of the family is recorded; ptr: the memory, the driver's
 * hint of its device (0: the current context's). */
static inline struct gl_where gl_shape_where(enum gl_api_family fam, uint64_t ptr)
{
    return fam == GL_FAMILY_DRIVER ? gl_where_driver(ptr) : gl_where_runtime();
}

/* An allocation's outcome: recorded at `ptr` with `size` bytes when the call
 * succeeded, or the out-of-memory snapshot when it failed for lack of
 * memory.  pool: an explicit pool (asked about at snapshot time), or 0. */
static inline void gl_shape_after_alloc(enum gl_api_family fam, bool track, bool ok, bool oom, uint64_t ptr,
                                        size_t size, uint64_t stream, uint16_t kind, uint16_t api,
                                        uint64_t pool)
{
    if (!track)
        return;
    if (ok && ptr != 0) {
        struct gl_where w = gl_shape_where(fam, ptr);
        if (kind == GL_KIND_POOL || pool != 0) /* stream-ordered (a managed pool's too) */
            w = gl_where_stream_ordered(w, ptr, stream, pool);
        gl_call_alloc(w, ptr, size, stream, kind, api, GL_SPACE_ADDR);
        if (fam == GL_FAMILY_RUNTIME)
            gl_torch_note_alloc(); /* PyTorch's stacks: at most a pending call, never Python here */
        if (pool != 0)
            gl_pools_note(pool, w.device);
    }
    else if (oom)
        gl_hook_out_of_memory(gl_where_failed(gl_shape_where(fam, 0).device, kind, stream), size, stream, kind,
                              api);
}

/* Stream-ordered allocations and frees on a stream being captured allocate
 * and free nothing: they become nodes of the graph (graph.h), recorded when
 * a launch reaches them.  Only these calls ask whether the stream is
 * capturing; pt: the _ptsz entry point, where stream 0 is the per-thread
 * default stream.  The runtime's nodes are kept without a context (it
 * allocates in the device's primary one). */
static inline void gl_shape_after_async(enum gl_api_family fam, bool track, bool ok, bool oom, uint64_t ptr,
                                        size_t size, uint64_t stream, uint16_t api, uint64_t pool, bool pt)
{
    if (track && ok && ptr != 0 && gl_graph_capturing(stream, pt)) {
        struct gl_where w = gl_shape_where(fam, 0);
        gl_graph_node_added(ptr, size, w.device, fam == GL_FAMILY_DRIVER ? w.ctx : 0, api);
    }
    else {
        gl_shape_after_alloc(fam, track, ok, oom, ptr, size, stream, gl_pool_kind(pool), api, pool);
    }
}

/* An array (an opaque handle, in its own key space) of `bytes`. */
static inline void gl_shape_after_array(enum gl_api_family fam, bool track, bool ok, bool oom, uint64_t handle,
                                        size_t bytes, uint16_t api)
{
    if (!track)
        return;
    if (ok && handle != 0)
        gl_call_alloc(gl_shape_where(fam, 0), handle, bytes, 0, GL_KIND_ARRAY, api, GL_SPACE_ARRAY);
    else if (oom)
        gl_hook_out_of_memory(gl_shape_where(fam, 0).device, bytes, 0, GL_KIND_ARRAY, api);
}

#define GL_SHAPE_OK(fam) (rc == GL_FAM_##fam##_OK)
#define GL_SHAPE_OOM(fam) (rc == GL_FAM_##fam##_OOM)

/* An allocation: `call`, then the memory at `ptr` of `size` bytes recorded
 * (both read after the call, so either may use `rc`). */
#define GL_ALLOC_SHAPE(fam, name, call, ptr, size, kind, api)                                        \
    GL_CALL_THEN_BODY(name, GL_FAM_##fam##_NO_LIB, call,                                             \
                      gl_shape_after_alloc(GL_FAM_##fam, track, GL_SHAPE_OK(fam), GL_SHAPE_OOM(fam), \
                                           ptr, size, 0, kind, api, 0))

/* A stream-ordered allocation into `*out`; pool: the explicit pool, or 0;
 * pt: the _ptsz entry point. */
#define GL_ASYNC_SHAPE(fam, name, call, out, size, stream, api, pool, pt)                            \
    GL_CALL_THEN_BODY(name, GL_FAM_##fam##_NO_LIB, call,                                             \
                      gl_shape_after_async(GL_FAM_##fam, track, GL_SHAPE_OK(fam), GL_SHAPE_OOM(fam), \
                                           GL_OUT(out), size, (uintptr_t)(stream), api, pool, pt))

/* An array handle created into `*out`, of `bytes`. */
#define GL_ARRAY_SHAPE(fam, name, call, out, bytes, api)                                             \
    GL_CALL_THEN_BODY(name, GL_FAM_##fam##_NO_LIB, call,                                             \
                      gl_shape_after_array(GL_FAM_##fam, track, GL_SHAPE_OK(fam), GL_SHAPE_OOM(fam), \
                                           GL_OUT(out), bytes, api))

/* Host memory registered: `size` bytes at `ptr`, host-registered. */
#define GL_REGISTER_SHAPE(fam, name, call, ptr, size, api)                                           \
    GL_CALL_THEN_BODY(name, GL_FAM_##fam##_NO_LIB, call,                                             \
                      if (track && GL_SHAPE_OK(fam) && (ptr) != NULL)                                \
                          gl_call_alloc(gl_shape_where(GL_FAM_##fam, 0), (uintptr_t)(ptr), size, 0,  \
                                        GL_KIND_HOST_REGISTERED, api, GL_SPACE_ADDR))

/* A release of what `key` names in `space` (an address, or an opaque
 * handle: arrays, external memory), by the one-argument real function. */
#define GL_FREE_SHAPE(fam, name, key, space, api)                                                   \
    GL_RELEASE_HANDLE_BODY(name, key, space, api, GL_FAM_##fam##_NO_LIB, GL_FAM_##fam##_OK, gl_enter, \
                           gl_shape_where(GL_FAM_##fam, 0))

/* A stream-ordered free of `ptr` on `stream`: captured, it is a free node
 * and nothing is freed now.  pt: the _ptsz entry point. */
#define GL_FREE_ASYNC_SHAPE(fam, name, ptr, stream, api, pt)                                          \
    GL_RELEASE_BODY_IF(name, ptr, real(ptr, stream), !gl_graph_capturing((uintptr_t)(stream), pt),    \
                       GL_SPACE_ADDR, api, GL_FAM_##fam##_NO_LIB, GL_FAM_##fam##_OK, gl_enter,        \
                       gl_shape_where(GL_FAM_##fam, 0))

/* A stream capture begun, any ABI or stream variant: the flag is set
 * before the real call, so that no allocation on the capturing stream can
 * come before it (graph.h, gl_graph_capture_begun), and whether or not
 * tracking is on (a capture begun while detached is still running when
 * tracking resumes).  Nothing else is recorded: `call` passes through. */
#define GL_CAPTURE_BEGIN_SHAPE(fam, name, call)                                                     \
    gl_graph_capture_begun();                                                                       \
    GL_REAL_OR_RETURN(real, name, GL_FAM_##fam##_NO_LIB);                                           \
    return call

#endif
