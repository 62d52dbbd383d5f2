/* Unit test of the history (report/analysis/history.c: memory over time,
 * the peak in the history, out-of-memory marks and their retry, request
 * size classes) and the phases built on it (phases.c: markers, bracketed
 * phases nested inside them, a marker closed by the next, each phase's
 * start, end, peak and what made up the peak by stack and category).  One
 * snapshot built in memory (snapbuild.h); the expected values are written
 * out by hand from the event list below.  Links only report/model,
 * report/analysis and report/util objects. */
#include <stdio.h>
#include <string.h>

#include "analysis/history.h"
#include "analysis/phases.h"
#include "snapbuild.h"

static uint32_t site_a, site_b, site_c;

/* The device-0 level after each alloc/free event, and the events:
 *   seq  t    event                         level
 *    1   10   annotation "load"  (marker)
 *    2   20   alloc A 100  (live at the end)  100
 *    3   30   alloc B 300                     400
 *    4   40   annotation "epoch"  (bracketed, inside "load")
 *    5   50   alloc C 1000  (the peak)       1400
 *    6   60   free  C 1000                    400
 *    7   70   alloc B 50   (live at the end)  450
 *    8   80   free  B 300                     150
 *    9   90   OOM asking 500 (stack C)
 *   10  100   alloc C 500  (the OOM's retry)  650
 *   11  110   free  C 500                     150
 *   12  120   annotation "epoch (end)"
 *   13  130   annotation "eval"  (marker: closes "load")
 *   14  140   snapshot
 * Live at the end: A 100 + B 50 = the window's net, so the base is 0. */
static void build(struct sb *b)
{
    sb_init(b);
    b->proc.snapshot_mono_ns = 200;
    site_a = sb_site(b, "model.py", 11, "embed");
    site_b = sb_site(b, "model.py", 22, "attend");
    site_c = sb_site(b, "loss.py", 33, "backward");
    uint32_t load = sb_label(b, "load"), epoch = sb_label(b, "epoch"),
             epoch_end = sb_label(b, "epoch (end)"), eval = sb_label(b, "eval");
#define EV(SEQ, TYPE, ...) SB_ADD(b, EVENTS, events, .seq = SEQ, .time_ns = SEQ * 10, .type = GL_EV_##TYPE, __VA_ARGS__)
    EV(1, ANNOTATION, .ptr = load);
    EV(2, ALLOC, .ptr = 0x100, .size = 100, .stack_id = site_a);
    EV(3, ALLOC, .ptr = 0x200, .size = 300, .stack_id = site_b);
    EV(4, ANNOTATION, .ptr = epoch);
    EV(5, ALLOC, .ptr = 0x300, .size = 1000, .stack_id = site_c);
    EV(6, FREE, .ptr = 0x300, .size = 1000, .stack_id = site_c);
    EV(7, ALLOC, .ptr = 0x400, .size = 50, .stack_id = site_b);
    EV(8, FREE, .ptr = 0x200, .size = 300, .stack_id = site_b);
    EV(9, OOM, .size = 500, .stack_id = site_c, .mem_free = 10, .mem_total = 100);
    EV(10, ALLOC, .ptr = 0x500, .size = 500, .stack_id = site_c);
    EV(11, FREE, .ptr = 0x500, .size = 500, .stack_id = site_c);
    EV(12, ANNOTATION, .ptr = epoch_end);
    EV(13, ANNOTATION, .ptr = eval);
    EV(14, SNAPSHOT, .size = 0);
#undef EV
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x100, .size = 100, .seq = 2, .time_ns = 20, .stack_id = site_a);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x400, .size = 50, .seq = 7, .time_ns = 70, .stack_id = site_b);
    SB_ADD(b, DEVICES, devices, .device = 0, .live_bytes = 150, .live_count = 2, .peak_bytes = 1400,
           .peak_seq = 5, .peak_time_ns = 50, .alloc_count = 5, .free_count = 3);
}

