/* Unit test of the live table, the per-device accounting and the lanes'
 * credit (interpose/state/: track.c, account.c, lanes.c, history.c,
 * stack_table.c), driven through state/track.h in process, every figure
 * asserted exactly:
 *   1. records: insert, find, take and release, restore, a free of an
 *      unknown address (bad free, and its groups in bad_free.c), an address
 *      reused with and without a free in between, keys of two spaces at one
 *      address;
 *   2. per-device live bytes, peak, peak sequence and the peak's
 *      composition (stack -> bytes, count at the peak);
 *   3. 100,000 records: bucket growth (1-2 records per bucket), every record
 *      found, slab slots recycled when the same keys come back;
 *   4. threads: lanes that take credit below the peak while churning, a new
 *      peak set while they hold allocations in their lanes (its allocation
 *      takes all credit back), and the peak, its composition and the counts
 *      equal to a serial replay of the history and to the scenario's
 *      arithmetic (as tests/programs/peak_threads.c end to end);
 *   4b. the revocation's backoff: allocations without credit after a
 *      revocation, 64, doubled while revocations come back at once, back
 *      to 64 after a quiet stretch;
 *   5. the detach's reset (gl_track_reset): every record, count, peak and
 *      event gone, and the same records made again without one byte more
 *      of the heap (slabs, buckets and sites kept for reuse);
 *   6. the lane's own merge (events.h): 767 events wait in the thread's
 *      lane, unnumbered; its 768th event's thread numbers the 767 (its own,
 *      within the clock's skew margin of the cutoff, waits).
 *
 * Links (tests/module.mk): state/{track,account,lanes,history,stack_table,
 * teardown,bad_free}.o, capture/{stacks,pyframes,pyframes_layout}.o (a bad
 * free without a stack captures its own) and base/{self,modules,log,ut,
 * config,libc_dl,elf_lookup}.o, the layers state and below: no cuda/,
 * control/, hooks/, no fakecuda.  Stacks are interned from made-up program
 * counters. */
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot_format.h"
#include "state/bad_free.h"
#include "state/events.h"
#include "state/lanes.h"
#include "state/track.h"
#include "state/track_copy.h"
#include "state/track_reset.h"

#include "fail_check.h"

static int failures;

#define EQ(got, want, what)                                                                      \
    do {                                                                                         \
        unsigned long long got_ = (unsigned long long)(got), want_ = (unsigned long long)(want); \
        CHECK_COUNT(failures, got_ == want_, "%s: %llu, expected %llu", (what), got_, want_);     \
    } while (0)
#define TRUE(cond, what) EQ(!!(cond), 1, what)

#define MIB (UINT64_C(1) << 20)

static struct gl_stack *stack_of(uintptr_t tag)
{
    static struct gl_capture cap; /* GL_MAX_DEPTH frames: not on the stack */
    cap.depth = 2;
    cap.pcs[0] = 0x400000 + tag * 16;
    cap.pcs[1] = 0x7f0000001000;
    struct gl_stack *s = gl_stack_intern(&cap);
    if (s == NULL) {
        fprintf(stderr, "FAIL: no stack interned\n");
        exit(1);
    }
    return s;
}

static void alloc_kind(int dev, uint32_t space, uint64_t addr, uint64_t size, uint16_t kind, struct gl_stack *s)
{
    struct gl_alloc_info i = {.addr = addr, .size = size, .device = dev, .owner = dev, .kind = kind,
                              .api = GL_API_CUDA_MALLOC, .space = space};
    gl_track_alloc(&i, s);
}
static void alloc_on(int dev, uint64_t addr, uint64_t size, struct gl_stack *s)
{
    alloc_kind(dev, GL_SPACE_ADDR, addr, size, GL_KIND_DEVICE, s);
}

/* A hook's free: take the record; the real free succeeds, nothing more. */
static bool free_at(uint64_t addr) { return gl_track_take(GL_SPACE_ADDR, addr, 0) != NULL; }

/* One device as a snapshot sees it, its peak composition sorted by stack. */
struct peak_site {
    uint32_t stack_id;
    uint64_t bytes, count;
};
struct view {
    struct gl_device_copy d;
    struct peak_site peak[16];
    size_t npeak;
};

static int by_stack(const void *a, const void *b)
{
    const struct peak_site *x = a, *y = b;
    return (x->stack_id > y->stack_id) - (x->stack_id < y->stack_id);
}

static struct view view_of(int dev)
{
    struct view v;
    memset(&v, 0, sizeof v);
    v.d.device = dev;
    struct gl_state_copy c;
    if (!gl_track_copy(&c)) {
        fprintf(stderr, "FAIL: gl_track_copy\n");
        exit(1);
    }
    for (size_t i = 0; i < c.ndevices; i++)
        if (c.devices[i].device == dev)
            v.d = c.devices[i];
    for (size_t i = 0; i < c.npeaks; i++)
        if (c.peaks[i].device == dev && v.npeak < 16)
            v.peak[v.npeak++] = (struct peak_site){c.peaks[i].stack_id, c.peaks[i].bytes, c.peaks[i].count};
    qsort(v.peak, v.npeak, sizeof v.peak[0], by_stack);
    gl_state_copy_free(&c);
    return v;
}

