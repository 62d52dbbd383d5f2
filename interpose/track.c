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

struct shard {
    pthread_mutex_t lock;
    struct gl_record *head;
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

static struct shard *shard_of(uint32_t space, uint64_t addr)
{
    /* Device allocations are at least 512-byte aligned: drop the low bits. */
    uint64_t h = (addr >> 9) ^ (addr >> 21) ^ ((uint64_t)space * 0x9e3779b97f4a7c15u);
    h ^= h >> 29;
    return &shards[h % SHARDS];
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

static void account_alloc(const struct gl_record *r, bool is_new)
{
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
        .seq = seq, .time_ns = time_ns, .ptr = r->key.addr, .size = r->size,
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

/* Inserts r; a stale record with the same key (its free was never seen, e.g.
 * memory released by a context teardown we do not model) is replaced. */
static void insert(struct gl_record *r)
{
    struct shard *sh = shard_of(r->key.space, r->key.addr);
    struct gl_record *old = NULL;
    pthread_mutex_lock(&sh->lock);
    HASH_FIND(hh, sh->head, &r->key, sizeof r->key, old);
    if (old != NULL)
        HASH_DEL(sh->head, old);
    gl_ut_oom = false;
    HASH_ADD(hh, sh->head, key, sizeof r->key, r);
    bool added = !gl_ut_oom;
    pthread_mutex_unlock(&sh->lock);
    if (old != NULL) {
        account_free(old);
        history_of(old, GL_EV_FREE, take_seq(), r->time_ns);
        free(old);
    }
    if (added) {
        account_alloc(r, true);
        history_of(r, GL_EV_ALLOC, r->seq, r->time_ns);
    } else {
        free(r);
    }
}

void gl_track_alloc(const struct gl_alloc_info *info, struct gl_stack *stack)
{
    struct gl_record *r = malloc(sizeof *r);
    if (r == NULL)
        return; /* out of host memory: lose this record, never the program */
    memset(&r->key, 0, sizeof r->key);
    r->key.addr = info->addr;
    r->key.space = info->space;
    r->size = info->size;
    r->seq = take_seq();
    r->time_ns = now_ns();
    r->stream = info->stream;
    r->stack = stack;
    r->ctx = info->ctx;
    r->owner = info->owner;
    r->device = info->device;
    r->kind = info->kind;
    r->api = info->api;
    r->tid = track_tid();
    gate_read();
    insert(r);
    gate_unlock();
}

struct gl_record *gl_track_take(uint32_t space, uint64_t addr)
{
    struct gl_key key;
    memset(&key, 0, sizeof key);
    key.addr = addr;
    key.space = space;
    struct shard *sh = shard_of(space, addr);
    struct gl_record *r;
    gate_read();
    pthread_mutex_lock(&sh->lock);
    HASH_FIND(hh, sh->head, &key, sizeof key, r);
    if (r != NULL)
        HASH_DEL(sh->head, r);
    pthread_mutex_unlock(&sh->lock);
    if (r != NULL) {
        account_free(r);
        history_of(r, GL_EV_FREE, take_seq(), now_ns());
    }
    gate_unlock();
    return r;
}

void gl_track_release(struct gl_record *r) { free(r); }

void gl_track_restore(struct gl_record *r)
{
    struct shard *sh = shard_of(r->key.space, r->key.addr);
    gate_read();
    pthread_mutex_lock(&sh->lock);
    gl_ut_oom = false;
    HASH_ADD(hh, sh->head, key, sizeof r->key, r);
    bool added = !gl_ut_oom;
    pthread_mutex_unlock(&sh->lock);
    if (added) {
        struct device *d = device_of(r->device);
        account_alloc(r, false);
        pthread_mutex_lock(&d->lock);
        d->free_count--; /* the free did not happen after all */
        pthread_mutex_unlock(&d->lock);
        history_of(r, GL_EV_ALLOC, take_seq(), now_ns());
    } else {
        free(r);
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
        struct gl_record *r, *tmp;
        HASH_ITER(hh, shards[i].head, r, tmp) {
            if ((owner != GL_ANY_OWNER && r->owner != owner) || r->ctx != ctx ||
                (keep_kinds & (1u << r->kind)))
                continue;
            HASH_DEL(shards[i].head, r);
            account_free(r);
            history_of(r, GL_EV_FREE, take_seq(), now_ns());
            free(r);
            dropped++;
        }
    }
    pthread_rwlock_unlock(&gate);
    return dropped;
}

bool gl_track_copy(struct gl_state_copy *out)
{
    memset(out, 0, sizeof *out);
    pthread_once(&gate_once, init_locks);
    pthread_rwlock_wrlock(&gate);

    size_t nallocs = 0, npeaks = 0;
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        nallocs += devices[i].live_count;
        npeaks += HASH_COUNT(devices[i].sites);
    }
    out->allocs = malloc((nallocs ? nallocs : 1) * sizeof *out->allocs);
    out->peaks = malloc((npeaks ? npeaks : 1) * sizeof *out->peaks);
    if (out->allocs == NULL || out->peaks == NULL) {
        pthread_rwlock_unlock(&gate);
        gl_state_copy_free(out);
        return false;
    }

    size_t n = 0;
    for (int i = 0; i < SHARDS; i++) {
        for (struct gl_record *r = shards[i].head; r != NULL && n < nallocs; r = r->hh.next) {
            struct gl_alloc_copy *a = &out->allocs[n++];
            a->ptr = r->key.addr;
            a->size = r->size;
            a->seq = r->seq;
            a->time_ns = r->time_ns;
            a->stream = r->stream;
            a->stack_id = r->stack ? r->stack->id : 0;
            a->device = r->device;
            a->kind = r->kind;
            a->api = r->api;
            a->tid = r->tid;
        }
    }
    out->nallocs = n;

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
    out->events = gl_history_copy(&out->nevents);
    out->stacks = gl_stacks_newest(&out->nstacks);
    pthread_rwlock_unlock(&gate);
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
        struct gl_record *r, *tmp;
        HASH_ITER(hh, shards[i].head, r, tmp) {
            HASH_DEL(shards[i].head, r);
            free(r);
        }
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
