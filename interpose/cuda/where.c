/* Where an allocation belongs (where.h): the current device and context,
 * with the driver's own answers where the calling thread's are not the
 * memory's (stream-ordered memory, mappings). */
#include "cuda/where.h"

#include <stdatomic.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "base/internal.h"
#include "cuda/green_ctx.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/track.h"

/* Queries made on the hook path: plain (not hooked) functions, resolved once. */
GL_DEFINE_REAL(cudaError_t, cudaGetDevice, (int *))
GL_DEFINE_REAL(CUresult, cuCtxGetDevice, (CUdevice *))
GL_DEFINE_REAL(CUresult, cuCtxGetCurrent, (CUcontext *))
GL_DEFINE_REAL(CUresult, cuPointerGetAttribute, (void *, CUpointer_attribute, CUdeviceptr))
GL_DEFINE_REAL(CUresult, cuMemGetAddressRange_v2, (CUdeviceptr *, size_t *, CUdeviceptr))

static _Atomic uint64_t primary_ctx[GL_MAX_DEVICES];

void gl_where_note_primary(int32_t device, uint64_t ctx)
{
    if (device >= 0 && device < GL_MAX_DEVICES)
        atomic_store(&primary_ctx[device], ctx);
}

uint64_t gl_where_primary(int32_t device)
{
    return device >= 0 && device < GL_MAX_DEVICES ? atomic_load(&primary_ctx[device]) : 0;
}

/* The runtime's current device, per thread (where.h).  thread_device is
 * valid while thread_device_epoch equals device_epoch; 0 never does
 * (device_epoch starts at 1 and skips 0 when it wraps), so a new thread, and
 * one whose device was forgotten, asks once.  initial-exec TLS: no
 * allocation or lock on first touch. */
static _Atomic uint32_t device_epoch = 1;
static GL_TLS int32_t thread_device;
static GL_TLS uint32_t thread_device_epoch;

static uint32_t current_epoch(void)
{
    return atomic_load_explicit(&device_epoch, memory_order_acquire);
}

/* The driver's current context and its device, per thread, under the same
 * epoch rule: valid while thread_ctx_epoch equals device_epoch.  Only a
 * context the driver named is kept, never "none": a thread with no context
 * gets one from the runtime's lazy binding, which need not pass through a
 * hook. */
static GL_TLS uint64_t thread_ctx;
static GL_TLS int32_t thread_ctx_device;
static GL_TLS uint32_t thread_ctx_epoch;

/* cudaSetDevice makes the device's primary context current: the driver's
 * context is asked again at the next driver event. */
void gl_where_device_set(int32_t device, uint32_t epoch)
{
    thread_device = device;
    thread_device_epoch = epoch;
    thread_ctx_epoch = 0;
}

uint32_t gl_where_device_epoch(void)
{
    return current_epoch();
}

void gl_where_device_forget(void)
{
    thread_device_epoch = 0;
    thread_ctx_epoch = 0;
}

void gl_where_devices_forget_all(void)
{
    if (atomic_fetch_add_explicit(&device_epoch, 1, memory_order_release) == UINT32_MAX)
        atomic_fetch_add_explicit(&device_epoch, 1, memory_order_release);
}

/* The epoch is read before the query: a context destroyed meanwhile bumps
 * it, and the next event asks again. */
struct gl_where gl_where_runtime(void)
{
    struct gl_where w = {0, 0};
    uint32_t epoch = current_epoch();
    if (__builtin_expect(thread_device_epoch == epoch, 1)) {
        w.device = thread_device;
        return w;
    }
    cudaGetDevice_fn get = REAL_cudaGetDevice();
    int dev = 0;
    if (get != NULL && get(&dev) == cudaSuccess) {
        w.device = dev;
        gl_where_device_set(dev, epoch);
    }
    return w;
}

/* The driver's current context and its device, asked of the driver (two
 * calls, ~200 instructions on fakecuda); kept per thread when it names a
 * context.  The epoch is read before the queries, as in gl_where_runtime. */