static void check_history(const struct history *h)
{
    CHECK(h->present, "history present");
    CHECK_EQ(h->first_seq, 1);
    CHECK_EQ(h->last_seq, 14);
    CHECK_EQ(h->t0, 10);
    CHECK_EQ(h->t1, 200);
    CHECK_EQ(h->nalloc, 5);
    CHECK_EQ(h->nfree, 3);
    CHECK(!h->inconsistent, "consistent");
    CHECK_EQ(h->ndev, 1);
    if (h->ndev != 1)
        return;
    const struct hist_dev *d = &h->dev[0];
    CHECK_EQ(d->base, 0);
    static const uint64_t level[] = {100, 400, 1400, 400, 450, 150, 650, 150};
    CHECK_EQ(d->n, 8);
    for (size_t i = 0; i < d->n && i < 8; i++) {
        CHECK(d->bytes[i] == level[i], "level %zu: %llu, want %llu", i, (unsigned long long)d->bytes[i],
              (unsigned long long)level[i]);
    }
    CHECK_EQ(d->time_ns[2], 50);
    CHECK_EQ(d->max_bytes, 1400);
    CHECK_EQ(d->max_seq, 5);
    CHECK_EQ(d->max_time_ns, 50);
    CHECK_EQ(d->kind_max[GL_KIND_DEVICE], 1400);
    CHECK(d->peak_covered, "the peak is in the history");
    CHECK_EQ(d->peak_event, 4);
    CHECK_EQ(d->peak_mark, 1); /* "epoch" */
    CHECK(d->peak_mark_known, "peak mark known");
    CHECK_EQ(d->nbefore, 3);
    CHECK(d->before[0] == 1 && d->before[1] == 2 && d->before[2] == 4, "allocations before the peak");
    /* request sizes: 100 -> [64,128), 300 and 500 -> [256,512), 1000, 50 */
    CHECK_EQ(d->nreq, 5);
    CHECK_EQ(d->req_count[7], 1);
    CHECK_EQ(d->req_count[9], 2);
    CHECK_EQ(d->req_bytes[9], 800);
    CHECK_EQ(d->req_count[10], 1);
    CHECK_EQ(d->req_count[6], 1);

    CHECK_EQ(h->nmarks, 6);
    if (h->nmarks != 6)
        return;
    static const uint16_t type[] = {GL_EV_ANNOTATION, GL_EV_ANNOTATION, GL_EV_OOM,
                                    GL_EV_ANNOTATION, GL_EV_ANNOTATION, GL_EV_SNAPSHOT};
    static const uint64_t seq[] = {1, 4, 9, 12, 13, 14};
    for (size_t i = 0; i < 6; i++)
        CHECK(h->marks[i].type == type[i] && h->marks[i].seq == seq[i], "mark %zu: type %u seq %llu", i,
              h->marks[i].type, (unsigned long long)h->marks[i].seq);
    CHECK(h->marks[1].label && strcmp(h->marks[1].label->text.s, "epoch") == 0, "mark 1 label");
    const struct hist_mark *oom = &h->marks[2];
    CHECK_EQ(oom->size, 500);
    CHECK_EQ(oom->live_bytes, 150);
    CHECK_EQ(oom->mem_free, 10);
    CHECK_EQ(oom->mem_total, 100);
    CHECK_EQ(oom->stack_id, site_c);
    CHECK_EQ(oom->then_seq, 10);
    CHECK_EQ(oom->then_time_ns, 100);
    CHECK_EQ(oom->then_stack_id, site_c);
    bool known;
    CHECK_EQ(history_mark_before(h, 12, &known), 3);
}

/* One phase's device 0. */
static const struct phase_dev *dev0(const struct phase *p)
{
    return p->ndevs == 1 && p->devs[0].device == 0 ? &p->devs[0] : NULL;
}

static void check_stack(const struct stackdb *db, const struct phase_dev *d, size_t i, uint64_t bytes,
                        const char *frames)
{
    if (i >= d->nstacks) {
        CHECK(0, "stack %zu missing (%zu)", i, d->nstacks);
        return;
    }
    CHECK_EQ(d->stacks[i].bytes, bytes);
    CHECK_EQ(d->stacks[i].count, 1);
    CHECK_STR(sb_cs_text(db, d->stacks[i].cs), frames);
}