/* The live record at addr (space ADDR) in a snapshot copy; false if none. */
static bool find_record(uint64_t addr, struct gl_alloc_copy *out)
{
    struct gl_state_copy c;
    bool found = false;
    if (!gl_track_copy(&c))
        return false;
    for (size_t i = 0; i < c.nallocs; i++)
        if (c.allocs[i].ptr == addr) {
            *out = c.allocs[i];
            found = true;
        }
    gl_state_copy_free(&c);
    return found;
}

static void expect_peak(const struct view *v, size_t n, const struct peak_site *want, const char *what)
{
    EQ(v->npeak, n, what);
    for (size_t i = 0; i < n && i < v->npeak; i++) {
        EQ(v->peak[i].stack_id, want[i].stack_id, what);
        EQ(v->peak[i].bytes, want[i].bytes, what);
        EQ(v->peak[i].count, want[i].count, what);
    }
}

/* ---- 1. records ---------------------------------------------------------- */

static void test_records(void)
{
    const int dev = 0;
    struct gl_stack *sa = stack_of(1), *sb = stack_of(2), *sc = stack_of(3);
    alloc_on(dev, 0x1000, 100, sa);
    alloc_kind(dev, GL_SPACE_ADDR, 0x2000, 200, GL_KIND_MANAGED, sb);
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x1000), GL_KIND_DEVICE, "kind of 0x1000");
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x2000), GL_KIND_MANAGED, "kind of 0x2000");
    EQ(gl_track_kind_of(GL_SPACE_ARRAY, 0x1000), (unsigned long long)-1, "another space, same value");
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x1001), (unsigned long long)-1, "inside, not the start");
    struct gl_alloc_copy r;
    TRUE(find_record(0x1000, &r), "0x1000 in the copy");
    EQ(r.size, 100, "size");
    EQ(r.stack_id, sa->id, "stack");
    EQ(r.device, dev, "device");
    EQ(r.kind, GL_KIND_DEVICE, "kind");
    struct view v = view_of(dev);
    EQ(v.d.live_bytes, 300, "live");
    EQ(v.d.live_count, 2, "live count");
    EQ(v.d.peak_bytes, 300, "peak");
    EQ(v.d.alloc_count, 2, "allocs");
    EQ(v.d.alloc_bytes_total, 300, "bytes allocated");
    EQ(v.d.free_count, 0, "frees");

    /* An array handle equal to an address is another record. */
    alloc_kind(dev, GL_SPACE_ARRAY, 0x1000, 7, GL_KIND_ARRAY, sc);
    EQ(gl_track_kind_of(GL_SPACE_ARRAY, 0x1000), GL_KIND_ARRAY, "array handle 0x1000");
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x1000), GL_KIND_DEVICE, "address 0x1000 untouched");
    struct gl_live *taken = gl_track_take(GL_SPACE_ARRAY, 0x1000, 0);
    TRUE(taken != NULL && taken->size == 7 && taken->kind == GL_KIND_ARRAY, "array taken");

    /* take (the real free succeeds): gone, counted as a free. */
    taken = gl_track_take(GL_SPACE_ADDR, 0x1000, 0);
    TRUE(taken != NULL, "0x1000 taken");
    if (taken != NULL) {
        EQ(taken->size, 100, "taken size");
        TRUE(taken->stack == sa, "taken stack");
    }
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x1000), (unsigned long long)-1, "0x1000 gone");
    /* the stack's counts reach it through the lane's tally, by the copy */
    EQ(atomic_load(&sa->frees), 0, "stack's frees, before a copy");
    v = view_of(dev);
    EQ(atomic_load(&sa->frees), 1, "stack's frees");
    EQ(atomic_load(&sa->allocs), 1, "stack's allocs");
    EQ(atomic_load(&sa->bytes), 100, "stack's bytes");
    EQ(v.d.live_bytes, 200, "live after the frees");
    EQ(v.d.live_count, 1, "live count after the frees");
    EQ(v.d.free_count, 2, "frees after free");

    /* A second free of it: no record, counted as an unknown free only. */
    TRUE(gl_track_take(GL_SPACE_ADDR, 0x1000, 0) == NULL, "double free finds nothing");
    gl_track_unknown_free(dev);
    v = view_of(dev);
    EQ(v.d.unknown_free_count, 1, "unknown frees");
    EQ(v.d.live_bytes, 200, "live after bad free");
    EQ(v.d.free_count, 2, "a bad free is not a free");

    /* take + restore (the real free failed): back, the free undone. */
    taken = gl_track_take(GL_SPACE_ADDR, 0x2000, 0);
    TRUE(taken != NULL, "0x2000 taken");
    struct gl_stack *s2 = taken != NULL ? taken->stack : NULL;
    uint64_t s2_frees = s2 != NULL ? atomic_load(&s2->frees) : 0;
    if (taken != NULL)
        gl_track_restore(taken);
    EQ(gl_track_kind_of(GL_SPACE_ADDR, 0x2000), GL_KIND_MANAGED, "0x2000 restored");
    v = view_of(dev);
    TRUE(s2 != NULL && atomic_load(&s2->frees) == s2_frees, "restore takes the stack's free back");
    EQ(v.d.live_bytes, 200, "live after restore");
    EQ(v.d.free_count, 2, "restore undoes the free");
    EQ(v.d.alloc_count, 3, "restore is no allocation");

    /* Reuse after a free. */
    alloc_on(dev, 0x1000, 50, sc);
    TRUE(find_record(0x1000, &r) && r.size == 50 && r.stack_id == sc->id, "0x1000 reused");
    /* Reuse without a free (the free was never seen): the stale record is
     * freed first, in sequence, then replaced. */
    TRUE(find_record(0x2000, &r), "0x2000 before");
    uint64_t stale_seq = r.seq;
    alloc_on(dev, 0x2000, 30, sa);
    TRUE(find_record(0x2000, &r) && r.size == 30 && r.stack_id == sa->id && r.kind == GL_KIND_DEVICE,
         "0x2000 replaced");
    TRUE(r.seq > stale_seq, "a newer sequence");
    v = view_of(dev);
    EQ(v.d.live_bytes, 80, "live after replacement");
    EQ(v.d.live_count, 2, "live count after replacement");
    EQ(v.d.alloc_count, 5, "allocs after replacement");
    EQ(v.d.free_count, 3, "the stale record counts as freed");
    EQ(v.d.peak_bytes, 307, "peak (the array's 7 bytes with 300)");

    /* The history: the stale record's FREE just before the new ALLOC. */
    struct gl_state_copy c;
    TRUE(gl_track_copy(&c) && c.nevents >= 2, "history");
    if (c.nevents >= 2) {
        const struct gl_event *f = &c.events[c.nevents - 2], *a = &c.events[c.nevents - 1];
        EQ(f->type, GL_EV_FREE, "stale free event");
        EQ(f->ptr, 0x2000, "stale free ptr");
        EQ(f->size, 200, "stale free size");
        EQ(a->type, GL_EV_ALLOC, "new alloc event");
        EQ(a->size, 30, "new alloc size");
        EQ(a->seq, f->seq + 1, "in order");
        EQ(a->seq, r.seq, "the record's sequence");
    }
    gl_state_copy_free(&c);

    struct gl_oom_info oom = {.size = 1 << 30, .device = dev, .kind = GL_KIND_DEVICE};
    gl_track_failed(&oom, sa);
    TRUE(free_at(0x1000) && free_at(0x2000), "cleanup");
    v = view_of(dev);
    EQ(v.d.failed_count, 1, "failed");
    EQ(v.d.live_bytes, 0, "live at the end");
    EQ(v.d.live_count, 0, "live count at the end");
    EQ(v.d.peak_bytes, 307, "peak at the end");
}

