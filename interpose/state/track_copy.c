#include "state/track_copy.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "state/account.h"
#include "state/events.h"
#include "state/history.h"
#include "state/lanes.h"
#include "state/track_shards.h"

/* The allocation calls of every stack that has any, read in the exclusive
 * section with the device counters, so that the two agree: a lane flushes
 * its tally into the stacks whenever a slot changes hands, and a count read
 * later, as the file is written, would hold calls the devices do not.
 * NULL (and *n 0) when there are none or memory ran out. */
static struct gl_calls_copy *copy_calls(const struct gl_stack *newest, uint32_t nstacks, size_t *n)
{
    size_t k = 0;
    uint32_t left = nstacks;
    for (const struct gl_stack *s = newest; s != NULL && left > 0; s = s->older, left--)
        k += atomic_load_explicit(&s->allocs, memory_order_relaxed) != 0;
    struct gl_calls_copy *c = k ? malloc(k * sizeof *c) : NULL;
    *n = 0;
    if (c == NULL)
        return NULL;
    left = nstacks;
    for (const struct gl_stack *s = newest; s != NULL && left > 0 && *n < k; s = s->older, left--) {
        uint64_t allocs = atomic_load_explicit(&s->allocs, memory_order_relaxed);
        if (allocs == 0)
            continue;
        c[(*n)++] = (struct gl_calls_copy){
            .stack_id = s->id, .api = atomic_load_explicit(&s->api, memory_order_relaxed),
            .kind = atomic_load_explicit(&s->kind, memory_order_relaxed), .allocs = allocs,
            .frees = atomic_load_explicit(&s->frees, memory_order_relaxed),
            .bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed)};
    }
    return c;
}

/* Faults a fresh buffer's pages in now.  (Not memset to 0: the compiler may
 * turn malloc + memset into calloc, which leaves fresh mmap'ed pages
 * untouched; a page fault costs microseconds on a virtual machine.) */
static void touch_pages(void *p, size_t n)
{
    if (p == NULL)
        return;
    volatile char *c = p;
    for (size_t i = 0; i < n; i += 4096)
        c[i] = 0;
    if (n > 0)
        c[n - 1] = 0;
}

bool gl_track_watch_copy(struct gl_watch_copy *out)
{
    memset(out, 0, sizeof *out);
    gl_exclusive_enter();
    gl_acct_revoke_all();
    /* A few KB once a second: allocated in the section, where the count
     * is exact. */
    size_t room = gl_acct_site_count();
    out->sites = malloc((room ? room : 1) * sizeof *out->sites);
    if (out->sites == NULL) {
        gl_exclusive_leave();
        return false;
    }
    gl_acct_watch_copy(out, room);
    uint64_t n = atomic_load_explicit(&gl_track_oom_next, memory_order_relaxed);
    out->oom_total = n;
    for (uint64_t i = n > GL_WATCH_OOMS ? n - GL_WATCH_OOMS : 0; i < n; i++)
        out->ooms[out->nooms++] = gl_track_oom_ring[i % GL_WATCH_OOMS];
    gl_exclusive_leave();
    return true;
}