static void check_phases(const struct stackdb *db, const struct phases *ph)
{
    CHECK(ph->present && !ph->wrapped && !ph->inconsistent, "present, not wrapped, consistent");
    CHECK_EQ(ph->unmatched_ends, 0);
    CHECK_EQ(ph->n, 3);
    if (ph->n != 3)
        return;
    const struct phase *load = &ph->p[0], *epoch = &ph->p[1], *eval = &ph->p[2];
    CHECK(load->label && strcmp(load->label->text.s, "load") == 0, "phase 0 is load");
    CHECK(!load->bracketed && load->depth == 0 && load->parent == -1, "load: a marker at the top");
    CHECK_EQ(load->start_seq, 1);
    CHECK_EQ(load->end_seq, 13);
    CHECK_EQ(load->end, PHASE_END_NEXT);
    CHECK(epoch->label && strcmp(epoch->label->text.s, "epoch") == 0, "phase 1 is epoch");
    CHECK_EQ(epoch->name_len, 5);
    CHECK(epoch->bracketed && epoch->depth == 1 && epoch->parent == 0, "epoch: bracketed, inside load");
    CHECK_EQ(epoch->start_seq, 4);
    CHECK_EQ(epoch->end_seq, 12);
    CHECK_EQ(epoch->end, PHASE_END_MARK);
    CHECK_EQ(eval->start_seq, 13);
    CHECK_EQ(eval->end_seq, 14);
    CHECK_EQ(eval->end_time_ns, 200);
    CHECK_EQ(eval->end, PHASE_END_HISTORY);

    const struct phase_dev *d = dev0(load);
    CHECK(d != NULL, "load: device 0 only");
    if (d) {
        CHECK_EQ(d->start_bytes, 0);
        CHECK_EQ(d->end_bytes, 150);
        CHECK_EQ(d->peak_bytes, 1400);
        CHECK_EQ(d->peak_seq, 5);
        CHECK(!d->peak_at_start, "load: peak inside");
        CHECK_EQ(d->allocs, 5);
        CHECK_EQ(d->frees, 3);
        CHECK_EQ(d->alloc_bytes, 1950);
        CHECK_EQ(d->free_bytes, 1800);
        CHECK_EQ(d->nstacks_total, 3);
        check_stack(db, d, 0, 1000, "backward loss.py:33");
        check_stack(db, d, 1, 300, "attend model.py:22");
        check_stack(db, d, 2, 100, "embed model.py:11");
        CHECK_EQ(d->ncats, 1);
        if (d->ncats == 1) {
            CHECK_EQ(d->cats[0].bytes, 1400);
            CHECK_EQ(d->cats[0].count, 3);
            CHECK_STR(ph->cat->names[d->cats[0].cat], CAT_OTHER_NAME);
        }
    }
    d = dev0(epoch);
    CHECK(d != NULL, "epoch: device 0 only");
    if (d) {
        CHECK_EQ(d->start_bytes, 400);
        CHECK_EQ(d->end_bytes, 150);
        CHECK_EQ(d->peak_bytes, 1400);
        CHECK_EQ(d->peak_time_ns, 50);
        CHECK_EQ(d->allocs, 3);
        CHECK_EQ(d->frees, 3);
        CHECK_EQ(d->alloc_bytes, 1550);
        CHECK_EQ(d->free_bytes, 1800);
    }
    d = dev0(eval);
    CHECK(d != NULL, "eval: device 0 only");
    if (d) {
        CHECK(d->peak_at_start, "eval: nothing rose");
        CHECK_EQ(d->start_bytes, 150);
        CHECK_EQ(d->peak_bytes, 150);
        CHECK_EQ(d->peak_seq, 13);
        CHECK_EQ(d->allocs + d->frees, 0);
        CHECK_EQ(d->nstacks_total, 2);
        check_stack(db, d, 0, 100, "embed model.py:11");
        check_stack(db, d, 1, 50, "attend model.py:22");
    }
}

/* ---- a wrapped, inconsistent history ---------------------------------- */

