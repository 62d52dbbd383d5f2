#include "track.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "internal.h"
#include "log.h"
#include "snapshot_format.h"

#define SHARDS 64

_Static_assert(sizeof(struct gl_record) == 80, "a live record is 80 bytes");
_Static_assert(GL_KIND_COUNT <= 256 && GL_API_COUNT <= 256, "kind and api fit in a byte");

enum { GL_REC_FREE = 0, GL_REC_LIVE = 1, GL_REC_TAKEN = 2 };

/* Records are carved from 64 KiB slabs (no per-record malloc header) and
 * recycled through the shard's free list; slabs are kept for reuse.  Each
 * shard's table chains records through ->next from a power-of-two bucket
 * array kept between 1 and 2 records per bucket: 4 to 8 bytes per record. */
#define SLAB_RECORDS ((65536 - 16) / sizeof(struct gl_record))
struct slab {
    struct slab *next;
    size_t used; /* records carved so far */
    struct gl_record recs[SLAB_RECORDS];
};

struct shard {
    pthread_mutex_t lock;
    struct gl_record **buckets;
    size_t nbuckets; /* 0 or a power of two */
    size_t count;
    struct gl_record *free_list;
    struct slab *slabs; /* newest first; only the first has room left */
} __attribute__((aligned(64))); /* one cache line each: no false sharing */

/* Live bytes of one stack on one device, for the peak composition.
 *
 * The composition at the peak is kept online in O(1) per event: when a device
 * reaches a new peak it bumps peak_epoch, which implicitly says "every site's
 * live value is its value at the peak".  The first time a site changes after
 * that, it saves its live value into at_peak_* and tags itself with the epoch.
 * So a site's value at the peak is at_peak_* if its epoch is current, else its
 * live value.  No rescan of the table, ever. */
struct site {
    struct gl_stack *stack; /* key */
    uint64_t live_bytes, live_count;
    uint64_t at_peak_bytes, at_peak_count;
    uint64_t epoch;
    UT_hash_handle hh;
};

struct device {
    pthread_mutex_t lock;
    bool used;
    uint64_t live_bytes, live_count, peak_bytes, peak_seq, peak_time_ns;
    uint64_t alloc_count, free_count, alloc_bytes_total, failed_count, unknown_free_count;
    uint64_t peak_epoch;
    struct site *sites;
} __attribute__((aligned(64)));

static pthread_rwlock_t gate;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static struct shard shards[SHARDS];
static struct device devices[GL_MAX_DEVICES + 1]; /* [0] is the host */
static _Atomic uint64_t next_seq = 1;

static void init_locks(void)
{
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&gate, &attr);
    pthread_rwlockattr_destroy(&attr);
    for (int i = 0; i < SHARDS; i++)
        pthread_mutex_init(&shards[i].lock, NULL);
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        pthread_mutex_init(&devices[i].lock, NULL);
        devices[i].peak_epoch = 1;
    }
}

static void gate_read(void)
{
    pthread_once(&gate_once, init_locks);
    pthread_rwlock_rdlock(&gate);
}

static void gate_unlock(void) { pthread_rwlock_unlock(&gate); }

static uint64_t key_hash(uint32_t space, uint64_t addr)
{
    uint64_t h = (addr ^ ((uint64_t)space << 61)) * 0x9e3779b97f4a7c15u;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9u;
    return h ^ (h >> 32);
}

static struct shard *shard_of(uint32_t space, uint64_t addr)
{
    return &shards[key_hash(space, addr) % SHARDS];
}

/* ---- the live table (caller holds the shard's lock) ---------------------- */

static struct gl_record *rec_new(struct shard *sh)
{
    struct gl_record *r = sh->free_list;
    if (r != NULL) {
        sh->free_list = r->next;
        return r;
    }
    if (sh->slabs == NULL || sh->slabs->used == SLAB_RECORDS) {
        struct slab *s = malloc(sizeof *s);
        if (s == NULL)
            return NULL;
        s->used = 0;
        s->next = sh->slabs;
        sh->slabs = s;
    }
    r = &sh->slabs->recs[sh->slabs->used++];
    return r;
}

static void rec_free(struct shard *sh, struct gl_record *r)
{
    r->state = GL_REC_FREE;
    r->next = sh->free_list;
    sh->free_list = r;
}

/* The link that points at the record for (space, addr), or at the NULL that
 * ends its chain; NULL if the shard has no table yet. */
