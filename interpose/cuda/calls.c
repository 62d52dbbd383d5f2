#include "cuda/calls.h"

#include <errno.h>

#include "base/internal.h"
#include "base/procenv.h"
#include "capture/sample.h"
#include "capture/stacks.h"
#include "cuda/driver_view.h"
#include "cuda/pools.h"
#include "snapshot_format.h"
#include "cuda/before_attach.h"
#include "cuda/where.h"
#include "state/bad_free.h"
#include "state/stack_table.h"

/* The stack of an allocation of size bytes: captured (native unwind and
 * Python walk), or in light mode, for the allocations the byte sampler
 * passes over, the shared unsampled stack (capture/sample.h). */
static struct gl_stack *alloc_stack(uint64_t size)
{
    if (gl_config.mode == GL_MODE_LIGHT && !gl_sample_take(size))
        return gl_stack_unsampled();
    struct gl_capture cap;
    gl_stack_capture(&cap);
    return gl_stack_intern(&cap);
}

void gl_call_alloc(struct gl_where w, uint64_t addr, uint64_t size, uint64_t stream,
                   uint16_t kind, uint16_t api, uint32_t space)
{
    int saved = errno;
    gl_call_alloc_stack(w, addr, size, stream, kind, api, space, alloc_stack(size));
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
/* The size of unknown memory being freed in an attached process, asked
 * before the free (after it the driver no longer knows the address). */
static GL_TLS uint64_t tls_before_attach_size, tls_before_attach_addr;

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
    tls_before_attach_size = 0;
    tls_before_attach_addr = space == GL_SPACE_ADDR ? addr : 0; /* handles are no addresses */
    if (r == NULL && space == GL_SPACE_ADDR && gl_before_attach_counting())
        tls_before_attach_size = gl_where_mapping_size(addr);
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
    if (r == NULL && ok && gl_before_attach_counting()) {
        gl_before_attach_freed(device_if_unknown, tls_before_attach_addr, tls_before_attach_size);
    } else if (r == NULL) {
        gl_track_unknown_free(device_if_unknown);
        if (api != GL_API_UNKNOWN)
            gl_bad_free_note(device_if_unknown, key, api, !ok, known);
    } else if (!ok) {
        gl_track_restore(r);
    }
    errno = saved;
}
