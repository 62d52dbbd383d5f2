#include "state/track.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "base/self.h"
#include "snapshot_format.h"
#include "state/account.h"
#include "state/events.h"
#include "state/history.h"
#include "state/lanes.h"
#include "state/teardown.h"
#include "state/track_shards.h"

_Static_assert(sizeof(struct gl_live) == 80, "a live record is 80 bytes");
_Static_assert(GL_KIND_COUNT <= 256 && GL_API_COUNT <= 256, "kind and api fit in a byte");

/* The live table's storage (track_shards.h). */
struct gl_track_shard gl_track_shards[GL_TRACK_SHARDS] = {[0 ... GL_TRACK_SHARDS - 1] = {.lock = GL_LOCK_INIT(SHARD)}};
_Static_assert(GL_TRACK_SHARDS == 1 << GL_STAMP_SHARD_BITS, "a stamp names its shard");

static uint64_t key_hash(uint32_t space, uint64_t addr)
{
    uint64_t h = (addr ^ ((uint64_t)space << 61)) * 0x9e3779b97f4a7c15u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    return h ^ (h >> 32);
}

/* A key's hash picks its shard (low bits) and its bucket there (the rest):
 * computed once an event. */
static struct gl_track_shard *shard_of(uint64_t hash) { return &gl_track_shards[hash % GL_TRACK_SHARDS]; }

static size_t bucket_of(uint64_t hash, size_t nbuckets) { return (hash / GL_TRACK_SHARDS) & (nbuckets - 1); }

/* ---- the live table (caller holds the shard's lock) ---------------------- */

static struct gl_live *rec_new(struct gl_track_shard *sh)
{
    struct gl_live *r = sh->free_list;
    if (r != NULL) {
        sh->free_list = r->next;
        return r;
    }
    if (sh->slabs == NULL || sh->slabs->used == GL_TRACK_SLAB_RECORDS) {
        struct gl_track_slab *s = sh->spare;
        if (s != NULL)
            sh->spare = s->next;
        else if ((s = malloc(sizeof *s)) == NULL)
            return NULL;
        s->used = 0;
        s->next = sh->slabs;
        sh->slabs = s;
    }
    r = &sh->slabs->recs[sh->slabs->used++];
    return r;
}

static void rec_free(struct gl_track_shard *sh, struct gl_live *r)
{
    r->state = GL_REC_FREE;
    r->next = sh->free_list;
    sh->free_list = r;
}

/* The link that points at the record for (space, addr), whose key_hash is
 * hash, or at the NULL that ends its chain; NULL if the shard has no table
 * yet. */
static struct gl_live **table_link(struct gl_track_shard *sh, uint64_t hash, uint32_t space, uint64_t addr)
{
    if (sh->nbuckets == 0)
        return NULL;
    struct gl_live **link = &sh->buckets[bucket_of(hash, sh->nbuckets)];
    while (*link != NULL && ((*link)->addr != addr || (*link)->space != space))
        link = &(*link)->next;
    return link;
}

static void table_grow(struct gl_track_shard *sh)
{
    size_t n = sh->nbuckets ? sh->nbuckets * 2 : 256;
    struct gl_live **b = calloc(n, sizeof *b);
    if (b == NULL)
        return; /* keep the old table: longer chains, still correct */
    for (size_t i = 0; i < sh->nbuckets; i++) {
        struct gl_live *r = sh->buckets[i], *next;
        for (; r != NULL; r = next) {
            next = r->next;
            struct gl_live **head = &b[bucket_of(key_hash(r->space, r->addr), n)];
            r->next = *head;
            *head = r;
        }
    }
    free(sh->buckets);
    sh->buckets = b;
    sh->nbuckets = n;
}

/* Links r (not in the table) in, first in its chain; hash: its key's. */
static void table_add(struct gl_track_shard *sh, uint64_t hash, struct gl_live *r)
{
    struct gl_live **head = &sh->buckets[bucket_of(hash, sh->nbuckets)];
    r->next = *head;
    *head = r;
    r->state = GL_REC_LIVE;
    sh->count++;
}

static struct gl_live *table_unlink(struct gl_track_shard *sh, struct gl_live **link)
{
    struct gl_live *r = *link;
    *link = r->next;
    r->next = NULL;
    sh->count--;
    return r;
}

static uint64_t now_ns(void) { return gl_mono_ns() - gl_start_mono_ns; }