/* Bad frees as the hooks note them (state/bad_free.c): one entry per
 * (stack, API, outcome, device), counted; the first key kept; errno kept;
 * at most GL_BAD_FREE_MAX entries. */
static void note_unseen_free(void)
{
    errno = EBADF;
    gl_bad_free_note(5, 0x1, GL_API_CUDA_FREE, true, NULL); /* the calling stack is captured */
    EQ(errno, EBADF, "errno kept by a bad free");
}

static void test_bad_frees(void)
{
    struct gl_stack *s1 = stack_of(50), *s2 = stack_of(51);
    gl_bad_free_note(5, 0xdead, GL_API_CUDA_FREE, true, s1);
    gl_bad_free_note(5, 0xbeef, GL_API_CUDA_FREE, true, s1);  /* same group */
    gl_bad_free_note(5, 0xdead, GL_API_CUDA_FREE, false, s1); /* CUDA accepted it */
    gl_bad_free_note(5, 0xdead, GL_API_CU_MEM_FREE, true, s1);
    gl_bad_free_note(6, 0xdead, GL_API_CUDA_FREE, true, s1);
    gl_bad_free_note(5, 0xdead, GL_API_CUDA_FREE, true, s2);
    for (int i = 0; i < 2; i++)
        note_unseen_free(); /* one stack for both */
    size_t n;
    struct gl_bad_free *b = gl_bad_free_copy(&n);
    EQ(n, 6, "bad free groups");
    static const struct {
        uint64_t ptr, count;
        int32_t device;
        uint16_t api;
        bool rejected;
        int stack; /* 1: s1, 2: s2, 0: captured */
    } want[] = {
        {0xdead, 2, 5, GL_API_CUDA_FREE, true, 1},  {0xdead, 1, 5, GL_API_CUDA_FREE, false, 1},
        {0xdead, 1, 5, GL_API_CU_MEM_FREE, true, 1}, {0xdead, 1, 6, GL_API_CUDA_FREE, true, 1},
        {0xdead, 1, 5, GL_API_CUDA_FREE, true, 2},  {0x1, 2, 5, GL_API_CUDA_FREE, true, 0},
    };
    for (size_t i = 0; b != NULL && i < n && i < 6; i++) {
        EQ(b[i].ptr, want[i].ptr, "bad free: first key");
        EQ(b[i].count, want[i].count, "bad free: count");
        EQ(b[i].device, want[i].device, "bad free: device");
        EQ(b[i].api, want[i].api, "bad free: api");
        EQ(b[i].rejected, want[i].rejected, "bad free: rejected");
        if (want[i].stack != 0)
            EQ(b[i].stack_id, (want[i].stack == 1 ? s1 : s2)->id, "bad free: stack");
        else
            TRUE(b[i].stack_id != s1->id && b[i].stack_id != s2->id, "bad free: its own stack");
    }
    free(b);
    for (uintptr_t i = 0; i < 2 * GL_BAD_FREE_MAX; i++)
        gl_bad_free_note(7, i, GL_API_CUDA_FREE, true, stack_of(1000 + i));
    b = gl_bad_free_copy(&n);
    EQ(n, GL_BAD_FREE_MAX, "bad free groups capped");
    free(b);
}