bool gl_track_copy(struct gl_state_copy *out)
{
    memset(out, 0, sizeof *out);

    /* The exclusive section is held only for plain memcpy of the slabs (sequential, ~80
     * bytes per record) and the history ring; turning records into
     * gl_alloc_copy entries, which follows a pointer per record, is done
     * after it is released (stacks are immutable, so that is safe).  The
     * buffers are sized and their pages touched before entering it:
     * faulting in ~80 MB for 1,000,000 allocations while every allocating
     * thread waits would double the hold.  Slabs can be added before we get
     * in, hence the slack and the re-check. */
    size_t slots_guess = 0, hist_room;
    struct gl_lane *lane = gl_lane_enter();
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        gl_lock(&gl_track_shards[i].lock);
        for (const struct gl_track_slab *sl = gl_track_shards[i].slabs; sl != NULL; sl = sl->next)
            slots_guess += sl->used;
        gl_unlock(&gl_track_shards[i].lock);
    }
    hist_room = gl_history_capacity();
    gl_lane_leave(lane);
    size_t room = slots_guess + slots_guess / 16 + GL_TRACK_SHARDS * 64;
    struct gl_live *raw = malloc(room * sizeof *raw);
    struct gl_event *hist = hist_room ? malloc(hist_room * sizeof *hist) : NULL;
    touch_pages(raw, room * sizeof *raw);
    touch_pages(hist, hist_room * sizeof *hist);

    gl_exclusive_enter();
    gl_acct_revoke_all(); /* every lane's accounting on its device */
    gl_events_merge_held(gl_track_number_records); /* numbers the records too: before they are copied */
    size_t nslots = 0, npeaks = gl_acct_site_count();
    for (int i = 0; i < GL_TRACK_SHARDS; i++)
        for (const struct gl_track_slab *sl = gl_track_shards[i].slabs; sl != NULL; sl = sl->next)
            nslots += sl->used;
    if (raw != NULL && nslots > room) {
        free(raw);
        raw = NULL;
    }
    if (raw == NULL)
        raw = malloc((nslots ? nslots : 1) * sizeof *raw);
    out->peaks = malloc((npeaks ? npeaks : 1) * sizeof *out->peaks);
    if (raw == NULL || out->peaks == NULL) {
        gl_exclusive_leave();
        free(raw);
        free(hist);
        gl_state_copy_free(out);
        return false;
    }
    size_t k = 0;
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        for (const struct gl_track_slab *sl = gl_track_shards[i].slabs; sl != NULL; sl = sl->next) {
            memcpy(raw + k, sl->recs, sl->used * sizeof *raw);
            k += sl->used;
        }
    }

    gl_lanes_flush_tallies();
    gl_acct_copy(out, npeaks);
    out->events = gl_history_copy_into(hist, hist_room, gl_events_last_number(), &out->nevents);
    out->stacks = gl_stacks_newest(&out->nstacks);
    out->calls = copy_calls(out->stacks, out->nstacks, &out->ncalls);
    gl_exclusive_leave();

    /* In place: entry n (56 bytes) never reaches past record k >= n (80
     * bytes), which has already been read. */
    struct gl_alloc_copy *allocs = (struct gl_alloc_copy *)(void *)raw;
    size_t n = 0;
    for (size_t j = 0; j < nslots; j++) {
        struct gl_live r;
        memcpy(&r, &raw[j], sizeof r);
        if (r.state != GL_REC_LIVE)
            continue;
        allocs[n++] = (struct gl_alloc_copy){
            /* a stamp only when its ALLOC event was lost (events.h) */
            .ptr = r.addr, .size = r.size, .seq = r.seq & GL_SEQ_STAMP ? 0 : r.seq, .time_ns = r.time_ns,
            .stream = r.stream,
            .stack_id = r.stack ? r.stack->id : 0, .device = r.device, .kind = r.kind,
            .api = r.api,
        };
    }
    out->allocs = allocs;
    out->nallocs = n;
    return true;
}

void gl_state_copy_free(struct gl_state_copy *c)
{
    free(c->allocs);
    free(c->peaks);
    free(c->events);
    free(c->calls);
    c->allocs = NULL;
    c->peaks = NULL;
    c->events = NULL;
    c->calls = NULL;
}

void gl_track_shape(struct gl_track_shape *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        struct gl_track_shard *sh = &gl_track_shards[i];
        gl_lock(&sh->lock);
        out->records += sh->count;
        out->buckets += sh->nbuckets;
        for (const struct gl_track_slab *sl = sh->slabs; sl != NULL; sl = sl->next)
            out->slots += sl->used;
        for (size_t b = 0; b < sh->nbuckets; b++) {
            size_t n = 0;
            for (const struct gl_live *r = sh->buckets[b]; r != NULL; r = r->next)
                n++;
            if (n > out->longest_chain)
                out->longest_chain = n;
        }
        gl_unlock(&sh->lock);
    }
}