/* The tick of this thread's last stamp: its events' stamps increase too. */
static GL_TLS uint64_t thread_tick;
/* Set when an event left this thread's lane wanting a merge (events.h). */
static GL_TLS bool merge_wanted;

static uint64_t next_tick(uint64_t floor)
{
    uint64_t t = now_ns();
    if (t <= floor)
        t = floor + 1;
    if (t <= thread_tick)
        t = thread_tick + 1;
    thread_tick = t;
    return t;
}

/* An event's stamp on a record of sh, whose lock the caller holds (or the
 * exclusive section): strictly after every other event of the shard, so
 * one address's events keep their order. */
static uint64_t shard_stamp(struct gl_track_shard *sh)
{
    sh->last_tick = next_tick(sh->last_tick);
    return gl_stamp(sh->last_tick, (unsigned)(sh - gl_track_shards));
}

/* An event on no record (OOM, marks): ordered with its thread's only. */
static uint64_t mark_stamp(void) { return gl_stamp(next_tick(0), GL_STAMP_MARK_SHARD); }

/* Appends e to the lane's events, noting whether a merge is due. */
static void event_add(struct gl_lane *lane, const struct gl_event *e)
{
    if (gl_lane_event_add(&lane->events, e))
        merge_wanted = true;
}

/* Leaves the lane, then merges if an event asked for it. */
static void lane_leave(struct gl_lane *lane)
{
    gl_lane_leave(lane);
    if (__builtin_expect(merge_wanted, 0)) {
        merge_wanted = false;
        gl_events_merge(gl_track_number_records);
    }
}

static void exclusive_leave(void)
{
    /* In the section a merge is direct: every lane is held. */
    if (merge_wanted) {
        merge_wanted = false;
        gl_events_merge_held(gl_track_number_records);
    }
    gl_exclusive_leave();
}

/* Appends r's event to the lane's events; the caller is in its lane.
 * stamp: the event's (shard_stamp).  free_stack: a FREE event's own stack
 * id, or 0; table: an ALLOC event's record in the table, numbered by the
 * merger. */
static void history_of(struct gl_lane *lane, const struct gl_live *r, uint16_t type, uint64_t stamp,
                       uint64_t time_ns, uint32_t free_stack, const struct gl_live *table)
{
    /* written where the lane keeps it: no copy */
    struct gl_event *e = gl_lane_event_slot(&lane->events);
    if (e == NULL) {
        merge_wanted |= gl_lane_event_lost_wants_merge(&lane->events);
        return;
    }
    *e = (struct gl_event){
        .seq = stamp, .time_ns = time_ns, .ptr = r->addr, .size = r->size,
        .stream = r->stream, .stack_id = r->stack ? r->stack->id : 0, .device = r->device,
        .type = type, .kind = r->kind, .api = r->api,
        .free_stack_id = type == GL_EV_ALLOC ? (uintptr_t)table : free_stack,
    };
    if (gl_lane_event_commit(&lane->events))
        merge_wanted = true;
}

void gl_track_number_records(struct gl_numbered *nr, size_t n, struct gl_numbered *tmp)
{
    /* Grouped by shard (a counting sort on the stamp's low bits), so that a
     * merge takes each shard's lock once, not once per allocation. */
    size_t start[GL_TRACK_SHARDS + 1] = {0};
    for (size_t i = 0; i < n; i++)
        start[(nr[i].stamp & (GL_TRACK_SHARDS - 1)) + 1]++;
    for (int s = 0; s < GL_TRACK_SHARDS; s++)
        start[s + 1] += start[s];
    size_t at[GL_TRACK_SHARDS];
    memcpy(at, start, sizeof at);
    for (size_t i = 0; i < n; i++)
        tmp[at[nr[i].stamp & (GL_TRACK_SHARDS - 1)]++] = nr[i];
    for (int s = 0; s < GL_TRACK_SHARDS; s++) {
        if (start[s] == start[s + 1])
            continue;
        gl_lock(&gl_track_shards[s].lock);
        for (size_t i = start[s]; i < start[s + 1]; i++) {
            struct gl_live *r = tmp[i].rec;
            /* Still the allocation the event was of: not freed, nor its
             * slot reused. */
            if (r->state == GL_REC_LIVE && r->seq == (tmp[i].stamp | GL_SEQ_STAMP))
                r->seq = tmp[i].number;
        }
        gl_unlock(&gl_track_shards[s].lock);
    }
}