/* ---- 2. peak and composition --------------------------------------------- */

static void test_peak(void)
{
    const int dev = 1;
    struct gl_stack *sa = stack_of(11), *sb = stack_of(12), *other = stack_of(13);
    struct gl_alloc_copy r;
    alloc_on(dev, 0xa1000, 100, sa);
    alloc_on(dev, 0xb1000, 200, sb);
    alloc_on(2, 0xc1000, 5000, other); /* another device: not in this one's peak */
    find_record(0xb1000, &r);
    struct view v = view_of(dev);
    EQ(v.d.peak_bytes, 300, "first peak");
    EQ(v.d.peak_seq, r.seq, "first peak's allocation");
    struct peak_site p1[] = {{sa->id, 100, 1}, {sb->id, 200, 1}};
    expect_peak(&v, 2, p1, "first composition");

    free_at(0xa1000);
    alloc_on(dev, 0xb2000, 50, sb); /* 250: below the peak */
    v = view_of(dev);
    EQ(v.d.live_bytes, 250, "below the peak");
    EQ(v.d.peak_bytes, 300, "peak kept");
    EQ(v.d.peak_seq, r.seq, "peak's allocation kept");
    expect_peak(&v, 2, p1, "composition kept below the peak");

    alloc_on(dev, 0xa2000, 100, sa); /* 350: a new peak */
    find_record(0xa2000, &r);
    v = view_of(dev);
    EQ(v.d.peak_bytes, 350, "second peak");
    EQ(v.d.peak_seq, r.seq, "second peak's allocation");
    struct peak_site p2[] = {{sa->id, 100, 1}, {sb->id, 250, 2}};
    expect_peak(&v, 2, p2, "second composition");

    free_at(0xb2000);
    alloc_on(dev, 0xa3000, 50, other); /* 350 again: an equal total is no new peak */
    v = view_of(dev);
    EQ(v.d.peak_bytes, 350, "peak reached again");
    EQ(v.d.peak_seq, r.seq, "an equal total is no new peak");
    expect_peak(&v, 2, p2, "composition of the first time");
    free_at(0xa3000);

    free_at(0xa2000);
    free_at(0xb1000);
    v = view_of(dev);
    EQ(v.d.live_bytes, 0, "all freed");
    EQ(v.d.peak_bytes, 350, "peak after the frees");
    expect_peak(&v, 2, p2, "composition after the frees");
    v = view_of(2);
    struct peak_site p3[] = {{other->id, 5000, 1}};
    expect_peak(&v, 1, p3, "other device's composition");
    free_at(0xc1000);
}

/* ---- 3. many records ----------------------------------------------------- */

#define MANY 100000
#define MANY_BASE UINT64_C(0x7f0000000000)

