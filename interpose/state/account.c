#include "state/account.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/log.h"
#include "snapshot_format.h"
#include "state/events.h"
#include "state/lanes.h"

/* Live bytes of one stack on one device, for the peak composition.
 *
 * The composition at the peak is kept online in O(1) per event: when a device
 * reaches a new peak it bumps peak_epoch, which implicitly says "every site's
 * live value is its value at the peak".  The first time a site changes after
 * that, it saves its live value into at_peak_* and tags itself with the epoch.
 * So a site's value at the peak is at_peak_* if its epoch is current, else its
 * live value.  No rescan of the table, ever.  (Lanes apply their local
 * changes through the same path when they flush; a new peak is only ever set
 * with no credit out, i.e. with every lane flushed.) */
struct site {
    const struct gl_stack *stack; /* key */
    uint64_t live_bytes, live_count;
    uint64_t at_peak_bytes, at_peak_count;
    uint64_t epoch;
    UT_hash_handle hh;
};

#define SITE_CACHE 64

struct device {
    struct gl_lock lock;
    bool used;
    uint64_t live_bytes, live_count, peak_bytes, peak_seq, peak_time_ns;
    uint64_t alloc_count, free_count, alloc_bytes_total, failed_count, unknown_free_count;
    uint64_t peak_epoch;
    uint64_t credit_out; /* handed to lanes, not yet given back */
    uint64_t backoff, backoff_left;
    uint64_t allocs_at_revoke; /* alloc_count at the last revocation */
    bool revoke_due;           /* a revocation was asked for: set the backoff once it is done */
    struct site *sites;
    /* The sites last found, by their stack's hash: most events of a device
     * that takes them on its lock (no lane credit) come from a few stacks,
     * and a hit skips uthash's look-up.  Sites are never freed but at fork,
     * which clears this too. */
    struct site *site_cache[SITE_CACHE];
} __attribute__((aligned(64)));

#define DEVICE_INIT {.lock = GL_LOCK_INIT(DEVICE), .peak_epoch = 1}
static struct device devices[GL_MAX_DEVICES + 1] = {[0 ... GL_MAX_DEVICES] = DEVICE_INIT}; /* [0] is the host */

/* Set when a device's peak_seq became a stamp: the merger then looks at the
 * devices, otherwise not (a new peak is rare once a program is warm). */
static atomic_bool peak_stamped;

/* Credit is capped so that sums stay far from overflow. */
#define CREDIT_MAX (UINT64_C(1) << 56)
/* Revocations: after each one no credit is granted for the device's next
 * `backoff` allocations.  A revocation costs an exclusive section (every
 * lane flushed), about as much as BACKOFF_MIN events on the lock.  Lanes
 * that together want more than the headroom take it from each other again
 * as soon as credit is granted: a revocation that comes within
 * REVOKE_AGAIN allocations of the backoff's end doubles it, up to
 * BACKOFF_MAX; one that comes later sets it back to the minimum, however
 * high it was.  Threads that take turns (PyTorch's main thread and its
 * autograd thread: forward, backward, optimizer) revoke at each turn, a
 * hundred allocations or so apart; threads that allocate at once near the
 * peak take the credit back within a few.  Counted
 * in the device's allocations, once every lane's are in
 * (gl_acct_revoke_all), not in time: the same program on a faster or a
 * slower machine, or under valgrind, backs off alike.  (It was time:
 * revocations under a second apart doubled it, so a training step that
 * reached its peak every few ms, or the first steps' new peaks, kept every
 * later event on the lock.) */
#define BACKOFF_MIN 64
#define BACKOFF_MAX 65536
#define REVOKE_AGAIN 32
/* Set when some device's revocation is due (gl_acct_revoke_all looks). */
static atomic_bool any_revoke_due;

static int32_t device_index(int32_t dev)
{
    static atomic_bool warned;
    if (dev < GL_HOST_DEVICE || dev >= GL_MAX_DEVICES) {
        gl_warn_once(&warned, "device ordinal %d out of range; counting it as device 0", (int)dev);
        dev = 0;
    }
    return dev + 1;
}

