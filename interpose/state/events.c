#include "state/events.h"

#include <stdlib.h>
#include <string.h>

#include "base/internal.h"
#include "base/self.h"
#include "snapshot_format.h"
#include "state/account.h"
#include "state/history.h"
#include "state/lanes.h"

/* Under writer_mutex (every merge and exclusive section holds it). */
static uint64_t next_number = 1;
static struct gl_event *batch; /* the events being merged */
static size_t batch_room, batch_n;
struct key {
    uint64_t stamp;
    uint32_t at; /* index in batch */
};
static struct key *keys, *keys_tmp;
static struct gl_numbered *numbered, *numbered_tmp; /* records to number */
static size_t keys_room;
static uint64_t lost_seen; /* events lost in lanes, to leave gaps for */

struct gl_event *gl_lane_event_slot(struct gl_lane_events *le)
{
    if (__builtin_expect(le->buf == NULL, 0))
        le->buf = malloc(GL_LANE_EVENTS * sizeof *le->buf);
    if (le->buf == NULL || le->count == GL_LANE_EVENTS) {
        le->lost++;
        return NULL;
    }
    return &le->buf[le->count];
}

bool gl_lane_event_commit(struct gl_lane_events *le)
{
    le->count++;
    return le->count >= GL_LANE_MERGE_AT;
}

/* Full: a merge is due; without a buffer (no memory), nothing would help. */
bool gl_lane_event_lost_wants_merge(const struct gl_lane_events *le) { return le->buf != NULL; }

bool gl_lane_event_add(struct gl_lane_events *le, const struct gl_event *e)
{
    struct gl_event *slot = gl_lane_event_slot(le);
    if (slot == NULL)
        return gl_lane_event_lost_wants_merge(le);
    *slot = *e;
    return gl_lane_event_commit(le);
}

static bool batch_reserve(size_t more)
{
    if (batch_n + more <= batch_room)
        return true;
    size_t room = batch_room ? batch_room : GL_LANE_EVENTS * 4;
    while (room < batch_n + more)
        room *= 2;
    struct gl_event *b = realloc(batch, room * sizeof *b);
    if (b == NULL)
        return false;
    batch = b;
    batch_room = room;
    return true;
}

/* Moves the lane's events with a tick below cutoff to the batch (all of them
 * when cutoff is UINT64_MAX); the lane is held. */
static void take_lane(struct gl_lane *l, void *arg)
{
    uint64_t cutoff = *(const uint64_t *)arg;
    struct gl_lane_events *le = &l->events;
    lost_seen += le->lost;
    le->lost = 0;
    if (le->count == 0 || !batch_reserve(le->count))
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < le->count; i++) {
        if (gl_stamp_tick(le->buf[i].seq) < cutoff)
            batch[batch_n++] = le->buf[i];
        else
            le->buf[kept++] = le->buf[i];
    }
    le->count = kept;
}

/* p resized to n elements of size bytes, or p itself with *ok false when
 * out of memory: an array keeps what it had even when another fails. */
static void *resize(void *p, size_t n, size_t size, bool *ok)
{
    void *q = realloc(p, n * size);
    if (q == NULL) {
        *ok = false;
        return p;
    }
    return q;
}

static bool keys_reserve(size_t n)
{
    if (n <= keys_room)
        return true;
    bool ok = true;
    keys = resize(keys, n, sizeof *keys, &ok);
    keys_tmp = resize(keys_tmp, n, sizeof *keys_tmp, &ok);
    numbered = resize(numbered, n, sizeof *numbered, &ok);
    numbered_tmp = resize(numbered_tmp, n, sizeof *numbered_tmp, &ok);
    if (!ok)
        return false;
    keys_room = n;
    return true;
}

/* keys[0..n) by stamp, then by position (stable).  The batch is a few runs
 * already in order (one per lane, each nearly so): a bottom-up merge of
 * the natural runs, O(n log runs). */
static void sort_keys(size_t n)
{
    for (;;) {
        size_t out = 0, i = 0, runs = 0;
        while (i < n) {
            size_t a = i, mid = i + 1;
            while (mid < n && keys[mid - 1].stamp <= keys[mid].stamp)
                mid++;
            size_t end = mid;
            if (end < n) {
                end++;
                while (end < n && keys[end - 1].stamp <= keys[end].stamp)
                    end++;
            }
            size_t x = a, y = mid;
            while (x < mid || y < end)
                keys_tmp[out++] = (y >= end || (x < mid && keys[x].stamp <= keys[y].stamp)) ? keys[x++] : keys[y++];
            i = end;
            runs++;
        }
        struct key *t = keys;
        keys = keys_tmp;
        keys_tmp = t;
        if (runs <= 1)
            return;
    }
}