static struct gl_record **table_link(struct shard *sh, uint32_t space, uint64_t addr)
{
    if (sh->nbuckets == 0)
        return NULL;
    struct gl_record **link = &sh->buckets[(key_hash(space, addr) / SHARDS) & (sh->nbuckets - 1)];
    while (*link != NULL && ((*link)->addr != addr || (*link)->space != space))
        link = &(*link)->next;
    return link;
}

static void table_grow(struct shard *sh)
{
    size_t n = sh->nbuckets ? sh->nbuckets * 2 : 256;
    struct gl_record **b = calloc(n, sizeof *b);
    if (b == NULL)
        return; /* keep the old table: longer chains, still correct */
    for (size_t i = 0; i < sh->nbuckets; i++) {
        struct gl_record *r = sh->buckets[i], *next;
        for (; r != NULL; r = next) {
            next = r->next;
            struct gl_record **head = &b[(key_hash(r->space, r->addr) / SHARDS) & (n - 1)];
            r->next = *head;
            *head = r;
        }
    }
    free(sh->buckets);
    sh->buckets = b;
    sh->nbuckets = n;
}

/* Links r (not in the table) in; false if there is no table and no memory. */
static bool table_add(struct shard *sh, struct gl_record *r)
{
    if (sh->count >= 2 * sh->nbuckets)
        table_grow(sh);
    if (sh->nbuckets == 0)
        return false;
    struct gl_record **head = &sh->buckets[(key_hash(r->space, r->addr) / SHARDS) & (sh->nbuckets - 1)];
    r->next = *head;
    *head = r;
    r->state = GL_REC_LIVE;
    sh->count++;
    return true;
}

static struct gl_record *table_unlink(struct shard *sh, struct gl_record **link)
{
    struct gl_record *r = *link;
    *link = r->next;
    r->next = NULL;
    sh->count--;
    return r;
}

static struct device *device_of(int32_t dev)
{
    static atomic_bool warned;
    if (dev < GL_HOST_DEVICE || dev >= GL_MAX_DEVICES) {
        gl_warn_once(&warned, "device ordinal %d out of range; counting it as device 0", (int)dev);
        dev = 0;
    }
    return &devices[dev + 1];
}

static struct site *site_of(struct device *d, struct gl_stack *stack)
{
    struct site *s;
    HASH_FIND_PTR(d->sites, &stack, s);
    if (s == NULL) {
        s = calloc(1, sizeof *s);
        if (s == NULL)
            return NULL;
        s->stack = stack;
        gl_ut_oom = false;
        HASH_ADD_PTR(d->sites, stack, s);
        if (gl_ut_oom) {
            free(s);
            return NULL;
        }
    }
    return s;
}

/* Called with d->lock held, before the site's live value changes. */
static void site_touch(struct device *d, struct site *s)
{
    if (s->epoch != d->peak_epoch) {
        s->at_peak_bytes = s->live_bytes;
        s->at_peak_count = s->live_count;
        s->epoch = d->peak_epoch;
    }
}

/* Device counters and peaks are this process's memory: a mapping of another
 * process's memory (kind ipc) is in the table and the history, not here. */
static bool on_device(const struct gl_record *r) { return !gl_kind_is_mapping(r->kind); }

static void account_alloc(const struct gl_record *r, bool is_new)
{
    if (!on_device(r))
        return;
    struct device *d = device_of(r->device);
    pthread_mutex_lock(&d->lock);
    d->used = true;
    struct site *s = site_of(d, r->stack);
    if (s != NULL) {
        site_touch(d, s);
        s->live_bytes += r->size;
        s->live_count++;
    }
    d->live_bytes += r->size;
    d->live_count++;
    if (is_new) {
        d->alloc_count++;
        d->alloc_bytes_total += r->size;
    }
    if (d->live_bytes > d->peak_bytes) {
        d->peak_bytes = d->live_bytes;
        d->peak_seq = r->seq;
        d->peak_time_ns = r->time_ns;
        d->peak_epoch++;
    }
    pthread_mutex_unlock(&d->lock);
}

static void account_free(const struct gl_record *r)
{
    if (!on_device(r))
        return;
    struct device *d = device_of(r->device);
    pthread_mutex_lock(&d->lock);
    struct site *s = site_of(d, r->stack);
    if (s != NULL) {
        site_touch(d, s);
        s->live_bytes -= r->size;
        s->live_count--;
    }
    d->live_bytes -= r->size;
    d->live_count--;
    d->free_count++;
    pthread_mutex_unlock(&d->lock);
}

/* Appends r's event to the history; the caller holds the gate. */
static void history_of(const struct gl_record *r, uint16_t type, uint64_t seq, uint64_t time_ns)
{
    struct gl_event e = {
        .seq = seq, .time_ns = time_ns, .ptr = r->addr, .size = r->size,
        .stream = r->stream, .stack_id = r->stack ? r->stack->id : 0, .device = r->device,
        .type = type, .kind = r->kind, .api = r->api,
    };
    gl_history_add(&e);
}