/* The top `bits` bits of a stack's pointer, mixed: slots in the lanes' and
 * the devices' small tables. */
static unsigned stack_slot(const struct gl_stack *stack, unsigned bits)
{
    return (unsigned)(((uintptr_t)stack * 0x9e3779b97f4a7c15u) >> (64 - bits));
}

static struct site *site_of(struct device *d, const struct gl_stack *stack)
{
    _Static_assert(SITE_CACHE == 64, "6 bits of the hash");
    struct site **cached = &d->site_cache[stack_slot(stack, 6)];
    struct site *s = *cached;
    if (s != NULL && s->stack == stack)
        return s;
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
    *cached = s;
    return s;
}

/* Called with d->lock held: the site's live value changes by (bytes, count). */
static void site_add(struct device *d, const struct gl_stack *stack, int64_t bytes, int64_t count)
{
    struct site *s = site_of(d, stack);
    if (s == NULL)
        return; /* out of host memory: the composition misses it, the totals do not */
    if (s->epoch != d->peak_epoch) {
        s->at_peak_bytes = s->live_bytes;
        s->at_peak_count = s->live_count;
        s->epoch = d->peak_epoch;
    }
    s->live_bytes += (uint64_t)bytes;
    s->live_count += (uint64_t)count;
}

/* ---- the lane's local accounting ---------------------------------------- */

static unsigned site_hash(const struct gl_stack *stack) { return stack_slot(stack, 5); }
_Static_assert(GL_LANE_SITES == 32, "site_hash yields 5 bits");

/* The lane's slot for a stack, made if need be; NULL when the few probes
 * allowed find neither it nor room (the lane then flushes). */
static struct gl_lane_site *lane_site(struct gl_lane_acct *la, const struct gl_stack *stack)
{
    unsigned h = site_hash(stack);
    for (unsigned i = 0; i < 4; i++) {
        struct gl_lane_site *ls = &la->sites[(h + i) % GL_LANE_SITES];
        if (ls->used && ls->stack == stack)
            return ls;
        if (!ls->used) {
            ls->used = true;
            ls->stack = stack;
            la->nsites++;
            return ls;
        }
    }
    return NULL;
}

/* Called with d->lock held. */
static void apply_lane(struct device *d, struct gl_lane_acct *la)
{
    for (unsigned i = 0; la->nsites > 0 && i < GL_LANE_SITES; i++) {
        struct gl_lane_site *ls = &la->sites[i];
        if (ls->used && (ls->bytes != 0 || ls->count != 0))
            site_add(d, ls->stack, ls->bytes, ls->count);
    }
    d->live_bytes += (uint64_t)la->bytes;
    d->live_count += (uint64_t)la->count;
    d->alloc_count += la->allocs;
    d->free_count += la->frees;
    d->alloc_bytes_total += la->alloc_bytes;
    d->credit_out -= la->credit;
    uint64_t want = la->want;
    memset(la, 0, sizeof *la);
    la->want = want;
}

void gl_acct_flush(struct gl_lane_acct *la)
{
    if (la->credit == 0)
        return;
    struct device *d = &devices[la->dev];
    gl_lock(&d->lock);
    apply_lane(d, la);
    gl_unlock(&d->lock);
}

static void revoke(struct gl_lane_acct *la)
{
    if (la->credit == 0)
        return;
    gl_acct_flush(la);
    la->want /= 2; /* it was taken back: ask for less next time */
}

/* Called with d->lock held, every lane flushed: the backoff after a
 * revocation (BACKOFF_MIN above says how). */
static void set_backoff(struct device *d)
{
    uint64_t since = d->alloc_count - d->allocs_at_revoke;
    uint64_t after_backoff = since > d->backoff ? since - d->backoff : 0;
    if (d->backoff == 0 || after_backoff >= REVOKE_AGAIN)
        d->backoff = BACKOFF_MIN;
    else if (d->backoff < BACKOFF_MAX)
        d->backoff *= 2;
    d->backoff_left = d->backoff;
    d->allocs_at_revoke = d->alloc_count;
    d->revoke_due = false;
}