static bool ask_driver_context(struct gl_where *w)
{
    uint32_t epoch = current_epoch();
    cuCtxGetCurrent_fn cur = REAL_cuCtxGetCurrent();
    CUcontext ctx = NULL;
    if (cur == NULL || cur(&ctx) != CUDA_SUCCESS || ctx == NULL)
        return false;
    w->ctx = (uintptr_t)ctx;
    cuCtxGetDevice_fn get = REAL_cuCtxGetDevice();
    CUdevice dev = 0;
    if (get == NULL || get(&dev) != CUDA_SUCCESS)
        return false;
    w->device = dev;
    thread_ctx = w->ctx;
    thread_ctx_device = dev;
    thread_ctx_epoch = epoch;
    return true;
}

/* The calling thread's context: kept, else asked; with none, the device of
 * the memory at ptr_hint. */
struct gl_where gl_where_driver(uint64_t ptr_hint)
{
    struct gl_where w = {0, 0};
    int ordinal = 0;
    cuPointerGetAttribute_fn attr;
    if (__builtin_expect(thread_ctx_epoch == current_epoch(), 1)) {
        w.ctx = thread_ctx;
        w.device = thread_ctx_device;
    } else if (!ask_driver_context(&w) && ptr_hint != 0 && (attr = REAL_cuPointerGetAttribute()) != NULL &&
               attr(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)ptr_hint) == CUDA_SUCCESS) {
        w.device = ordinal;
    }
    /* The primary context, under its own handle or a green context's: asked
     * per event, as either may be learnt after the context was kept. */
    if (w.ctx != 0 && (w.ctx == gl_where_primary(w.device) || gl_green_is_primary_alias(w.ctx, w.device)))
        w.ctx = 0;
    return w;
}

bool gl_where_green_current(void)
{
    cuCtxGetCurrent_fn cur = REAL_cuCtxGetCurrent();
    CUcontext ctx = NULL;
    cuCtxGetDevice_fn get = REAL_cuCtxGetDevice();
    CUdevice dev = 0;
    return cur != NULL && cur(&ctx) == CUDA_SUCCESS && ctx != NULL && get != NULL && get(&dev) == CUDA_SUCCESS &&
           gl_green_is_primary_alias((uintptr_t)ctx, dev);
}

GL_DEFINE_REAL(CUresult, cuPointerGetAttributes, (unsigned int, CUpointer_attribute *, void **, CUdeviceptr))

struct gl_where gl_where_stream_ordered(struct gl_where w, uint64_t ptr, uint64_t stream, uint64_t pool)
{
    if (pool == 0 && stream <= 2)
        return w;
    cuPointerGetAttributes_fn attrs = REAL_cuPointerGetAttributes();
    CUpointer_attribute which[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned int type = 0;
    int ordinal = -1;
    void *data[2] = {&type, &ordinal};
    if (attrs == NULL || attrs(2, which, data, (CUdeviceptr)ptr) != CUDA_SUCCESS)
        return w;
    if (type == CU_MEMORYTYPE_HOST)
        w.device = -1;
    else if (type == CU_MEMORYTYPE_DEVICE && ordinal >= 0)
        w.device = ordinal;
    return w;
}

GL_DEFINE_REAL(CUresult, cuStreamGetDevice, (CUstream, CUdevice *))

int32_t gl_where_failed(int32_t current, uint16_t kind, uint64_t stream)
{
    cuStreamGetDevice_fn get = kind == GL_KIND_POOL && stream > 2 ? REAL_cuStreamGetDevice() : NULL;
    CUdevice dev;
    if (get == NULL || get((CUstream)(uintptr_t)stream, &dev) != CUDA_SUCCESS)
        return current;
    return dev;
}

uint64_t gl_where_mapping_size(uint64_t ptr)
{
    cuMemGetAddressRange_v2_fn range = REAL_cuMemGetAddressRange_v2();
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range == NULL || range(&base, &size, (CUdeviceptr)ptr) != CUDA_SUCCESS || base != ptr)
        return 0;
    return size;
}