static void test_many(void)
{
    const int dev = 2;
    struct gl_stack *st[8];
    for (int i = 0; i < 8; i++)
        st[i] = stack_of(100 + (uintptr_t)i);
    struct gl_track_shape s0, s1, s2, s3;
    gl_track_shape(&s0);
    EQ(s0.records, 0, "empty table");
    for (uint64_t i = 0; i < MANY; i++)
        alloc_on(dev, MANY_BASE + i * 512, 64 + (i % 8), st[i % 8]);
    gl_track_shape(&s1);
    EQ(s1.records, MANY, "records");
    TRUE(s1.slots >= MANY && s1.slots <= s0.slots + MANY, "slots carved");
    /* 64 shards, each kept at 1-2 records per bucket once it grew. */
    TRUE(s1.buckets * 2 >= s1.records && s1.buckets <= s1.records, "1 to 2 records per bucket");
    TRUE(s1.longest_chain <= 16, "short chains");
    size_t found = 0;
    for (uint64_t i = 0; i < MANY; i++)
        found += gl_track_kind_of(GL_SPACE_ADDR, MANY_BASE + i * 512) == GL_KIND_DEVICE;
    EQ(found, MANY, "every record found");
    struct view v = view_of(dev);
    uint64_t bytes = (uint64_t)MANY * 64 + (MANY / 8) * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7);
    EQ(v.d.live_bytes, bytes, "live bytes");
    EQ(v.d.live_count, MANY, "live count");
    EQ(v.d.peak_bytes, bytes, "peak");
    EQ(v.npeak, 8, "8 sites (the earlier site on this device is freed)");

    size_t freed = 0;
    for (uint64_t i = 0; i < MANY; i += 2)
        freed += free_at(MANY_BASE + i * 512);
    EQ(freed, MANY / 2, "every other record freed");
    gl_track_shape(&s2);
    EQ(s2.records, MANY / 2, "records after the frees");
    EQ(s2.slots, s1.slots, "slots kept for reuse");
    EQ(s2.buckets, s1.buckets, "buckets kept");
    /* The same keys again land in the same shards: their freed slots are
     * reused, no slab is added. */
    for (uint64_t i = 0; i < MANY; i += 2)
        alloc_on(dev, MANY_BASE + i * 512, 64, st[0]);
    gl_track_shape(&s3);
    EQ(s3.records, MANY, "records after reuse");
    EQ(s3.slots, s1.slots, "slots recycled");
    EQ(s3.buckets, s1.buckets, "no growth for as many records");
    v = view_of(dev);
    /* (and test_peak's one allocation on this device, freed) */
    EQ(v.d.alloc_count, 1 + MANY + MANY / 2, "allocs");
    EQ(v.d.free_count, 1 + MANY / 2, "frees");
    for (uint64_t i = 0; i < MANY; i++)
        freed += free_at(MANY_BASE + i * 512);
    EQ(freed, MANY / 2 + MANY, "every record freed");
    gl_track_shape(&s3);
    EQ(s3.records, 0, "empty again");
    EQ(view_of(dev).d.live_bytes, 0, "no live bytes");
}

/* ---- 4. threads and credit ----------------------------------------------- */

#define ROUNDS 3000
#define MAX_THREADS 8

struct thread_args {
    int dev, t;
    struct gl_stack *churn, *hold;
    uint64_t max_credit; /* the most credit its lane held after an allocation */
};

static pthread_barrier_t churned, checked, held, pushed;

static uint64_t thread_addr(int dev, int t, int i) { return ((uint64_t)(dev * 64 + t + 1) << 36) + (uint64_t)i * 0x200000; }

static void note_credit(struct thread_args *a)
{
    struct gl_lane *lane = gl_lane_enter();
    if (lane->acct.credit > a->max_credit)
        a->max_credit = lane->acct.credit;
    gl_lane_leave(lane);
}

static void *thread_main(void *p)
{
    struct thread_args *a = p;
    uint64_t churn_addr = thread_addr(a->dev, a->t, 1000);
    for (int i = 0; i < ROUNDS; i++) {
        alloc_on(a->dev, churn_addr, 4096, a->churn);
        note_credit(a);
        if (!free_at(churn_addr))
            abort();
    }
    pthread_barrier_wait(&churned);
    pthread_barrier_wait(&checked); /* main looks at the device meanwhile */
    for (int i = 0; i <= a->t; i++)
        alloc_on(a->dev, thread_addr(a->dev, a->t, i), MIB, a->hold);
    note_credit(a);
    pthread_barrier_wait(&held);
    pthread_barrier_wait(&pushed);
    if (a->t % 2 == 1) /* odd threads free their blocks, even ones keep them */
        for (int i = 0; i <= a->t; i++)
            if (!free_at(thread_addr(a->dev, a->t, i)))
                abort();
    return NULL; /* the lane retires: its accounting goes to the device */
}

static uint64_t credit_sum;
static void add_credit(struct gl_lane_acct *la) { credit_sum += la->credit; }
static uint64_t credit_out(void)
{
    gl_exclusive_enter();
    credit_sum = 0;
    gl_lanes_each(add_credit);
    gl_exclusive_leave();
    return credit_sum;
}

/* Replays the history's events of one device in sequence order, as the
 * reporter does: its peak, the peak's allocation and composition. */
struct replay {
    uint64_t live, peak, peak_seq, first_seq;
    struct peak_site at_peak[16], now[16];
    size_t nsites;
};

static struct peak_site *replay_site(struct peak_site *sites, size_t *n, uint32_t id)
{
    for (size_t i = 0; i < *n; i++)
        if (sites[i].stack_id == id)
            return &sites[i];
    if (*n == 16)
        return NULL;
    sites[*n] = (struct peak_site){id, 0, 0};
    return &sites[(*n)++];
}

static struct replay replay_device(int dev)
{
    struct replay rp;
    memset(&rp, 0, sizeof rp);
    struct gl_state_copy c;
    if (!gl_track_copy(&c))
        return rp;
    size_t n = 0;
    for (size_t i = 0; i < c.nevents; i++) {
        const struct gl_event *e = &c.events[i];
        if (e->device != dev || (e->type != GL_EV_ALLOC && e->type != GL_EV_FREE) || !gl_kind_in_usage(e->kind))
            continue;
        if (rp.first_seq == 0)
            rp.first_seq = e->seq;
        size_t before = n;
        struct peak_site *s = replay_site(rp.now, &n, e->stack_id);
        if (n != before)
            rp.at_peak[n - 1] = (struct peak_site){e->stack_id, 0, 0};
        if (s == NULL)
            continue;
        if (e->type == GL_EV_ALLOC) {
            rp.live += e->size;
            s->bytes += e->size;
            s->count++;
            if (rp.live > rp.peak) {
                rp.peak = rp.live;
                rp.peak_seq = e->seq;
                memcpy(rp.at_peak, rp.now, sizeof rp.now);
            }
        } else {
            rp.live -= e->size;
            s->bytes -= e->size;
            s->count--;
        }
    }
    rp.nsites = n;
    gl_state_copy_free(&c);
    return rp;
}

