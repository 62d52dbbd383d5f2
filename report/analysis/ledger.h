/* The ledger of every used byte (docs/reporter.md, "Ledger"): per device
 * with the driver's view, its used memory (total - free) split into what
 * gpuleak saw take it, and a signed remainder that is never hidden.
 *
 * Rows, each counted once:
 *   - live allocations of the kinds that take device memory of their own:
 *     device, pool, array, virtual (cuMemCreate physical memory), graph
 *     (LEDGER_RESIDENT); of them, what built-in allocator-cache rules match
 *     (a part, not a row);
 *   - memory pools' reserve not allocated (POOLS reserved - used, pools of
 *     cuMemPoolCreate included: a mempool allocation's size is that very
 *     figure, so it is not added again);
 *   - the graph memory pool's reserve not allocated;
 *   - loaded modules (kind module, measured around each load);
 *   - the primary context as measured when it was created
 *     (DEVICES.ctx_used_at_create): its own memory plus what other
 *     processes held then;
 *   - in a process gpuleak attached to, the memory made before the attach:
 *     the driver's used memory then (DEVICES.before_attach_used) less what
 *     was seen freed of it since (before_attach_freed); the context is in
 *     it (its creation was not seen);
 *   - memory mapped from other processes (kind ipc): in the device's used
 *     memory once, as its owner's allocation;
 *   - memory of other APIs imported here (kind external);
 *   - the remainder: used - all of the above, signed.
 * Not counted: managed memory (on the device only while its pages are
 * there, which the snapshot cannot tell: when it is, it is in the
 * remainder), host memory, multicast objects (they hold none of their own).
 * Allocations count their requested size; the driver's rounding is in the
 * remainder. */
#ifndef GPULEAK_LEDGER_H
#define GPULEAK_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analyze.h"
#include "snapshot_format.h"

/* Whether live allocations of kind k take device memory of their own. */
bool ledger_resident(unsigned k);

struct ledger_dev {
    int32_t device;
    uint64_t mem_total, mem_free, used; /* used = total - free */
    uint64_t kind_bytes[GL_KIND_COUNT], kind_count[GL_KIND_COUNT]; /* resident kinds */
    uint64_t live;        /* the resident kinds' sum */
    uint64_t cached;      /* of live: matched by a built-in allocator-cache rule */
    uint64_t pool_idle;   /* memory pools: reserved - used */
    size_t npools;
    bool have_graph_pool;
    uint64_t graph_idle;  /* the graph memory pool: reserved - used */
    uint64_t modules, nmodules;
    bool ctx_measured;    /* DEVICES.ctx_creations != 0 */
    uint64_t ctx;         /* DEVICES.ctx_used_at_create */
    uint32_t ctx_creations;
    bool attached;                /* DEVICES.before_attach_used != 0 */
    uint64_t before_attach;       /* before_attach_used - before_attach_freed, at least 0 */
    uint64_t before_attach_used, before_attach_freed, before_attach_frees;
    /* Of before_attach, PyTorch's segments made before the attach, as
     * PyTorch listed them when the attach asked (DEVICES.before_attach_torch_*):
     * torch_status 0 not asked, 1 answered, 2 no answer yet; torch_left
     * what of them is still there (at the attach less freed since, at most
     * before_attach); before_attach_rest the remainder of the row (contexts,
     * other libraries, other processes).  Their live tensors now: from this
     * snapshot's PyTorch view, the blocks flagged as in such a segment. */
    uint32_t torch_status, torch_segments, torch_frees;
    uint64_t torch_at_attach, torch_freed, torch_left, before_attach_rest;
    uint64_t torch_tensor_bytes, torch_tensors;
    uint64_t ipc, nipc;           /* mapped from other processes */
    uint64_t external, nexternal; /* other APIs' memory */
    uint64_t managed, nmanaged;   /* not counted */
    uint64_t explained;           /* the rows' sum (saturating) */
    int64_t remainder;            /* used - explained, clamped to int64 */
};

struct ledger {
    struct ledger_dev *dev; /* ordinal asc: devices with a driver's view */
    size_t ndev;
};

/* 0 on success, -1 when out of memory.  a: the analysis of the same view,
 * for the allocator-cache part. */
int ledger_build(const struct snapview *v, const struct analysis *a, struct ledger *out);
void ledger_free(struct ledger *l);

/* The remainder's share of used memory in percent (0 when used is 0). */
double ledger_remainder_pct(const struct ledger_dev *d);

#endif
