/* See bad_free_block.h.  The sites (at most a few hundred) are sorted by
 * address once; every live allocation and every ALLOC event then finds the
 * sites inside it by binary search, and every FREE event the sites whose
 * block it ended. */
#include "analysis/bad_free_block.h"

#include <stdlib.h>

#include "snapshot_format.h"
#include "util/keyed.h"
#include "util/sort.h"
#include "util/xalloc.h"

static bool is_address(unsigned kind) { return kind != GL_KIND_ARRAY && kind != GL_KIND_VIRTUAL; }

/* A block [base, base + bytes) allocated at (seq, time): the candidate of
 * every site strictly inside it whose bad free came later, the latest wins. */
static void offer(const struct snapshot *s, struct bad_free_block *out, const struct keyed_index *by_ptr,
                  size_t n, uint64_t base, uint64_t bytes, uint64_t seq, uint64_t time_ns,
                  uint32_t stack_id, unsigned kind)
{
    if (bytes < 2 || !is_address(kind) || base == UINT64_MAX) /* nothing lies after its start */
        return;
    uint64_t end = base + bytes < base ? UINT64_MAX : base + bytes;
    for (size_t k = keyed_index_lower(by_ptr, n, base + 1); k < n && by_ptr[k].key < end; k++) {
        const struct snap_bad_free *b = &s->bad_frees[by_ptr[k].i];
        struct bad_free_block *o = &out[by_ptr[k].i];
        if (time_ns > b->time_ns || (o->found && o->alloc_seq >= seq))
            continue;
        *o = (struct bad_free_block){.found = true, .base = base, .bytes = bytes, .alloc_seq = seq,
                                     .alloc_time_ns = time_ns, .stack_id = stack_id};
    }
}

struct bad_free_block *bad_free_blocks(const struct snapshot *s)
{
    size_t n = s->nbad_frees;
    if (n == 0)
        return NULL;
    struct bad_free_block *out = xcalloc(n, sizeof *out);
    struct keyed_index *r = xcalloc(n, sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = (struct keyed_index){s->bad_frees[i].ptr, i};
    sort_array(r, n, sizeof *r, keyed_index_cmp);
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        offer(s, out, r, n, a->ptr, a->size, a->seq, a->time_ns, a->stack_id, a->kind);
    }
    for (size_t i = 0; i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type == GL_EV_ALLOC)
            offer(s, out, r, n, e->ptr, e->size, e->seq, e->time_ns, e->stack_id, e->kind);
    }
    /* was the block freed before the bad free?  (Live allocations never
     * were; a FREE event of its base after it was made and before the bad
     * free says so.) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i].found)
            r[m++] = (struct keyed_index){out[i].base, i};
    sort_array(r, m, sizeof *r, keyed_index_cmp);
    for (size_t i = 0; m && i < s->nevents; i++) {
        const struct snap_event *e = &s->events[i];
        if (e->type != GL_EV_FREE)
            continue;
        for (size_t k = keyed_index_lower(r, m, e->ptr); k < m && r[k].key == e->ptr; k++) {
            struct bad_free_block *o = &out[r[k].i];
            if (e->seq > o->alloc_seq && e->time_ns < s->bad_frees[r[k].i].time_ns &&
                (!o->freed || e->time_ns < o->free_time_ns)) {
                o->freed = true;
                o->free_time_ns = e->time_ns;
            }
        }
    }
    free(r);
    return out;
}