void gl_acct_revoke_all(void)
{
    gl_lanes_each(revoke);
    if (!atomic_exchange_explicit(&any_revoke_due, false, memory_order_relaxed))
        return;
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        gl_lock(&d->lock);
        if (d->revoke_due)
            set_backoff(d);
        gl_unlock(&d->lock);
    }
}

/* ---- allocations and frees ---------------------------------------------- */

static bool fits_local(struct gl_lane_acct *la, int32_t idx, uint64_t size)
{
    return la->credit != 0 && la->dev == idx && size <= la->credit &&
           la->bytes <= (int64_t)(la->credit - size);
}

/* Called with d->lock held and the lane's credit (if any) given back: hands
 * the lane credit for at least `size` if the headroom allows. */
static bool grant(struct device *d, int32_t idx, struct gl_lane_acct *la, uint64_t size, bool ran_out)
{
    uint64_t committed = d->live_bytes + d->credit_out;
    if (d->peak_bytes < committed || d->peak_bytes - committed < size || size > CREDIT_MAX)
        return false;
    if (d->backoff_left > 0) {
        d->backoff_left--;
        return false;
    }
    uint64_t want = la->want > size ? la->want : size;
    if (ran_out && want <= CREDIT_MAX / 2)
        want *= 2;
    uint64_t headroom = d->peak_bytes - committed;
    uint64_t g = want < headroom ? want : headroom;
    if (g > CREDIT_MAX)
        g = CREDIT_MAX;
    la->credit = g;
    la->want = g;
    la->dev = idx;
    d->credit_out += g;
    return true;
}

struct gl_acct_ticket gl_acct_alloc_begin(struct gl_lane_acct *la, const struct gl_acct_event *ev)
{
    struct gl_acct_ticket t = {GL_ACCT_NONE, 0, NULL};
    if (!gl_kind_in_usage(ev->kind))
        return t;
    t.dev = device_index(ev->device);
    if (fits_local(la, t.dev, ev->size) && (t.site = lane_site(la, ev->stack)) != NULL) {
        t.mode = GL_ACCT_LOCAL;
        return t;
    }
    bool ran_out = la->credit != 0 && la->dev == t.dev && !fits_local(la, t.dev, ev->size);
    gl_acct_flush(la);
    struct device *d = &devices[t.dev];
    gl_lock(&d->lock);
    d->used = true;
    if (grant(d, t.dev, la, ev->size, ran_out)) {
        gl_unlock(&d->lock);
        t.site = lane_site(la, ev->stack); /* the lane was just flushed: there is room */
        t.mode = GL_ACCT_LOCAL;
        return t;
    }
    if (d->credit_out == 0 || d->live_bytes + d->credit_out + ev->size <= d->peak_bytes) {
        t.mode = GL_ACCT_LOCKED;
        return t;
    }
    /* Might be a new peak while other lanes hold credit: take it back first
     * (the caller, in the exclusive section); the backoff is set there. */
    d->revoke_due = true;
    atomic_store_explicit(&any_revoke_due, true, memory_order_relaxed);
    gl_unlock(&d->lock);
    t.mode = GL_ACCT_EXCLUSIVE;
    return t;
}

bool gl_acct_same_device(struct gl_acct_ticket t, const struct gl_acct_event *stale)
{
    return t.mode != GL_ACCT_NONE && gl_kind_in_usage(stale->kind) && device_index(stale->device) == t.dev;
}

/* Called with d->lock held. */
static void free_locked(struct device *d, const struct gl_acct_event *ev)
{
    site_add(d, ev->stack, -(int64_t)ev->size, -1);
    d->live_bytes -= ev->size;
    d->live_count--;
    d->free_count++;
}