static void test_threads(int dev, int threads)
{
    struct gl_stack *warm = stack_of(200 + (uintptr_t)dev * 32), *push = stack_of(201 + (uintptr_t)dev * 32),
                    *hold = stack_of(202 + (uintptr_t)dev * 32);
    struct thread_args args[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    char what[64];
    snprintf(what, sizeof what, "%d threads", threads);

    /* Headroom: 64 MiB allocated and freed. */
    alloc_on(dev, 0x10000000, 64 * MIB, warm);
    struct gl_alloc_copy r;
    find_record(0x10000000, &r);
    uint64_t warm_seq = r.seq;
    free_at(0x10000000);

    pthread_barrier_init(&churned, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&checked, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&held, NULL, (unsigned)threads + 1);
    pthread_barrier_init(&pushed, NULL, (unsigned)threads + 1);
    for (int t = 0; t < threads; t++) {
        args[t] = (struct thread_args){.dev = dev, .t = t, .churn = stack_of(300 + (uintptr_t)(dev * 32 + t)),
                                       .hold = hold};
        if (pthread_create(&tids[t], NULL, thread_main, &args[t]) != 0) {
            fprintf(stderr, "FAIL: pthread_create\n");
            exit(1);
        }
    }
    /* Churning well below the peak: no new peak. */
    pthread_barrier_wait(&churned);
    struct view v = view_of(dev);
    EQ(v.d.peak_bytes, 64 * MIB, what);
    EQ(v.d.peak_seq, warm_seq, what);
    EQ(v.d.live_bytes, 0, what);
    pthread_barrier_wait(&checked);

    pthread_barrier_wait(&held);
    uint64_t held_blocks = (uint64_t)threads * (threads + 1) / 2;
    uint64_t kept = 0;
    for (int t = 0; t < threads; t += 2)
        kept += (uint64_t)t + 1;
    /* A new peak while the lanes hold their blocks: its allocation takes
     * every lane's credit back first. */
    alloc_on(dev, 0x20000000, 64 * MIB, push);
    EQ(credit_out(), 0, "no credit out after a new peak");
    find_record(0x20000000, &r);
    uint64_t push_seq = r.seq;
    pthread_barrier_wait(&pushed);
    for (int t = 0; t < threads; t++)
        pthread_join(tids[t], NULL);
    free_at(0x20000000);
    pthread_barrier_destroy(&churned);
    pthread_barrier_destroy(&checked);
    pthread_barrier_destroy(&held);
    pthread_barrier_destroy(&pushed);

    /* How much credit each lane got depends on the schedule (lanes that
     * take it from each other back off: account.c); that a lane alone gets
     * it is test_credit_alone's.  Here: never more than the headroom. */
    uint64_t most_credit = 0;
    for (int t = 0; t < threads; t++)
        if (args[t].max_credit > most_credit)
            most_credit = args[t].max_credit;
    TRUE(most_credit <= 64 * MIB, "never more credit than the headroom");

    v = view_of(dev);
    EQ(v.d.peak_bytes, 64 * MIB + held_blocks * MIB, what);
    EQ(v.d.peak_seq, push_seq, what);
    struct peak_site want[] = {{push->id, 64 * MIB, 1}, {hold->id, held_blocks * MIB, held_blocks}};
    qsort(want, 2, sizeof want[0], by_stack);
    expect_peak(&v, 2, want, what);
    EQ(v.d.live_bytes, kept * MIB, what);
    EQ(v.d.live_count, kept, what);
    EQ(v.d.alloc_count, 1 + (uint64_t)threads * ROUNDS + held_blocks + 1, what);
    EQ(v.d.free_count, 1 + (uint64_t)threads * ROUNDS + (held_blocks - kept) + 1, what);

    /* The same events replayed one by one in sequence order. */
    struct replay rp = replay_device(dev);
    EQ(rp.first_seq, warm_seq, "the history holds every event of the device");
    EQ(rp.peak, v.d.peak_bytes, "replayed peak");
    EQ(rp.peak_seq, v.d.peak_seq, "replayed peak's allocation");
    EQ(rp.live, v.d.live_bytes, "replayed live bytes");
    size_t nonzero = 0;
    for (size_t i = 0; i < rp.nsites; i++) {
        struct peak_site *s = &rp.at_peak[i];
        if (s->bytes == 0 && s->count == 0)
            continue;
        nonzero++;
        bool listed = false;
        for (size_t k = 0; k < v.npeak; k++)
            if (v.peak[k].stack_id == s->stack_id) {
                listed = true;
                EQ(v.peak[k].bytes, s->bytes, "replayed composition: bytes");
                EQ(v.peak[k].count, s->count, "replayed composition: count");
            }
        TRUE(listed, "replayed composition: site listed");
    }
    EQ(nonzero, v.npeak, "replayed composition: sites");

    /* Clean up the even threads' blocks: the device ends empty. */
    for (int t = 0; t < threads; t += 2)
        for (int i = 0; i <= t; i++)
            free_at(thread_addr(dev, t, i));
    EQ(view_of(dev).d.live_bytes, 0, "all freed");
}

static void *churn_alone(void *p)
{
    struct thread_args *a = p;
    uint64_t addr = thread_addr(a->dev, a->t, 1000);
    for (int i = 0; i < 100; i++) {
        alloc_on(a->dev, addr, 4096, a->churn);
        note_credit(a);
        if (!free_at(addr))
            abort();
    }
    return NULL;
}

/* One lane alone below a peak: its first allocation takes credit (nothing
 * to contend with, so nothing to back off from), and the device ends as it
 * began. */
static void test_credit_alone(int dev)
{
    alloc_on(dev, 0x30000000, 16 * MIB, stack_of(400 + (uintptr_t)dev));
    free_at(0x30000000);
    struct thread_args a = {.dev = dev, .t = 0, .churn = stack_of(401 + (uintptr_t)dev)};
    pthread_t tid;
    if (pthread_create(&tid, NULL, churn_alone, &a) != 0) {
        fprintf(stderr, "FAIL: pthread_create\n");
        exit(1);
    }
    pthread_join(tid, NULL);
    TRUE(a.max_credit >= 4096, "a lane alone took credit");
    TRUE(a.max_credit <= 16 * MIB, "never more credit than the headroom");
    struct view v = view_of(dev);
    EQ(v.d.peak_bytes, 16 * MIB, "credit alone: peak");
    EQ(v.d.live_bytes, 0, "credit alone: live");
    EQ(v.d.alloc_count, 101, "credit alone: allocations");
}

/* ---- 4b. the revocation's backoff ---------------------------------------- */

/* A second thread that keeps its lane (and its credit) between rounds: at
 * each go it allocates and frees 4 KiB, taking credit if it is granted. */
static pthread_barrier_t holder_go, holder_done;
static atomic_int holder_dev = -1; /* -1: exit */

static void *holder_main(void *p)
{
    (void)p;
    for (;;) {
        pthread_barrier_wait(&holder_go);
        int dev = atomic_load(&holder_dev);
        if (dev < 0)
            return NULL;
        alloc_on(dev, 0x50000000, 4096, stack_of(501));
        if (!free_at(0x50000000))
            abort();
        pthread_barrier_wait(&holder_done);
    }
}

static uint64_t own_credit(void)
{
    struct gl_lane *lane = gl_lane_enter();
    uint64_t credit = lane->acct.credit;
    gl_lane_leave(lane);
    return credit;
}

/* This thread's 4 KiB allocations, each freed, until one leaves its lane
 * with credit: the how-manieth (0: none of max). */
static int allocs_until_credit(int dev, int max)
{
    for (int i = 1; i <= max; i++) {
        alloc_on(dev, 0x60000000, 4096, stack_of(502));
        bool has = own_credit() != 0;
        if (!free_at(0x60000000))
            abort();
        if (has)
            return i;
    }
    return 0;
}

/* The holder takes 4 KiB of credit; then this thread allocates 2 KiB short
 * of the 1 MiB peak, which could be a new peak only with the holder's
 * credit counted: the credit is taken back (a revocation), the allocation
 * is accounted on the lock and freed. */
static void revocation(int dev)
{
    atomic_store(&holder_dev, dev);
    pthread_barrier_wait(&holder_go);
    pthread_barrier_wait(&holder_done);
    alloc_on(dev, 0x70000000, MIB - 2048, stack_of(503));
    if (!free_at(0x70000000))
        abort();
}

/* After a revocation no credit for the device's next 64 allocations (the
 * first is the one that revoked).  Revocations that come back at once (the
 * lanes take the credit from each other again) double that, 128, 256,
 * 512; one that comes 200 allocations after the backoff's end sets it back
 * to 64, however high it was.  Counted in allocations: a backoff by time
 * took every revocation here, all within a few ms, for a storm, and one by
 * its own length (twice the backoff) never came down from 512. */
static void test_backoffs_on(int dev)
{
    alloc_on(dev, 0x70000000, MIB, stack_of(503)); /* the peak: 1 MiB */
    free_at(0x70000000);
    const int want[] = {64, 128, 256, 512, 64};
    for (int r = 0; r < 5; r++) {
        if (r == 4)
            for (int i = 0; i < 200; i++) {
                alloc_on(dev, 0x60000000, 4096, stack_of(502));
                free_at(0x60000000);
            }
        revocation(dev);
        char what[80];
        snprintf(what, sizeof what, "backoff: allocations until credit after revocation %d", r + 1);
        EQ(allocs_until_credit(dev, 1000), want[r], what);
    }
    struct view v = view_of(dev);
    EQ(v.d.peak_bytes, MIB, "backoff: peak");
    EQ(v.d.live_bytes, 0, "backoff: live");
}

static void test_backoffs(void)
{
    pthread_t tid;
    if (pthread_barrier_init(&holder_go, NULL, 2) != 0 || pthread_barrier_init(&holder_done, NULL, 2) != 0 ||
        pthread_create(&tid, NULL, holder_main, NULL) != 0) {
        fprintf(stderr, "FAIL: holder thread\n");
        exit(1);
    }
    test_backoffs_on(8);
    atomic_store(&holder_dev, -1);
    pthread_barrier_wait(&holder_go);
    pthread_join(tid, NULL);
}

/* ---- 5. the detach's reset ------------------------------------------------ */

#define RESET_N 1000
#define RESET_BASE UINT64_C(0x7e0000000000)

static void test_reset(void)
{
    const int dev = 6;
    struct gl_stack *st = stack_of(300);
    for (uint64_t i = 0; i < RESET_N; i++)
        alloc_on(dev, RESET_BASE + i * 512, 100, st);
    struct gl_track_shape before;
    gl_track_shape(&before);
    gl_track_reset();
    struct gl_track_shape s;
    gl_track_shape(&s);
    EQ(s.records, 0, "no record after the reset");
    EQ(s.slots, 0, "no slot carved after the reset");
    EQ(s.buckets, before.buckets, "buckets kept");
    struct gl_state_copy c;
    TRUE(gl_track_copy(&c), "copy after the reset");
    EQ(c.nallocs, 0, "no live allocation");
    EQ(c.ndevices, 0, "no device used");
    EQ(c.npeaks, 0, "no peak site");
    EQ(c.nevents, 0, "no history event");
    gl_state_copy_free(&c);
    EQ(atomic_load(&st->allocs), 0, "the stack's allocation calls");
    EQ(gl_track_kind_of(GL_SPACE_ADDR, RESET_BASE), (uint64_t)-1, "the first record is gone");
    /* The same records again: from the kept slabs, buckets and sites. */
    struct mallinfo2 m0 = mallinfo2();
    for (uint64_t i = 0; i < RESET_N; i++)
        alloc_on(dev, RESET_BASE + i * 512, 100, st);
    struct mallinfo2 m1 = mallinfo2();
    EQ(m1.uordblks, m0.uordblks, "heap bytes in use: nothing allocated");
    gl_track_shape(&s);
    EQ(s.records, RESET_N, "records again");
    EQ(s.slots, RESET_N, "slots carved again, from the kept slabs");
    struct view v = view_of(dev);
    EQ(v.d.live_bytes, RESET_N * 100, "live bytes counted from zero");
    EQ(v.d.alloc_count, RESET_N, "allocations counted from zero");
    EQ(v.d.peak_bytes, RESET_N * 100, "peak from zero");
    EQ(v.npeak, 1, "one peak site");
    EQ(atomic_load(&st->allocs), RESET_N, "the stack's allocation calls from zero");
    TRUE(gl_track_copy(&c), "copy");
    EQ(c.nevents, RESET_N, "the history holds the new events alone");
    gl_state_copy_free(&c);
}

#define MERGE_BASE UINT64_C(0x7d0000000000)

/* n events on this thread's lane: an allocation and its free in turn, one
 * event each (never an allocation over a live one: a stale record's FREE
 * would be a second event). */
static void events_on_lane(uint64_t n, struct gl_stack *st)
{
    static bool live;
    for (uint64_t i = 0; i < n; i++) {
        if (!live)
            alloc_on(7, MERGE_BASE, 64, st);
        else
            free_at(MERGE_BASE);
        live = !live;
    }
}

static uint64_t numbered_now(void)
{
    struct gl_state_copy c; /* merges every lane: all numbered */
    TRUE(gl_track_copy(&c), "copy");
    gl_state_copy_free(&c);
    return gl_events_last_number();
}

static void test_lane_merge(void)
{
    struct gl_stack *st = stack_of(400);
    struct timespec ms = {0, 1000 * 1000};
    uint64_t before = numbered_now(); /* every lane empty */
    events_on_lane(GL_LANE_MERGE_AT - 1, st);
    EQ(gl_events_last_number(), before, "767 events wait in the lane");
    nanosleep(&ms, NULL); /* the clock 1 ms past every event's tick */
    events_on_lane(1, st);
    /* The cutoff stays GL_CLOCK_SKEW_NS (20 us) behind the clock: the event
     * just recorded waits for the next merge. */
    EQ(gl_events_last_number() - before, GL_LANE_MERGE_AT - 1, "the 768th event's thread merged the 767 before it");
    EQ(numbered_now() - before, GL_LANE_MERGE_AT, "nothing left behind");
}

int main(void)
{
    /* Room for every event of the thread tests (8 threads: ~48,000). */
    gl_track_configure_history((size_t)1 << 17);
    test_records();
    test_bad_frees();
    test_peak();
    test_many();
    test_credit_alone(5);
    test_backoffs();
    test_threads(3, 4);
    test_threads(4, 8);
    test_reset();
    test_lane_merge();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("live table ok\n");
    return 0;
}