static struct gl_acct_event acct_event(const struct gl_live *r)
{
    return (struct gl_acct_event){.stack = r->stack, .size = r->size, .seq = r->seq,
                                  .time_ns = r->time_ns, .device = r->device, .kind = r->kind};
}

/* What table_put stamped: the stale record's FREE, the ALLOC, and the
 * record as linked (for the merger to number). */
struct put_stamps {
    uint64_t free_stamp, free_time, alloc_stamp, alloc_time;
    const struct gl_live *linked;
};

/* Links a copy of rec into the table; a stale record with the same key (its
 * free was never seen, e.g. memory released by a context teardown we do not
 * model) is unlinked and copied to *old.  Stamps are taken here, under the
 * shard's lock, in the order of the events: the stale record's free, then
 * the allocation's, so that a replay of the history frees the old record
 * before it sees the new one.  A new allocation's seq and time are its
 * ALLOC's stamp and tick; a restored one keeps its number (or, if the merger
 * has not numbered it yet, takes its new ALLOC's stamp).  False if out of
 * host memory: the record is lost, never the program. */
static bool table_put(struct gl_live *rec, bool is_new, struct gl_live *old, bool *had_old,
                      struct put_stamps *ps)
{
    uint64_t hash = key_hash(rec->space, rec->addr);
    struct gl_track_shard *sh = shard_of(hash);
    bool added = false;
    *had_old = false;
    gl_lock(&sh->lock);
    if (sh->count >= 2 * sh->nbuckets)
        table_grow(sh);
    struct gl_live **link = table_link(sh, hash, rec->space, rec->addr);
    if (link != NULL && *link != NULL) {
        struct gl_live *o = table_unlink(sh, link);
        *old = *o;
        *had_old = true;
        ps->free_stamp = shard_stamp(sh);
        ps->free_time = sh->last_tick;
        rec_free(sh, o);
    }
    ps->alloc_stamp = shard_stamp(sh);
    ps->alloc_time = sh->last_tick;
    if (is_new)
        rec->time_ns = sh->last_tick;
    if (is_new || (rec->seq & GL_SEQ_STAMP))
        rec->seq = ps->alloc_stamp | GL_SEQ_STAMP;
    /* no table (and no memory for one): the record is lost */
    struct gl_live *r = link != NULL ? rec_new(sh) : NULL;
    ps->linked = NULL;
    if (r != NULL) {
        *r = *rec;
        table_add(sh, hash, r);
        added = true;
        ps->linked = r;
    }
    gl_unlock(&sh->lock);
    return added;
}

/* Puts rec (a new allocation, or a restored one whose free failed) in the
 * table and accounts it, in the caller's lane or, when the accounting says
 * so, in the exclusive section.  The caller holds nothing. */
static void put_and_account(struct gl_live *rec, bool is_new)
{
    struct gl_acct_event ev = acct_event(rec);
    struct gl_lane *lane = gl_lane_enter();
    struct gl_acct_ticket t = gl_acct_alloc_begin(&lane->acct, &ev);
    bool exclusive = t.mode == GL_ACCT_EXCLUSIVE;
    if (exclusive) {
        lane_leave(lane);
        gl_exclusive_enter();
        gl_acct_revoke_all();
        lane = gl_lane_current();
        t = gl_acct_alloc_begin(&lane->acct, &ev); /* no credit is out: never EXCLUSIVE */
    }
    /* Zeroed, though table_put fills what had_old says is there: compiled
     * across files, GCC cannot see that and warns. */
    struct gl_live old = {0};
    bool had_old;
    struct put_stamps ps = {0};
    bool added = table_put(rec, is_new, &old, &had_old, &ps);
    /* the call counts: an allocation, or the undoing of a failed free's */
    if (is_new)
        gl_stack_tally_alloc(&lane->tally, rec->stack, rec->size, rec->api, rec->kind);
    else
        gl_stack_tally_free(&lane->tally, rec->stack, -1);
    ev.seq = rec->seq;
    ev.time_ns = rec->time_ns;
    struct gl_acct_event stale = had_old ? acct_event(&old) : ev;
    gl_acct_alloc_end(&lane->acct, t, added ? &ev : NULL, had_old ? &stale : NULL, is_new);
    if (had_old) {
        if (!gl_acct_same_device(t, &stale))
            gl_acct_free(&lane->acct, &stale);
        history_of(lane, &old, GL_EV_FREE, ps.free_stamp, ps.free_time, 0, NULL);
    }
    if (added)
        history_of(lane, rec, GL_EV_ALLOC, ps.alloc_stamp, ps.alloc_time, 0,
                   (rec->seq & GL_SEQ_STAMP) ? ps.linked : NULL);
    if (exclusive)
        exclusive_leave();
    else
        lane_leave(lane);
}