/* The batch's order: in place when it came sorted (one lane, or lanes
 * whose runs follow each other: the common case), else through keys. */
static bool batch_sorted;

static uint64_t stamp_at(size_t i) { return batch_sorted ? batch[i].seq : keys[i].stamp; }
static struct gl_event *event_at(size_t i) { return batch_sorted ? &batch[i] : &batch[keys[i].at]; }

/* The number the batch gives stamp (sorted, first the first's); 0 if the
 * batch does not hold it. */
struct numbering {
    size_t n;
    uint64_t first;
};

static uint64_t number_of(uint64_t stamp, const void *arg)
{
    const struct numbering *nb = arg;
    size_t lo = 0, hi = nb->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (stamp_at(mid) < stamp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nb->n && stamp_at(lo) == stamp ? nb->first + lo : 0;
}

/* Puts the batch in stamp order; false if there was no room to. */
static bool order_batch(size_t n)
{
    batch_sorted = true;
    for (size_t i = 1; i < n && batch_sorted; i++)
        batch_sorted = batch[i - 1].seq <= batch[i].seq;
    if (batch_sorted)
        return keys_reserve(n); /* room for the records' numbers */
    if (!keys_reserve(n))
        return false;
    for (size_t i = 0; i < n; i++)
        keys[i] = (struct key){.stamp = batch[i].seq, .at = (uint32_t)i};
    sort_keys(n);
    return true;
}

/* Numbers the batch in stamp order and writes it to the history.  Every
 * event of the batch is complete, so the device that peaked at one of its
 * allocations holds that allocation's stamp already. */
static void number_batch(gl_events_number_fn *number_records)
{
    size_t n = batch_n;
    next_number += lost_seen; /* a gap where the lost events were */
    lost_seen = 0;
    if (n == 0)
        return;
    if (!order_batch(n)) {
        next_number += n; /* no room to sort them: counted, not kept */
        batch_n = 0;
        return;
    }
    struct numbering nb = {.n = n, .first = next_number};
    gl_acct_number_peaks(number_of, &nb);
    size_t nrec = 0;
    for (size_t i = 0; i < n; i++) {
        struct gl_event *e = event_at(i);
        uint64_t number = next_number++;
        if (e->type == GL_EV_ALLOC && e->free_stack_id != 0) {
            numbered[nrec++] = (struct gl_numbered){
                .rec = (struct gl_live *)(uintptr_t)e->free_stack_id, .stamp = e->seq, .number = number};
            e->free_stack_id = 0;
        }
        e->seq = number;
        gl_history_add(e);
    }
    number_records(numbered, nrec, numbered_tmp);
    batch_n = 0;
}

static uint64_t now_tick(void) { return gl_mono_ns() - gl_start_mono_ns; }

/* Two threads' clock reads may disagree by up to GL_CLOCK_SKEW_NS
 * (base/clock.h): the cutoff stays that far behind this thread's clock, so
 * that an event still being recorded elsewhere cannot have a tick below it,
 * and an exclusive section's merge waits that long past its last tick. */
void gl_events_merge(gl_events_number_fn *number)
{
    gl_writer_lock();
    uint64_t now = now_tick();
    uint64_t cutoff = now > GL_CLOCK_SKEW_NS ? now - GL_CLOCK_SKEW_NS : 0;
    gl_lanes_visit(take_lane, &cutoff);
    number_batch(number);
    gl_writer_unlock();
}

void gl_events_merge_held(gl_events_number_fn *number)
{
    uint64_t all = UINT64_MAX, last = 0;
    gl_lanes_each_lane(take_lane, &all);
    for (size_t i = 0; i < batch_n; i++)
        if (gl_stamp_tick(batch[i].seq) > last)
            last = gl_stamp_tick(batch[i].seq);
    number_batch(number);
    /* Ticks run at most a few ns ahead of the clock (one per event on a
     * busy shard), and another thread's clock may be behind this one's:
     * wait both out, so that no later event sorts before these. */
    while (now_tick() <= last + GL_CLOCK_SKEW_NS)
        ;
}

uint64_t gl_events_last_number(void) { return next_number - 1; }

static void drop_lane(struct gl_lane *l, void *arg)
{
    (void)arg;
    l->events.count = 0;
    l->events.lost = 0;
}

void gl_events_forget(void)
{
    gl_lanes_each_lane(drop_lane, NULL);
    lost_seen = 0;
    gl_history_forget(next_number);
}

void gl_events_postfork_child(void)
{
    gl_lanes_each_lane(drop_lane, NULL);
    lost_seen = 0;
    batch_n = 0;
    gl_history_postfork_child(next_number);
}
