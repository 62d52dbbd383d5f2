#include "cuda/before_attach.h"

#include <stdatomic.h>

#include <cuda.h>

#include "base/internal.h"
#include "cuda/pools.h"
#include "cuda/where.h"
#include "resolve/resolve.h"
#include "state/account.h"

GL_DEFINE_REAL(CUresult, cuDeviceGetCount, (int *))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxGetState, (CUdevice, unsigned int *, int *))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))

struct device_figures {
    _Atomic uint64_t used_at_attach, freed_bytes, frees;
};

static struct device_figures figures[GL_MAX_DEVICES];
static atomic_bool counting;

/* The primary context of a device the program uses, learned by retaining
 * it (an alive one: retaining an inactive one would create it, taking
 * device memory) and released at once: the program holds it still. */
static uint64_t alive_primary(int32_t device)
{
    cuDevicePrimaryCtxGetState_fn state = REAL_cuDevicePrimaryCtxGetState();
    cuDevicePrimaryCtxRetain_fn retain = REAL_cuDevicePrimaryCtxRetain();
    cuDevicePrimaryCtxRelease_v2_fn release = REAL_cuDevicePrimaryCtxRelease_v2();
    unsigned int flags;
    int alive = 0;
    CUcontext ctx = NULL;
    if (state == NULL || retain == NULL || release == NULL || state(device, &flags, &alive) != CUDA_SUCCESS ||
        !alive || retain(&ctx, device) != CUDA_SUCCESS)
        return 0;
    release(device);
    return (uint64_t)(uintptr_t)ctx;
}

void gl_before_attach_measure(void)
{
    gl_caller_pc = 0;
    cuDeviceGetCount_fn count = REAL_cuDeviceGetCount();
    int n = 0;
    if (count == NULL || count(&n) != CUDA_SUCCESS)
        n = 0;
    for (int32_t d = 0; d < n && d < GL_MAX_DEVICES; d++) {
        atomic_store(&figures[d].freed_bytes, 0);
        atomic_store(&figures[d].frees, 0);
        atomic_store(&figures[d].used_at_attach, 0);
        uint64_t ctx = alive_primary(d);
        if (ctx == 0)
            continue;
        gl_where_note_primary(d, ctx);
        uint64_t free_bytes, total;
        if (gl_device_mem_info(d, &free_bytes, &total) == 0 && total >= free_bytes) {
            atomic_store(&figures[d].used_at_attach, total - free_bytes);
            gl_acct_touch(d); /* in DEVICES from the first snapshot on */
        }
    }
    atomic_store(&counting, true);
}

bool gl_before_attach_counting(void) { return atomic_load_explicit(&counting, memory_order_relaxed); }

void gl_before_attach_freed(int32_t device, uint64_t size)
{
    if (device < 0 || device >= GL_MAX_DEVICES)
        return;
    atomic_fetch_add(&figures[device].freed_bytes, size);
    atomic_fetch_add(&figures[device].frees, 1);
}

struct gl_before_attach gl_before_attach_of(int32_t device)
{
    struct gl_before_attach b = {0, 0, 0};
    if (device < 0 || device >= GL_MAX_DEVICES)
        return b;
    b.used_at_attach = atomic_load(&figures[device].used_at_attach);
    b.freed_bytes = atomic_load(&figures[device].freed_bytes);
    b.frees = atomic_load(&figures[device].frees);
    return b;
}