static uint64_t now_ns(void) { return gl_mono_ns() - gl_start_mono_ns; }

/* The thread id, cached per thread.  gl_gettid() re-checks getpid() on every
 * call to notice a fork, and getpid() is a system call (~100 ns, the largest
 * fixed cost per allocation); here the fork child's only thread -- the one
 * that forked, whose TLS this is -- clears the cache in
 * gl_track_postfork_child() instead. */
static GL_TLS uint32_t cached_tid;
static uint32_t track_tid(void)
{
    if (cached_tid == 0)
        cached_tid = gl_gettid();
    return cached_tid;
}
static uint64_t take_seq(void) { return atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed); }

void gl_track_alloc(const struct gl_alloc_info *info, struct gl_stack *stack)
{
    struct gl_record rec = {
        .addr = info->addr, .size = info->size, .seq = take_seq(), .time_ns = now_ns(),
        .stream = info->stream, .ctx = info->ctx, .stack = stack, .tid = track_tid(),
        .device = info->device, .owner = info->owner, .kind = (uint8_t)info->kind,
        .api = (uint8_t)info->api, .space = (uint8_t)info->space,
    };
    struct shard *sh = shard_of(info->space, info->addr);
    struct gl_record old;
    bool had_old = false, added = false;
    gate_read();
    pthread_mutex_lock(&sh->lock);
    /* A stale record with the same key (its free was never seen, e.g. memory
     * released by a context teardown we do not model) is replaced. */
    struct gl_record **link = table_link(sh, rec.space, rec.addr);
    if (link != NULL && *link != NULL) {
        struct gl_record *o = table_unlink(sh, link);
        old = *o;
        had_old = true;
        rec_free(sh, o);
    }
    struct gl_record *r = rec_new(sh);
    if (r != NULL) {
        *r = rec;
        added = table_add(sh, r);
        if (!added)
            rec_free(sh, r); /* out of host memory: lose this record, never the program */
    }
    pthread_mutex_unlock(&sh->lock);
    if (had_old) {
        account_free(&old);
        history_of(&old, GL_EV_FREE, take_seq(), rec.time_ns);
    }
    if (added) {
        account_alloc(&rec, true);
        history_of(&rec, GL_EV_ALLOC, rec.seq, rec.time_ns);
    }
    gate_unlock();
}

/* The record of the free in progress on this thread.  A hook takes at most
 * one record at a time (take, real free, release or restore), so one copy
 * per thread is enough, and the record's slot goes back to its shard at once:
 * a free costs one pass through the locks, not two. */
static GL_TLS struct gl_record taken;

struct gl_record *gl_track_take(uint32_t space, uint64_t addr)
{
    struct shard *sh = shard_of(space, addr);
    bool found = false;
    gate_read();
    pthread_mutex_lock(&sh->lock);
    struct gl_record **link = table_link(sh, space, addr);
    if (link != NULL && *link != NULL) {
        struct gl_record *r = table_unlink(sh, link);
        taken = *r;
        taken.state = GL_REC_TAKEN;
        rec_free(sh, r);
        found = true;
    }
    pthread_mutex_unlock(&sh->lock);
    if (found) {
        account_free(&taken);
        history_of(&taken, GL_EV_FREE, take_seq(), now_ns());
    }
    gate_unlock();
    return found ? &taken : NULL;
}

int gl_track_kind_of(uint32_t space, uint64_t addr)
{
    struct shard *sh = shard_of(space, addr);
    int kind = -1;
    gate_read();
    pthread_mutex_lock(&sh->lock);
    struct gl_record **link = table_link(sh, space, addr);
    if (link != NULL && *link != NULL)
        kind = (*link)->kind;
    pthread_mutex_unlock(&sh->lock);
    gate_unlock();
    return kind;
}

void gl_track_release(struct gl_record *r)
{
    (void)r; /* its slot went back to the shard when it was taken */
}

void gl_track_restore(struct gl_record *saved)
{
    struct shard *sh = shard_of(saved->space, saved->addr);
    gate_read();
    pthread_mutex_lock(&sh->lock);
    struct gl_record *r = rec_new(sh);
    bool added = false;
    if (r != NULL) {
        *r = *saved;
        added = table_add(sh, r);
        if (!added)
            rec_free(sh, r);
    }
    pthread_mutex_unlock(&sh->lock);
    if (added) {
        struct device *d = device_of(r->device);
        account_alloc(r, false);
        if (on_device(r)) {
            pthread_mutex_lock(&d->lock);
            d->free_count--; /* the free did not happen after all */
            pthread_mutex_unlock(&d->lock);
        }
        history_of(r, GL_EV_ALLOC, take_seq(), now_ns());
    }
    gate_unlock();
}

