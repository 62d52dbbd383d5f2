#include "cuda/calls.h"

#include <errno.h>
#include <stdatomic.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "base/internal.h"
#include "base/procenv.h"
#include "capture/stacks.h"
#include "cuda/driver_view.h"
#include "cuda/pools.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/bad_free.h"
#include "state/stack_table.h"

/* Queries made on the hook path: plain (not hooked) functions, resolved once. */
GL_DEFINE_REAL(cudaError_t, cudaGetDevice, (int *))
GL_DEFINE_REAL(CUresult, cuCtxGetDevice, (CUdevice *))
GL_DEFINE_REAL(CUresult, cuCtxGetCurrent, (CUcontext *))
GL_DEFINE_REAL(CUresult, cuPointerGetAttribute, (void *, CUpointer_attribute, CUdeviceptr))
GL_DEFINE_REAL(CUresult, cuMemGetAddressRange_v2, (CUdeviceptr *, size_t *, CUdeviceptr))

static _Atomic uint64_t primary_ctx[GL_MAX_DEVICES];

void gl_note_primary_ctx(int32_t device, uint64_t ctx)
{
    if (device >= 0 && device < GL_MAX_DEVICES)
        atomic_store(&primary_ctx[device], ctx);
}

uint64_t gl_primary_ctx(int32_t device)
{
    return device >= 0 && device < GL_MAX_DEVICES ? atomic_load(&primary_ctx[device]) : 0;
}

struct gl_where gl_runtime_where(void)
{
    struct gl_where w = {0, 0};
    cudaGetDevice_fn get = REAL_cudaGetDevice();
    int dev = 0;
    if (get != NULL && get(&dev) == cudaSuccess)
        w.device = dev;
    return w;
}

struct gl_where gl_driver_where(uint64_t ptr_hint)
{
    struct gl_where w = {0, 0};
    cuCtxGetCurrent_fn cur = REAL_cuCtxGetCurrent();
    CUcontext ctx = NULL;
    if (cur != NULL && cur(&ctx) == CUDA_SUCCESS)
        w.ctx = (uintptr_t)ctx;
    cuCtxGetDevice_fn get = REAL_cuCtxGetDevice();
    CUdevice dev = 0;
    int ordinal = 0;
    cuPointerGetAttribute_fn attr;
    if (ctx != NULL && get != NULL && get(&dev) == CUDA_SUCCESS)
        w.device = dev;
    else if (ptr_hint != 0 && (attr = REAL_cuPointerGetAttribute()) != NULL &&
             attr(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)ptr_hint) == CUDA_SUCCESS)
        w.device = ordinal;
    if (w.ctx != 0 && w.ctx == gl_primary_ctx(w.device))
        w.ctx = 0;
    return w;
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

int32_t gl_failed_device(int32_t current, uint16_t kind, uint64_t stream)
{
    cuStreamGetDevice_fn get = kind == GL_KIND_POOL && stream > 2 ? REAL_cuStreamGetDevice() : NULL;
    CUdevice dev;
    if (get == NULL || get((CUstream)(uintptr_t)stream, &dev) != CUDA_SUCCESS)
        return current;
    return dev;
}

uint64_t gl_mapping_size(uint64_t ptr)
{
    cuMemGetAddressRange_v2_fn range = REAL_cuMemGetAddressRange_v2();
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range == NULL || range(&base, &size, (CUdeviceptr)ptr) != CUDA_SUCCESS || base != ptr)
        return 0;
    return size;
}

void gl_call_alloc(struct gl_where w, uint64_t addr, uint64_t size, uint64_t stream,
                   uint16_t kind, uint16_t api, uint32_t space)
{
    int saved = errno;
    struct gl_capture cap;
    gl_stack_capture(&cap);
    gl_call_alloc_stack(w, addr, size, stream, kind, api, space, gl_stack_intern(&cap));
    errno = saved;
}

void gl_call_alloc_stack(struct gl_where w, uint64_t addr, uint64_t size, uint64_t stream,
                         uint16_t kind, uint16_t api, uint32_t space, struct gl_stack *stack)
{
    int saved = errno;
    gl_env_note_allocation();
    gl_driver_view_arm_exit();
    bool host = kind == GL_KIND_HOST_PINNED || kind == GL_KIND_HOST_REGISTERED;
    if (kind == GL_KIND_POOL)
        gl_pools_note_default(w.device);
    else if (kind == GL_KIND_GRAPH)
        gl_pools_note_graph(w.device);
    struct gl_alloc_info info = {
        .addr = addr, .size = size, .stream = stream, .ctx = w.ctx, .owner = w.device,
        .device = host ? GL_HOST_DEVICE : w.device, .kind = kind, .api = api, .space = space,
    };
    gl_track_alloc(&info, stack);
    errno = saved;
}

void gl_call_failed(int32_t device, uint64_t size, uint64_t stream, uint16_t kind, uint16_t api,
                    struct gl_mem_view *mem)
{
    int saved = errno;
    struct gl_capture cap;
    gl_stack_capture(&cap);
    struct gl_oom_info oom = {.size = size, .stream = stream, .device = device, .kind = kind, .api = api};
    /* The thread that just failed has the failing device's context current
     * (the runtime made it so), so the driver can say how much was free. */
    if (gl_current_mem_info(&oom.mem_free, &oom.mem_total) != 0)
        oom.mem_free = oom.mem_total = 0;
    gl_track_failed(&oom, gl_stack_intern(&cap));
    *mem = (struct gl_mem_view){device, oom.mem_free, oom.mem_total};
    errno = saved;
}

/* The stack gl_call_free_begin captured (GPULEAK_FREE_STACKS), for the same
 * free's gl_call_free_end_api: a free with no record needs it too, and is not
 * unwound twice.  Stacks are never freed, so the pointer stays valid. */
static GL_TLS const struct gl_stack *tls_free_stack;

struct gl_live *gl_call_free_begin(uint32_t space, uint64_t addr)
{
    int saved = errno;
    uint32_t free_stack = 0;
    tls_free_stack = NULL;
    if (gl_config.free_stacks) { /* valgrind's "freed at": one more unwind per free */
        struct gl_capture cap;
        gl_stack_capture(&cap);
        const struct gl_stack *st = gl_stack_intern(&cap);
        free_stack = st ? st->id : 0;
        tls_free_stack = st;
    }
    struct gl_live *r = gl_track_take(space, addr, free_stack);
    errno = saved;
    return r;
}

void gl_call_free_end(struct gl_live *r, int ok, int32_t device_if_unknown)
{
    gl_call_free_end_api(r, ok, device_if_unknown, 0, GL_API_UNKNOWN);
}

void gl_call_free_end_api(struct gl_live *r, int ok, int32_t device_if_unknown, uint64_t key, uint16_t api)
{
    int saved = errno;
    const struct gl_stack *known = tls_free_stack;
    tls_free_stack = NULL;
    if (r == NULL) {
        gl_track_unknown_free(device_if_unknown);
        if (api != GL_API_UNKNOWN)
            gl_bad_free_note(device_if_unknown, key, api, !ok, known);
    } else if (ok) {
        gl_track_release(r);
    } else {
        gl_track_restore(r);
    }
    errno = saved;
}