static void alloc_locked(struct device *d, const struct gl_acct_event *ev, bool is_new)
{
    site_add(d, ev->stack, (int64_t)ev->size, 1);
    d->live_bytes += ev->size;
    d->live_count++;
    if (is_new) {
        d->alloc_count++;
        d->alloc_bytes_total += ev->size;
    } else {
        d->free_count--; /* the free did not happen after all */
    }
    if (d->live_bytes > d->peak_bytes) {
        d->peak_bytes = d->live_bytes;
        d->peak_seq = ev->seq;
        d->peak_time_ns = ev->time_ns;
        if ((ev->seq & GL_SEQ_STAMP) && !atomic_load_explicit(&peak_stamped, memory_order_relaxed))
            atomic_store_explicit(&peak_stamped, true, memory_order_release);
        d->peak_epoch++;
    }
}

static bool free_local(struct gl_lane_acct *la, const struct gl_acct_event *ev)
{
    struct gl_lane_site *ls = lane_site(la, ev->stack);
    if (ls == NULL)
        return false;
    ls->bytes -= (int64_t)ev->size;
    ls->count--;
    la->bytes -= (int64_t)ev->size;
    la->count--;
    la->frees++;
    return true;
}

void gl_acct_alloc_end(struct gl_lane_acct *la, struct gl_acct_ticket t, const struct gl_acct_event *ev,
                       const struct gl_acct_event *stale, bool is_new)
{
    if (t.mode == GL_ACCT_NONE)
        return;
    if (t.mode == GL_ACCT_LOCKED) {
        struct device *d = &devices[t.dev];
        if (stale != NULL && gl_acct_same_device(t, stale))
            free_locked(d, stale);
        if (ev != NULL)
            alloc_locked(d, ev, is_new);
        gl_unlock(&d->lock);
        return;
    }
    /* LOCAL: the stale record's free first (it only lowers the lane's
     * bytes), then the allocation, whose slot alloc_begin reserved. */
    if (stale != NULL && gl_acct_same_device(t, stale) && !free_local(la, stale)) {
        struct device *d = &devices[t.dev];
        gl_lock(&d->lock);
        free_locked(d, stale);
        gl_unlock(&d->lock);
    }
    if (ev == NULL)
        return;
    /* alloc_begin's slot: a free since only ever added slots, none moved */
    struct gl_lane_site *ls = t.site;
    if (ls != NULL) {
        ls->bytes += (int64_t)ev->size;
        ls->count++;
    }
    la->bytes += (int64_t)ev->size;
    la->count++;
    if (is_new) {
        la->allocs++;
        la->alloc_bytes += ev->size;
    } else {
        la->frees--; /* modulo 2^64, like the device's count it is added to */
    }
}

void gl_acct_free(struct gl_lane_acct *la, const struct gl_acct_event *ev)
{
    if (!gl_kind_in_usage(ev->kind))
        return;
    int32_t idx = device_index(ev->device);
    if (la->credit != 0 && la->dev == idx && free_local(la, ev))
        return;
    struct device *d = &devices[idx];
    gl_lock(&d->lock);
    free_locked(d, ev);
    gl_unlock(&d->lock);
}

static void bump(int32_t device, size_t field_offset)
{
    struct device *d = &devices[device_index(device)];
    gl_lock(&d->lock);
    d->used = true;
    (*(uint64_t *)((char *)d + field_offset))++;
    gl_unlock(&d->lock);
}

void gl_acct_touch(int32_t device)
{
    struct device *d = &devices[device_index(device)];
    gl_lock(&d->lock);
    d->used = true;
    gl_unlock(&d->lock);
}

void gl_acct_unknown_free(int32_t device) { bump(device, offsetof(struct device, unknown_free_count)); }
void gl_acct_failed(int32_t device) { bump(device, offsetof(struct device, failed_count)); }

/* ---- snapshots and fork ------------------------------------------------- */

size_t gl_acct_site_count(void)
{
    size_t n = 0;
    for (int i = 0; i <= GL_MAX_DEVICES; i++)
        n += HASH_COUNT(devices[i].sites);
    return n;
}

/* Device table entry i (0 is the host) as a snapshot or the live view
 * sees it. */
