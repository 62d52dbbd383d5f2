#include "cuda/ctx_cost.h"

#include <stdatomic.h>

#include <cuda.h>

#include "cuda/pools.h"
#include "resolve/resolve.h"
#include "state/track.h"

GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxGetState, (CUdevice, unsigned int *, int *))

/* Written by the thread that created the context, read by the snapshot
 * writer: the figure first, then the count, so a count seen non-zero has
 * its figure (a second creation racing a snapshot may pair the new count
 * with the old figure: both are measurements of the same context). */
static _Atomic uint64_t used_at_create[GL_MAX_DEVICES];
static _Atomic uint32_t creations[GL_MAX_DEVICES];

bool gl_ctx_primary_inactive(int32_t device)
{
    unsigned int flags;
    int active = 1;
    cuDevicePrimaryCtxGetState_fn state = REAL_cuDevicePrimaryCtxGetState();
    return state != NULL && state(device, &flags, &active) == CUDA_SUCCESS && !active;
}

void gl_ctx_note_created(int32_t device)
{
    uint64_t free_bytes, total;
    if (device < 0 || device >= GL_MAX_DEVICES || gl_device_mem_info(device, &free_bytes, &total) != 0)
        return;
    atomic_store(&used_at_create[device], total > free_bytes ? total - free_bytes : 0);
    atomic_fetch_add(&creations[device], 1);
}

struct gl_ctx_measure gl_ctx_measured(int32_t device)
{
    struct gl_ctx_measure m = {0, 0};
    if (device < 0 || device >= GL_MAX_DEVICES)
        return m;
    m.creations = atomic_load(&creations[device]);
    m.used_at_create = m.creations ? atomic_load(&used_at_create[device]) : 0;
    return m;
}