/* The ring starts at seq 50 (earlier events are gone), and its events free
 * more than the allocations at the end allow:
 *   50  free  A 400          (allocated before the ring)
 *   51  alloc C 300          (not among the live allocations: bad input)
 *   52  annotation "warmup (end)"  (its "warmup" is gone with the ring)
 * Kind base: live 0 - net -100 = 100, below its lowest point -400: raised
 * to 400, flagged.  Per stack: A's base 400 (one allocation), C's 0. */
static uint32_t site_drop;

static void build_wrapped(struct sb *b)
{
    sb_init(b);
    b->proc.snapshot_mono_ns = 600;
    site_drop = sb_site(b, "cache.py", 9, "drop_cache");
    uint32_t c = sb_site(b, "step.py", 4, "step");
    uint32_t end = sb_label(b, "warmup (end)");
    SB_ADD(b, EVENTS, events, .seq = 50, .time_ns = 500, .type = GL_EV_FREE, .ptr = 0x100, .size = 400,
           .stack_id = site_drop);
    SB_ADD(b, EVENTS, events, .seq = 51, .time_ns = 510, .type = GL_EV_ALLOC, .ptr = 0x200, .size = 300,
           .stack_id = c);
    SB_ADD(b, EVENTS, events, .seq = 52, .time_ns = 520, .type = GL_EV_ANNOTATION, .ptr = end);
    SB_ADD(b, DEVICES, devices, .device = 0);
}

static void check_wrapped(const struct stackdb *db, const struct history *h, const struct phases *ph)
{
    CHECK(h->inconsistent, "history flagged inconsistent");
    CHECK_EQ(h->first_seq, 50);
    CHECK_EQ(h->ndev, 1);
    if (h->ndev == 1) {
        CHECK_EQ(h->dev[0].base, 400);
        CHECK_EQ(h->dev[0].n, 2);
        CHECK(h->dev[0].bytes[0] == 0 && h->dev[0].bytes[1] == 300, "levels after the base");
    }
    CHECK(ph->wrapped && ph->inconsistent, "phases: wrapped, inconsistent");
    CHECK_EQ(ph->unmatched_ends, 0);
    CHECK_EQ(ph->n, 1);
    if (ph->n != 1)
        return;
    const struct phase *p = &ph->p[0];
    CHECK(!p->start_known && p->bracketed, "warmup: start lost, bracketed");
    CHECK_EQ(p->name_len, 6);
    CHECK_EQ(p->start_seq, 50); /* the history's first event */
    CHECK_EQ(p->end_seq, 52);
    CHECK_EQ(p->end, PHASE_END_MARK);
    const struct phase_dev *d = dev0(p);
    CHECK(d != NULL, "warmup: device 0 only");
    if (!d)
        return;
    CHECK_EQ(d->start_bytes, 400);
    CHECK_EQ(d->end_bytes, 300);
    CHECK(d->peak_at_start, "warmup: peak at its start");
    CHECK_EQ(d->peak_bytes, 400);
    CHECK_EQ(d->frees, 1);
    CHECK_EQ(d->allocs, 1);
    CHECK_EQ(d->nstacks_total, 1); /* C's base is 0: not live then */
    check_stack(db, d, 0, 400, "drop_cache cache.py:9");
}

/* Builds a snapshot, runs history_build and phases_build on it, checks. */
static void run(void (*build_fn)(struct sb *),
                void (*check)(const struct stackdb *, const struct history *, const struct phases *))
{
    struct sb b;
    build_fn(&b);
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m;
    sb_load(&b, db, NULL, &m);
    struct categories cat;
    char err[64];
    cat_init(&cat, NULL, err, sizeof err);
    struct history h;
    struct phases ph;
    CHECK(history_build(&m.s, &h) == 0, "history_build");
    CHECK(phases_build(&m.v, &h, &cat, &ph) == 0, "phases_build");
    check(db, &h, &ph);
    phases_free(&ph);
    history_free(&h);
    cat_free(&cat);
    sb_unload(&m);
    sdb_free(db);
}

static void check_main(const struct stackdb *db, const struct history *h, const struct phases *ph)
{
    check_history(h);
    check_phases(db, ph);
}

int main(void)
{
    run(build, check_main);
    run(build_wrapped, check_wrapped);
    return sb_done("analysis_history: history, phases");
}
