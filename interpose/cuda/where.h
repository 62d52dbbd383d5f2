/* Where an allocation belongs: its device and context, asked of the
 * runtime or the driver on the hook path (where.c). */
#ifndef GL_CUDA_WHERE_H
#define GL_CUDA_WHERE_H

#include <stdbool.h>
#include <stdint.h>

/* Where an allocation belongs.  Never fails: when a query does (no context
 * on a worker thread, library torn down), the pointer's own attribute is
 * tried, then device 0. */
struct gl_where {
    int32_t device;
    uint64_t ctx; /* 0: the device's primary context */
};
/* The runtime's current device (cudaGetDevice), kept per thread instead of
 * asked on every event (400 instructions on fakecuda): every call that can
 * change a thread's current device or context is hooked
 * (hooks/hooks_current.c).  cudaSetDevice tells the device
 * (gl_where_device_set); the driver's context calls (cuCtxSetCurrent,
 * cuCtxPushCurrent, cuCtxPopCurrent, cuCtxCreate) make this thread's device
 * unknown (gl_where_device_forget); a context destroyed or reset, an attach
 * (hooks installed after the program chose its device) and a fork make every
 * thread's unknown (gl_where_devices_forget_all).  Unknown: the next event
 * asks cudaGetDevice once and keeps its answer.  gl_where_driver keeps the
 * driver's current context and its device per thread under the same rules
 * (and cudaSetDevice makes it unknown too): unknown, it asks cuCtxGetCurrent
 * and cuCtxGetDevice once, and keeps the answer when it names a context. */
struct gl_where gl_where_runtime(void);
/* The epoch to pass to gl_where_device_set: read before the call that sets
 * the device, so that a context destroyed during it is not missed. */
uint32_t gl_where_device_epoch(void);
void gl_where_device_set(int32_t device, uint32_t epoch);
void gl_where_device_forget(void);
void gl_where_devices_forget_all(void);
struct gl_where gl_where_driver(uint64_t ptr_hint);

/* Stream-ordered memory comes from the pool of the stream's device, or of
 * the pool named, which need not be the calling thread's device (nor a
 * device: host memory pools).  Where the memory at ptr is, when it may not
 * be w's: a stream other than the default ones (raw handles 0, 1 legacy,
 * 2 per-thread), or an explicit pool.  Asks the driver; w unchanged when it
 * cannot say. */
struct gl_where gl_where_stream_ordered(struct gl_where w, uint64_t ptr, uint64_t stream, uint64_t pool);

/* The device an allocation of `kind` that failed is counted on: for
 * stream-ordered memory on a stream other than the default ones, the
 * stream's (cuStreamGetDevice, CUDA 12.8 on); else `current`.  A failed
 * allocation from an explicit pool is counted on `current` too (no call
 * tells a pool's device). */
int32_t gl_where_failed(int32_t current, uint16_t kind, uint64_t stream);

/* The driver context the runtime uses for `device` is its primary context;
 * the hook on cuDevicePrimaryCtxRetain tells us its handle, so that driver
 * allocations in it are attributed to "primary" (ctx 0) like runtime ones. */
void gl_where_note_primary(int32_t device, uint64_t ctx);
uint64_t gl_where_primary(int32_t device);

/* Whether the calling thread's current context is a green context's
 * CUcontext (cuda/green_ctx.h): gl_where_driver counts it as the primary
 * context, which its memory is; whether cudaDeviceReset made with one
 * current resets the primary context is not documented, so that hook keeps
 * treating it as a context of the program's own. */
bool gl_where_green_current(void);

/* The size of the allocation or mapping that starts at ptr, as the driver
 * knows it (cuMemGetAddressRange, in the current context); 0 when it cannot
 * say.  For calls that map memory without stating its size. */
uint64_t gl_where_mapping_size(uint64_t ptr);

#endif