static void copy_device(const struct device *d, int i, struct gl_device_copy *c)
{
    c->device = i - 1;
    c->live_bytes = d->live_bytes;
    c->live_count = d->live_count;
    c->peak_bytes = d->peak_bytes;
    /* A stamp only when the allocation's event was lost (events.h). */
    c->peak_seq = d->peak_seq & GL_SEQ_STAMP ? 0 : d->peak_seq;
    c->peak_time_ns = d->peak_time_ns;
    c->alloc_count = d->alloc_count;
    c->free_count = d->free_count;
    c->alloc_bytes_total = d->alloc_bytes_total;
    c->failed_count = d->failed_count;
    c->unknown_free_count = d->unknown_free_count;
}

void gl_acct_copy(struct gl_state_copy *out, size_t peaks_room)
{
    size_t p = 0;
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        /* The lock too: gl_acct_touch and bump write outside any lane. */
        gl_lock(&d->lock);
        if (!d->used) {
            gl_unlock(&d->lock);
            continue;
        }
        copy_device(d, i, &out->devices[out->ndevices++]);
        for (struct site *s = d->sites; s != NULL && p < peaks_room; s = s->hh.next) {
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
        gl_unlock(&d->lock);
    }
    out->npeaks = p;
}

void gl_acct_watch_copy(struct gl_watch_copy *out, size_t room)
{
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        gl_lock(&d->lock); /* as gl_acct_copy */
        if (!d->used) {
            gl_unlock(&d->lock);
            continue;
        }
        copy_device(d, i, &out->devices[out->ndevices++]);
        for (struct site *s = d->sites; s != NULL; s = s->hh.next) {
            if (s->live_bytes == 0 && s->live_count == 0)
                continue;
            if (out->nsites == room) {
                out->sites_truncated = true;
                break;
            }
            out->sites[out->nsites++] = (struct gl_watch_site){
                .stack = s->stack, .device = i - 1, .bytes = s->live_bytes, .count = s->live_count};
        }
        gl_unlock(&d->lock);
    }
}

void gl_acct_number_peaks(uint64_t (*number_of)(uint64_t stamp, const void *arg), const void *arg)
{
    if (!atomic_exchange_explicit(&peak_stamped, false, memory_order_acquire))
        return;
    bool left = false;
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        gl_lock(&d->lock);
        if (d->peak_seq & GL_SEQ_STAMP) {
            uint64_t n = number_of(d->peak_seq & ~GL_SEQ_STAMP, arg);
            if (n != 0)
                d->peak_seq = n;
            else
                left = true; /* an allocation of a later merge */
        }
        gl_unlock(&d->lock);
    }
    if (left)
        atomic_store_explicit(&peak_stamped, true, memory_order_release);
}

void gl_acct_reset(void)
{
    /* In the exclusive section, after gl_acct_revoke_all: no lane holds
     * credit or pending changes.  The lock stays, and so do the sites,
     * zeroed (a copy skips a site with nothing): freeing them would leave
     * holes in the program's heap (docs/attach.md "Cost"). */
    size_t from = offsetof(struct device, used), to = offsetof(struct device, sites);
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        gl_lock(&d->lock);
        for (struct site *st = d->sites; st != NULL; st = st->hh.next) {
            st->live_bytes = st->live_count = st->at_peak_bytes = st->at_peak_count = 0;
            st->epoch = 0;
        }
        memset((char *)d + from, 0, to - from);
        d->peak_epoch = 1;
        gl_unlock(&d->lock);
    }
}

void gl_acct_postfork_child(void)
{
    /* Only this thread exists now; the parent's device memory is not ours. */
    for (int i = 0; i <= GL_MAX_DEVICES; i++) {
        struct device *d = &devices[i];
        struct site *s, *tmp;
        HASH_ITER(hh, d->sites, s, tmp) {
            HASH_DEL(d->sites, s);
            free(s);
        }
        memset(d, 0, sizeof *d);
        gl_lock_init(&d->lock, GL_LOCK_DEVICE, 0);
        d->peak_epoch = 1;
    }
}
