#include "cuda/before_attach.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <cuda.h>

#include "base/internal.h"
#include "cuda/driver_view.h"
#include "cuda/pools.h"
#include "cuda/where.h"
#include "resolve/resolve.h"
#include "snapshot_format.h"
#include "state/account.h"
#include "state/track.h"

GL_DEFINE_REAL(CUresult, cuDeviceGetCount, (int *))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxGetState, (CUdevice, unsigned int *, int *))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))
GL_DEFINE_REAL(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))

struct device_figures {
    _Atomic uint64_t used_at_attach, freed_bytes, frees;
    _Atomic uint64_t torch_bytes, torch_freed, torch_segments, torch_frees;
};

static struct device_figures figures[GL_MAX_DEVICES];
static atomic_bool counting;

/* PyTorch's segments made before the attach, as it listed them; each with
 * the bytes of it seen freed since (an expandable segment is unmapped page
 * by page). */
struct pre_segment {
    uint64_t address, size;
    int32_t device;
    _Atomic uint64_t freed;
};
struct pre_list {
    size_t n;
    struct pre_segment s[];
};
/* Published once per attach; never freed: a free hook on another thread
 * may be reading it when the next attach replaces it (one small list per
 * attach). */
static struct pre_list *_Atomic pre;
static _Atomic uint32_t torch_status; /* enum gl_before_attach_torch */

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
        atomic_store(&figures[d].torch_bytes, 0);
        atomic_store(&figures[d].torch_freed, 0);
        atomic_store(&figures[d].torch_segments, 0);
        atomic_store(&figures[d].torch_frees, 0);
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
    /* The writer may ask the driver from now on (it waits for its first
     * driver call, made at the first tracked allocation, otherwise): a
     * snapshot before the program allocates again has the driver's view,
     * and so its ledger. */
    gl_driver_view_arm_exit();
    atomic_store(&pre, NULL); /* the last attach's list, if any, stays allocated: see `pre` */
    atomic_store(&torch_status, GL_BEFORE_ATTACH_TORCH_NOT_ASKED);
    atomic_store(&counting, true);
}

bool gl_before_attach_counting(void) { return atomic_load_explicit(&counting, memory_order_relaxed); }

/* The listed segment that holds addr, or NULL. */
static struct pre_segment *pre_segment_at(uint64_t addr)
{
    struct pre_list *l = atomic_load_explicit(&pre, memory_order_acquire);
    for (size_t i = 0; l != NULL && i < l->n; i++)
        if (addr >= l->s[i].address && addr - l->s[i].address < l->s[i].size)
            return &l->s[i];
    return NULL;
}

void gl_before_attach_freed(int32_t device, uint64_t addr, uint64_t size)
{
    if (device < 0 || device >= GL_MAX_DEVICES)
        return;
    atomic_fetch_add(&figures[device].freed_bytes, size);
    atomic_fetch_add(&figures[device].frees, 1);
    struct pre_segment *p = pre_segment_at(addr);
    if (p == NULL || p->device != device)
        return;
    /* Never more than the segment: a later free at the same address is of
     * a new segment the driver handed out there after this one went. */
    uint64_t before = atomic_load(&p->freed), add;
    do {
        if (before >= p->size)
            return;
        add = size < p->size - before ? size : p->size - before;
    } while (!atomic_compare_exchange_weak(&p->freed, &before, before + add));
    atomic_fetch_add(&figures[device].torch_freed, add);
    atomic_fetch_add(&figures[device].torch_frees, 1);
}

void gl_before_attach_torch_asked(void)
{
    uint32_t none = GL_BEFORE_ATTACH_TORCH_NOT_ASKED;
    atomic_compare_exchange_strong(&torch_status, &none, GL_BEFORE_ATTACH_TORCH_NO_ANSWER);
}

/* Not made before the attach: gpuleak saw it made (during an earlier
 * attach, or since this one), or it is of no device measured. */
static bool seen_or_elsewhere(const struct gl_pre_segment *g)
{
    return g->device < 0 || g->device >= GL_MAX_DEVICES || atomic_load(&figures[g->device].used_at_attach) == 0 ||
           gl_track_kind_of(GL_SPACE_ADDR, g->address) >= 0;
}

void gl_before_attach_torch_listed(const struct gl_pre_segment *segs, size_t n)
{
    if (!atomic_load(&counting) || atomic_load(&pre) != NULL)
        return;
    struct pre_list *l = malloc(sizeof *l + (n ? n : 1) * sizeof l->s[0]);
    if (l == NULL)
        return;
    l->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (seen_or_elsewhere(&segs[i]))
            continue;
        struct pre_segment *p = &l->s[l->n++];
        p->address = segs[i].address;
        p->size = segs[i].size;
        p->device = segs[i].device;
        atomic_init(&p->freed, 0);
        atomic_fetch_add(&figures[p->device].torch_bytes, p->size);
        atomic_fetch_add(&figures[p->device].torch_segments, 1);
    }
    struct pre_list *none = NULL;
    if (!atomic_compare_exchange_strong(&pre, &none, l)) {
        free(l); /* cannot happen: one answer per attach (torch_view.c) */
        return;
    }
    atomic_store(&torch_status, GL_BEFORE_ATTACH_TORCH_ANSWERED);
}

bool gl_before_attach_torch_segment(uint64_t segment)
{
    struct pre_segment *p = pre_segment_at(segment);
    return p != NULL && p->address == segment && atomic_load(&p->freed) < p->size;
}

struct gl_before_attach gl_before_attach_of(int32_t device)
{
    struct gl_before_attach b = {0};
    if (device < 0 || device >= GL_MAX_DEVICES)
        return b;
    b.used_at_attach = atomic_load(&figures[device].used_at_attach);
    b.freed_bytes = atomic_load(&figures[device].freed_bytes);
    b.frees = atomic_load(&figures[device].frees);
    b.torch_bytes = atomic_load(&figures[device].torch_bytes);
    b.torch_freed = atomic_load(&figures[device].torch_freed);
    b.torch_segments = (uint32_t)atomic_load(&figures[device].torch_segments);
    b.torch_frees = (uint32_t)atomic_load(&figures[device].torch_frees);
    b.torch_status = b.used_at_attach != 0 ? atomic_load(&torch_status) : 0;
    return b;
}
