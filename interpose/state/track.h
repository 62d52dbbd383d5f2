/* The live-allocation table and the per-device counters.
 *
 * Locking: every mutation runs in its thread's lane (lanes.h) and takes one
 * short inner lock (a shard of the table) and, when its accounting cannot stay
 * in the lane (account.h), the device's lock; a snapshot holds every lane (the
 * exclusive section), which excludes all mutations at once and so sees the
 * table and the counters in one consistent state without the inner locks.
 */
#ifndef GL_TRACK_H
#define GL_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/ut.h"
#include "state/history.h"
#include "state/stack_table.h"

/* Which namespace a key lives in: addresses (device, managed, host memory)
 * cannot collide with each other, but array handles, VMM handles (created
 * here or imported) and external memory objects are opaque values that
 * could equal an address. */
enum gl_space {
    GL_SPACE_ADDR = 0,
    GL_SPACE_ARRAY = 1,
    GL_SPACE_VMM = 2,
    GL_SPACE_EXTMEM = 3,
    GL_SPACE_VMM_IMPORT = 4,
    GL_SPACE_POOL = 5,   /* pool objects (cuMemPoolCreate handles) */
    GL_SPACE_MODULE = 6, /* loaded modules and libraries (CUmodule, CUlibrary handles) */
};

#define GL_HOST_DEVICE (-1)
#define GL_MAX_DEVICES 128 /* ordinals 0..127, plus the host */

/* One live allocation: 80 bytes, kept in slabs and chained in its shard's
 * hash table (track.c), so a live allocation costs about 88 bytes of host
 * memory in all (docs/performance.md).  Opaque outside track.c and the
 * files that copy and empty the table (track_shards.h). */
struct gl_live {
    uint64_t addr;
    uint64_t size;
    uint64_t seq;
    uint64_t time_ns;
    uint64_t stream;
    uint64_t ctx; /* owning driver context; 0: the device's primary context */
    struct gl_stack *stack;
    struct gl_live *next; /* hash chain, or free list */
    int32_t device;
    int32_t owner; /* device whose context owns it (host memory too) */
    uint8_t kind;
    uint8_t api;
    uint8_t space;
    uint8_t state; /* GL_REC_FREE, GL_REC_LIVE (in the table) or GL_REC_TAKEN */
};

struct gl_alloc_info {
    uint64_t addr;
    uint64_t size;
    uint64_t stream;
    uint64_t ctx;
    int32_t owner;
    int32_t device;
    uint16_t kind;
    uint16_t api;
    uint32_t space;
};

/* Records a successful allocation made by the calling thread. */
void gl_track_alloc(const struct gl_alloc_info *info, struct gl_stack *stack);

/* Removes the record for (space, addr) before the real free runs, so that the
 * address cannot be handed out again and recorded while the old record still
 * exists.  Returns NULL for an unknown pointer.  free_stack: the free's own
 * stack id for its history event (GPULEAK_FREE_STACKS), or 0. */
struct gl_live *gl_track_take(uint32_t space, uint64_t addr, uint32_t free_stack);
/* The record returned is the calling thread's copy, valid until its next
 * take: a hook settles each take before the next.  The free is counted (and
 * its record's slot reused) at once; when the real free succeeds there is
 * nothing more to do. */
/* The real free failed: the memory is still allocated, put the record back
 * (and take back the free counted). */
void gl_track_restore(struct gl_live *r);

void gl_track_unknown_free(int32_t device);

/* The kind of the live record for (space, addr), or -1 if there is none. */
int gl_track_kind_of(uint32_t space, uint64_t addr);

/* An allocation failed with out-of-memory: counted and put in the history. */
struct gl_oom_info {
    uint64_t size, stream, mem_free, mem_total;
    int32_t device;
    uint16_t kind, api;
};
void gl_track_failed(const struct gl_oom_info *oom, struct gl_stack *stack);

/* A SNAPSHOT or ANNOTATION marker in the history. */
void gl_track_mark(uint16_t type, uint64_t ptr, uint64_t size);

/* Resizes the history (0: off), dropping what it held. */
void gl_track_configure_history(size_t max_entries);

/* A context was destroyed or reset: its memory is gone without frees.  Drops
 * every record of context ctx (0: the primary context) owned by device
 * `owner` (GL_ANY_OWNER: any) that the context owns -- not stream-ordered
 * or virtual memory, which CUDA documents outlive contexts -- and notes each
 * as leaked until that teardown (teardown.h; teardown_api: the call).
 * Returns the number dropped. */
#define GL_ANY_OWNER INT32_MIN
size_t gl_track_drop_context(int32_t owner, uint64_t ctx, uint16_t teardown_api);

/* For the merger (events.h, gl_events_number_fn): each record, linked by an
 * ALLOC event stamped `stamp`, takes its number if it is still that
 * allocation's record.  tmp: room for n entries. */
struct gl_numbered;
void gl_track_number_records(struct gl_numbered *nr, size_t n, struct gl_numbered *tmp);

#endif