static void bump(int32_t device, size_t field_offset)
{
    gate_read();
    struct device *d = device_of(device);
    pthread_mutex_lock(&d->lock);
    d->used = true;
    (*(uint64_t *)((char *)d + field_offset))++;
    pthread_mutex_unlock(&d->lock);
    gate_unlock();
}

void gl_track_unknown_free(int32_t device) { bump(device, offsetof(struct device, unknown_free_count)); }

void gl_track_failed(const struct gl_oom_info *oom, struct gl_stack *stack)
{
    bump(oom->device, offsetof(struct device, failed_count));
    struct gl_event e = {
        .seq = take_seq(), .time_ns = now_ns(), .size = oom->size, .stream = oom->stream,
        .stack_id = stack ? stack->id : 0, .device = oom->device, .type = GL_EV_OOM,
        .kind = oom->kind, .api = oom->api, .mem_free = oom->mem_free, .mem_total = oom->mem_total,
    };
    gate_read();
    gl_history_add(&e);
    gate_unlock();
}

void gl_track_mark(uint16_t type, uint64_t ptr, uint64_t size)
{
    struct gl_event e = {.seq = take_seq(), .time_ns = now_ns(), .ptr = ptr, .size = size,
                         .device = -1, .type = type};
    gate_read();
    gl_history_add(&e);
    gate_unlock();
}

void gl_track_configure_history(size_t max_entries)
{
    pthread_once(&gate_once, init_locks);
    pthread_rwlock_wrlock(&gate);
    gl_history_configure(max_entries);
    pthread_rwlock_unlock(&gate);
}