void gl_track_alloc(const struct gl_alloc_info *info, struct gl_stack *stack)
{
    struct gl_live rec = {
        .addr = info->addr, .size = info->size, /* .seq, .time_ns: table_put's stamp */
        .stream = info->stream, .ctx = info->ctx, .stack = stack,
        .device = info->device, .owner = info->owner, .kind = (uint8_t)info->kind,
        .api = (uint8_t)info->api, .space = (uint8_t)info->space,
    };
    put_and_account(&rec, true);
}

/* The record of the free in progress on this thread.  A hook takes at most
 * one record at a time (take, real free, release or restore), so one copy
 * per thread is enough, and the record's slot goes back to its shard at once:
 * a free costs one pass through the locks, not two. */
static GL_TLS struct gl_live taken;

struct gl_live *gl_track_take(uint32_t space, uint64_t addr, uint32_t free_stack)
{
    uint64_t hash = key_hash(space, addr);
    struct gl_track_shard *sh = shard_of(hash);
    bool found = false;
    uint64_t stamp = 0;
    struct gl_lane *lane = gl_lane_enter();
    gl_lock(&sh->lock);
    struct gl_live **link = table_link(sh, hash, space, addr);
    if (link != NULL && *link != NULL) {
        struct gl_live *r = table_unlink(sh, link);
        taken = *r;
        taken.state = GL_REC_TAKEN;
        rec_free(sh, r);
        found = true;
        stamp = shard_stamp(sh);
    }
    uint64_t tick = sh->last_tick;
    gl_unlock(&sh->lock);
    if (found) {
        struct gl_acct_event ev = acct_event(&taken);
        gl_acct_free(&lane->acct, &ev);
        gl_stack_tally_free(&lane->tally, taken.stack, 1);
        history_of(lane, &taken, GL_EV_FREE, stamp, tick, free_stack, NULL);
    }
    lane_leave(lane);
    return found ? &taken : NULL;
}

/* Reads one record under its shard's lock: no lane needed, nothing changes. */
int gl_track_kind_of(uint32_t space, uint64_t addr)
{
    uint64_t hash = key_hash(space, addr);
    struct gl_track_shard *sh = shard_of(hash);
    int kind = -1;
    gl_lock(&sh->lock);
    struct gl_live **link = table_link(sh, hash, space, addr);
    if (link != NULL && *link != NULL)
        kind = (*link)->kind;
    gl_unlock(&sh->lock);
    return kind;
}

void gl_track_restore(struct gl_live *saved)
{
    struct gl_live rec = *saved;
    rec.state = GL_REC_LIVE;
    put_and_account(&rec, false);
}

void gl_track_unknown_free(int32_t device)
{
    struct gl_lane *lane = gl_lane_enter();
    gl_acct_unknown_free(device);
    gl_lane_leave(lane);
}

struct gl_watch_oom gl_track_oom_ring[GL_WATCH_OOMS];
_Atomic uint64_t gl_track_oom_next;

void gl_track_failed(const struct gl_oom_info *oom, struct gl_stack *stack)
{
    struct gl_event e = {
        .size = oom->size, .stream = oom->stream,
        .stack_id = stack ? stack->id : 0, .device = oom->device, .type = GL_EV_OOM,
        .kind = oom->kind, .api = oom->api, .mem_free = oom->mem_free, .mem_total = oom->mem_total,
    };
    struct gl_lane *lane = gl_lane_enter();
    e.seq = mark_stamp();
    e.time_ns = thread_tick;
    gl_acct_failed(oom->device);
    event_add(lane, &e);
    /* For the live view: inside the lane, so a reader in the exclusive
     * section sees whole entries. */
    uint64_t n = atomic_fetch_add_explicit(&gl_track_oom_next, 1, memory_order_relaxed);
    gl_track_oom_ring[n % GL_WATCH_OOMS] = (struct gl_watch_oom){
        .time_ns = e.time_ns, .size = oom->size, .device = oom->device, .stack = stack};
    lane_leave(lane);
}