size_t gl_track_drop_context(int32_t owner, uint64_t ctx, unsigned keep_kinds)
{
    size_t dropped = 0;
    pthread_once(&gate_once, init_locks);
    /* Exclusive: a teardown is rare and must not race with frees of the
     * same records on other threads. */
    pthread_rwlock_wrlock(&gate);
    for (int i = 0; i < SHARDS; i++) {
        struct shard *sh = &shards[i];
        for (size_t b = 0; b < sh->nbuckets; b++) {
            struct gl_record **link = &sh->buckets[b];
            while (*link != NULL) {
                struct gl_record *r = *link;
                if ((owner != GL_ANY_OWNER && r->owner != owner) || r->ctx != ctx ||
                    (keep_kinds & (1u << r->kind))) {
                    link = &r->next;
                    continue;
                }
                table_unlink(sh, link);
                account_free(r);
                history_of(r, GL_EV_FREE, take_seq(), now_ns());
                rec_free(sh, r);
                dropped++;
            }
        }
    }
    pthread_rwlock_unlock(&gate);
    return dropped;
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

bool gl_track_copy(struct gl_state_copy *out)
{
    memset(out, 0, sizeof *out);
    pthread_once(&gate_once, init_locks);

    /* The gate is held only for plain memcpy of the slabs (sequential, ~80
     * bytes per record) and the history ring; turning records into
     * gl_alloc_copy entries, which follows a pointer per record, is done
     * after it is released (stacks are immutable, so that is safe).  The
     * buffers are sized and their pages touched before taking the gate:
     * faulting in ~80 MB for 1,000,000 allocations while every allocating
     * thread waits would double the hold.  Slabs can be added before we get
     * the gate, hence the slack and the re-check. */
    size_t slots_guess = 0, hist_room;
    gate_read();
    for (int i = 0; i < SHARDS; i++) {
        pthread_mutex_lock(&shards[i].lock);
        for (const struct slab *sl = shards[i].slabs; sl != NULL; sl = sl->next)
            slots_guess += sl->used;
        pthread_mutex_unlock(&shards[i].lock);
    }
    hist_room = gl_history_capacity();
    gate_unlock();
    size_t room = slots_guess + slots_guess / 16 + SHARDS * 64;
    struct gl_record *raw = malloc(room * sizeof *raw);
    struct gl_event *hist = hist_room ? malloc(hist_room * sizeof *hist) : NULL;
    touch_pages(raw, room * sizeof *raw);
    touch_pages(hist, hist_room * sizeof *hist);

    pthread_rwlock_wrlock(&gate);
    size_t nslots = 0, npeaks = 0;
    for (int i = 0; i < SHARDS; i++)
        for (const struct slab *sl = shards[i].slabs; sl != NULL; sl = sl->next)
            nslots += sl->used;
    for (int i = 0; i <= GL_MAX_DEVICES; i++)
        npeaks += HASH_COUNT(devices[i].sites);
    if (raw != NULL && nslots > room) {
        free(raw);
        raw = NULL;
    }
    if (raw == NULL)
        raw = malloc((nslots ? nslots : 1) * sizeof *raw);
    out->peaks = malloc((npeaks ? npeaks : 1) * sizeof *out->peaks);
    if (raw == NULL || out->peaks == NULL) {
        pthread_rwlock_unlock(&gate);
        free(raw);
        free(hist);
        gl_state_copy_free(out);
        return false;
    }
    size_t k = 0;
    for (int i = 0; i < SHARDS; i++) {
        for (const struct slab *sl = shards[i].slabs; sl != NULL; sl = sl->next) {
            memcpy(raw + k, sl->recs, sl->used * sizeof *raw);
            k += sl->used;
        }
    }

    size_t p = 0;
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        if (!d->used)
            continue;
        struct gl_device_copy *c = &out->devices[out->ndevices++];
        c->device = i - 1;
        c->live_bytes = d->live_bytes;
        c->live_count = d->live_count;
        c->peak_bytes = d->peak_bytes;
        c->peak_seq = d->peak_seq;
        c->peak_time_ns = d->peak_time_ns;
        c->alloc_count = d->alloc_count;
        c->free_count = d->free_count;
        c->alloc_bytes_total = d->alloc_bytes_total;
        c->failed_count = d->failed_count;
        c->unknown_free_count = d->unknown_free_count;
        for (struct site *s = d->sites; s != NULL; s = s->hh.next) {
            bool changed = s->epoch == d->peak_epoch;
            uint64_t bytes = changed ? s->at_peak_bytes : s->live_bytes;
            uint64_t count = changed ? s->at_peak_count : s->live_count;
            if (bytes == 0 && count == 0)
                continue;
            struct gl_peak_copy *pc = &out->peaks[p++];
            pc->device = i - 1;
            pc->stack_id = s->stack ? s->stack->id : 0;
            pc->bytes = bytes;
            pc->count = count;
        }
    }
    out->npeaks = p;
    out->events = gl_history_copy_into(hist, hist_room, &out->nevents);
    out->stacks = gl_stacks_newest(&out->nstacks);
    pthread_rwlock_unlock(&gate);

    /* In place: entry n (56 bytes) never reaches past record k >= n (80
     * bytes), which has already been read. */
    struct gl_alloc_copy *allocs = (struct gl_alloc_copy *)(void *)raw;
    size_t n = 0;
    for (size_t j = 0; j < nslots; j++) {
        struct gl_record r;
        memcpy(&r, &raw[j], sizeof r);
        if (r.state != GL_REC_LIVE)
            continue;
        allocs[n++] = (struct gl_alloc_copy){
            .ptr = r.addr, .size = r.size, .seq = r.seq, .time_ns = r.time_ns, .stream = r.stream,
            .stack_id = r.stack ? r.stack->id : 0, .device = r.device, .kind = r.kind,
            .api = r.api, .tid = r.tid,
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
    c->allocs = NULL;
    c->peaks = NULL;
    c->events = NULL;
}

void gl_track_prefork(void)
{
    pthread_once(&gate_once, init_locks);
    pthread_rwlock_wrlock(&gate);
    gl_stacks_lock();
}

void gl_track_postfork_parent(void)
{
    gl_stacks_unlock();
    pthread_rwlock_unlock(&gate);
}

void gl_track_postfork_child(void)
{
    /* Only this thread exists now, so nothing else can touch the tables
     * while they are emptied.  The parent's device memory is not ours. */
    for (int i = 0; i < SHARDS; i++) {
        struct shard *sh = &shards[i];
        for (struct slab *sl = sh->slabs, *next; sl != NULL; sl = next) {
            next = sl->next;
            free(sl);
        }
        free(sh->buckets);
        sh->slabs = NULL;
        sh->buckets = NULL;
        sh->nbuckets = sh->count = 0;
        sh->free_list = NULL;
    }
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        struct site *s, *tmp;
        HASH_ITER(hh, d->sites, s, tmp) {
            HASH_DEL(d->sites, s);
            free(s);
        }
        memset((char *)d + offsetof(struct device, used), 0,
               sizeof *d - offsetof(struct device, used));
        d->peak_epoch = 1;
    }
    cached_tid = 0;
    gl_stacks_reinit_lock();
    gl_history_postfork_child();
    init_locks();
}