void gl_track_mark(uint16_t type, uint64_t ptr, uint64_t size)
{
    struct gl_event e = {.ptr = ptr, .size = size, .device = -1, .type = type};
    struct gl_lane *lane = gl_lane_enter();
    e.seq = mark_stamp();
    e.time_ns = thread_tick;
    event_add(lane, &e);
    lane_leave(lane);
}

void gl_track_configure_history(size_t max_entries)
{
    gl_exclusive_enter();
    gl_events_merge_held(gl_track_number_records); /* into the ring it replaces: dropped with it */
    gl_history_configure(max_entries);
    gl_exclusive_leave();
}

/* What a context owns.  CUDA documents (cuCtxDestroy, cudaDeviceReset) that
 * stream-ordered allocations and cuMemCreate memory "are not associated with
 * any CUDA context" and survive its teardown; so do, by the same reasoning,
 * what other processes share of those: pool pointers imported from another
 * process's pool, VMM handles imported and the mappings made of them.
 * Everything else made in a context goes with it (cuIpcOpenMemHandle
 * mappings too). */
static bool from_pool(uint16_t api)
{
    return api == GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC || api == GL_API_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ ||
           api == GL_API_CUDA_MALLOC_FROM_POOL_ASYNC || api == GL_API_CUDA_MALLOC_FROM_POOL_ASYNC_PTSZ;
}

static bool context_owned(const struct gl_live *r)
{
    /* from_pool: stream-ordered memory of kind managed (a managed pool's) */
    if (r->kind == GL_KIND_POOL || r->kind == GL_KIND_VIRTUAL || r->space == GL_SPACE_VMM ||
        r->space == GL_SPACE_VMM_IMPORT || r->space == GL_SPACE_POOL || from_pool(r->api))
        return false;
    /* libraries are context-independent; modules are their context's */
    if (r->api == GL_API_CU_LIBRARY_LOAD_DATA || r->api == GL_API_CU_LIBRARY_LOAD_FROM_FILE)
        return false;
    return !(r->kind == GL_KIND_IPC && (r->api == GL_API_CU_MEM_MAP || r->api == GL_API_CU_MEM_POOL_IMPORT_POINTER ||
                                        r->api == GL_API_CUDA_MEM_POOL_IMPORT_POINTER));
}

size_t gl_track_drop_context(int32_t owner, uint64_t ctx, uint16_t teardown_api)
{
    size_t dropped = 0;
    /* Exclusive: a teardown is rare and must not race with frees of the
     * same records on other threads.  With every lane flushed, the frees are
     * accounted on the devices directly (through an accounting with no
     * credit). */
    gl_exclusive_enter();
    gl_acct_revoke_all();
    struct gl_lane_acct none = {0};
    struct gl_lane *lane = gl_lane_current(); /* held by the section */
    for (int i = 0; i < GL_TRACK_SHARDS; i++) {
        struct gl_track_shard *sh = &gl_track_shards[i];
        for (size_t b = 0; b < sh->nbuckets; b++) {
            struct gl_live **link = &sh->buckets[b];
            while (*link != NULL) {
                struct gl_live *r = *link;
                if ((owner != GL_ANY_OWNER && r->owner != owner) || r->ctx != ctx || !context_owned(r)) {
                    link = &r->next;
                    continue;
                }
                table_unlink(sh, link);
                struct gl_acct_event ev = acct_event(r);
                gl_acct_free(&none, &ev);
                uint64_t stamp = shard_stamp(sh), t = sh->last_tick;
                history_of(lane, r, GL_EV_FREE, stamp, t, 0, NULL);
                if (merge_wanted) { /* a teardown may free more than a lane holds */
                    merge_wanted = false;
                    gl_events_merge_held(gl_track_number_records);
                }
                /* never freed by the program: a leak until this teardown
                 * (a module is not: a context's end is how modules usually go) */
                if (r->kind != GL_KIND_MODULE)
                    gl_teardown_note(r->stack ? r->stack->id : 0, r->device, r->kind, r->api, r->size, teardown_api, t);
                rec_free(sh, r);
                dropped++;
            }
        }
    }
    gl_exclusive_leave();
    return dropped;
}
