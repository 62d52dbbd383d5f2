/* Unit test of the one-snapshot analyses (report/analysis/): leak groups
 * (analyze.c: lists, grouping by canonical stack, totals, --top), peak
 * composition (analyze.c), the ledger (ledger.c) and fragmentation (frag.c).
 * Each snapshot is built in memory (snapbuild.h) with values chosen so that
 * every number checked follows from the input by hand; the expected values
 * below are written out, not recomputed by the code under test.  Links only
 * report/model, report/analysis and report/util objects. */
#include <stdio.h>
#include <string.h>

#include "analysis/analyze.h"
#include "analysis/frag.h"
#include "analysis/ledger.h"
#include "snapbuild.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

/* ---- leaks, peak, ledger: one snapshot -------------------------------- */

static struct {
    uint32_t train, train_again, load, bfc, ext, ipc;
} st;

static const char user_rules[] = "{\n   ext-is-fine\n   fun:ext_alloc\n}\n";

static void build_leaks(struct sb *b)
{
    sb_init(b);
    st.train = sb_site(b, "train.py", 10, "train_step");
    /* the same frame under another id (another thread's stack table):
     * one canonical stack with train */
    st.train_again = sb_site(b, "train.py", 10, "train_step");
    st.load = sb_site(b, "data.py", 42, "load_batch");
    uint64_t bfc[2] = {sb_frame(b, "alloc.cc", 7, "tensorflow::BFCAllocator::AllocateRaw"),
                       sb_frame(b, "model.py", 5, "forward")};
    st.bfc = sb_stack(b, 2, bfc);
    st.ext = sb_site(b, "ext.py", 3, "ext_alloc");
    st.ipc = sb_site(b, "peer.py", 8, "open_handle");

    SB_ADD(b, ALLOCS, allocs, .ptr = 0x1000, .size = 1000, .seq = 3, .time_ns = 300, .stack_id = st.train);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x2000, .size = 24, .seq = 5, .time_ns = 500, .stack_id = st.train_again);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x3000, .size = 4096, .seq = 4, .time_ns = 400, .stack_id = st.load);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x4000, .size = 100, .seq = 6, .stack_id = st.load, .device = 1);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x5000, .size = 64, .seq = 7, .stack_id = st.train, .device = -1,
           .kind = GL_KIND_HOST_PINNED);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x100000, .size = MiB, .seq = 8, .stack_id = st.bfc);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x200000, .size = MiB, .seq = 9, .stack_id = st.bfc);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x6000, .size = 512, .seq = 10, .stack_id = st.ext);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x7000, .size = 8192, .seq = 11, .stack_id = st.ipc, .kind = GL_KIND_IPC);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x8000, .size = 65536, .seq = 12, .stack_id = st.load,
           .kind = GL_KIND_MODULE);

    /* device 0: used = what the rows explain + 12345 */
    uint64_t explained = (1000 + 24 + 4096 + 2 * MiB + 512) /* live, resident */
                         + 768 * KiB                         /* pool reserve */
                         + 4096                              /* graph pool reserve */
                         + 65536                             /* module */
                         + 300 * MiB                         /* context */
                         + 8192;                             /* ipc */
    SB_ADD(b, DEVICES, devices, .device = 0, .alloc_count = 9, .peak_bytes = 6144, .peak_seq = 5,
           .mem_total = 16 * GiB, .mem_free = 16 * GiB - explained - 12345,
           .ctx_used_at_create = 300 * MiB, .ctx_creations = 1);
    SB_ADD(b, DEVICES, devices, .device = 1, .alloc_count = 1);
    SB_ADD(b, DEVICES, devices, .device = -1, .alloc_count = 1);
    SB_ADD(b, POOLS, pools, .handle = 0x10, .device = 0, .reserved = MiB, .used = 256 * KiB);
    SB_ADD(b, POOLS, pools, .handle = GL_POOL_GRAPH_MEM, .device = 0, .reserved = 4096, .used = 0);

    SB_ADD(b, PEAK, peak, .device = 0, .stack_id = st.train, .bytes = 2000, .count = 2);
    SB_ADD(b, PEAK, peak, .device = 0, .stack_id = st.train_again, .bytes = 48, .count = 1);
    SB_ADD(b, PEAK, peak, .device = 0, .stack_id = st.load, .bytes = 4096, .count = 1);
    SB_ADD(b, PEAK, peak, .device = 0, .stack_id = st.ext, .bytes = 512, .count = 1);
    SB_ADD(b, PEAK, peak, .device = 1, .stack_id = st.load, .bytes = 100, .count = 1);
    SB_ADD(b, PEAK, peak, .device = 7, .stack_id = st.train, .bytes = 1, .count = 1); /* no DEVICES */
}

static void check_leaks(const struct stackdb *db, const struct suppressions *sup, const struct analysis *a)
{
    CHECK_EQ(a->total_bytes, 1000 + 24 + 4096 + 100 + 64 + 2 * MiB + 512 + 8192 + 65536);
    CHECK_EQ(a->total_count, 10);
    CHECK_EQ(a->allocs_made, 11);
    /* leaks, largest first; --top 2 shows two */
    const struct group_list *l = &a->leaks;
    CHECK_EQ(l->total, 4);
    CHECK_EQ(l->n, 2);
    CHECK_EQ(l->bytes, 4096 + 1024 + 100 + 64);
    CHECK_EQ(l->count, 5);
    CHECK_EQ(l->hidden_bytes, 164);
    CHECK_EQ(l->hidden_count, 2);
    if (l->total == 4) {
        CHECK_EQ(l->g[0].bytes, 4096);
        CHECK_EQ(l->g[0].stack_id, st.load);
        CHECK_STR(sb_cs_text(db, l->g[0].cs), "load_batch data.py:42");
        /* the two stack ids of train_step: one group */
        CHECK_EQ(l->g[1].bytes, 1024);
        CHECK_EQ(l->g[1].count, 2);
        CHECK_EQ(l->g[1].stack_id, st.train);
        CHECK_EQ(l->g[1].first_seq, 3);
        CHECK_EQ(l->g[1].last_seq, 5);
        CHECK_EQ(l->g[1].first_time_ns, 300);
        CHECK_EQ(l->g[1].last_time_ns, 500);
        CHECK_STR(sb_cs_text(db, l->g[1].cs), "train_step train.py:10");
        CHECK_EQ(l->g[2].bytes, 100);
        CHECK_EQ(l->g[2].device, 1);
        CHECK_EQ(l->g[2].cs, l->g[0].cs);
        CHECK_EQ(l->g[3].bytes, 64);
        CHECK_EQ(l->g[3].kind, GL_KIND_HOST_PINNED);
        CHECK(l->g[3].device == -1, "host group on device %d", l->g[3].device);
    }
    /* a built-in allocator-cache rule: cached, not a leak */
    CHECK_EQ(a->cached.total, 1);
    if (a->cached.total == 1) {
        CHECK_EQ(a->cached.g[0].bytes, 2 * MiB);
        CHECK_EQ(a->cached.g[0].count, 2);
        CHECK_STR(sup->rules[a->cached.g[0].rule].name, "tensorflow-bfc-allocator");
        CHECK_STR(sb_cs_text(db, a->cached.g[0].cs),
                  "tensorflow::BFCAllocator::AllocateRaw alloc.cc:7 < forward model.py:5");
    }
    /* the user's rule (index 0: parsed before the defaults) */
    CHECK_EQ(a->suppressed.total, 1);
    CHECK_EQ(a->suppressed.bytes, 512);
    CHECK_EQ(a->rules[0].bytes, 512);
    CHECK_EQ(a->rules[0].count, 1);
    CHECK_EQ(a->mapped.total, 1);
    CHECK_EQ(a->mapped.bytes, 8192);
    CHECK_EQ(a->modules.total, 1);
    CHECK_EQ(a->modules.bytes, 65536);
    /* per (kind, device): kind asc, then device asc */
    CHECK_EQ(a->nby_kind, 5);
    if (a->nby_kind == 5) {
        CHECK(a->by_kind[0].kind == GL_KIND_DEVICE && a->by_kind[0].device == 0, "by_kind[0]");
        CHECK_EQ(a->by_kind[0].bytes, 1024 + 4096 + 2 * MiB + 512);
        CHECK_EQ(a->by_kind[0].count, 6);
        CHECK(a->by_kind[1].kind == GL_KIND_DEVICE && a->by_kind[1].device == 1, "by_kind[1]");
        CHECK_EQ(a->by_kind[1].bytes, 100);
        CHECK(a->by_kind[2].kind == GL_KIND_HOST_PINNED && a->by_kind[2].device == -1, "by_kind[2]");
        CHECK_EQ(a->by_kind[3].kind, GL_KIND_IPC);
        CHECK_EQ(a->by_kind[4].kind, GL_KIND_MODULE);
        CHECK_EQ(a->by_kind[4].bytes, 65536);
    }
}

static void check_peak(const struct stackdb *db, const struct analysis *a)
{
    CHECK_EQ(a->ndevs, 3);
    CHECK_EQ(a->orphan_peaks, 1);
    if (a->ndevs != 3)
        return;
    /* devices ascending, the host last */
    CHECK_EQ(a->devs[0].dev->device, 0);
    CHECK_EQ(a->devs[1].dev->device, 1);
    CHECK(a->devs[2].dev->device == -1, "host last");
    const struct device_report *d = &a->devs[0];
    CHECK_EQ(d->ncomp_total, 3); /* train's two stack ids are one item */
    CHECK_EQ(d->ncomp, 2);       /* --top 2 */
    CHECK_EQ(d->comp_bytes_hidden, 512);
    CHECK_EQ(d->comp_count_hidden, 1);
    if (d->ncomp_total == 3) {
        CHECK_EQ(d->comp[0].bytes, 4096);
        CHECK_STR(sb_cs_text(db, d->comp[0].cs), "load_batch data.py:42");
        CHECK_EQ(d->comp[1].bytes, 2048);
        CHECK_EQ(d->comp[1].count, 3);
        CHECK_EQ(d->comp[1].stack_id, st.train);
        CHECK_STR(sb_cs_text(db, d->comp[1].cs), "train_step train.py:10");
        CHECK_EQ(d->comp[2].bytes, 512);
    }
    CHECK_EQ(a->devs[1].ncomp_total, 1);
    CHECK_EQ(a->devs[2].ncomp_total, 0);
}

static void check_ledger(const struct ledger *lg)
{
    CHECK_EQ(lg->ndev, 1); /* only device 0 has the driver's view */
    if (lg->ndev != 1)
        return;
    const struct ledger_dev *d = &lg->dev[0];
    CHECK_EQ(d->device, 0);
    CHECK_EQ(d->live, 1000 + 24 + 4096 + 2 * MiB + 512);
    CHECK_EQ(d->kind_count[GL_KIND_DEVICE], 6);
    CHECK_EQ(d->cached, 2 * MiB);
    CHECK_EQ(d->pool_idle, 768 * KiB);
    CHECK_EQ(d->npools, 1);
    CHECK(d->have_graph_pool, "graph pool");
    CHECK_EQ(d->graph_idle, 4096);
    CHECK_EQ(d->modules, 65536);
    CHECK_EQ(d->nmodules, 1);
    CHECK(d->ctx_measured, "context measured");
    CHECK_EQ(d->ctx, 300 * MiB);
    CHECK_EQ(d->ipc, 8192);
    CHECK_EQ(d->nipc, 1);
    CHECK_EQ(d->used, d->explained + 12345);
    CHECK(d->remainder == 12345, "remainder %lld, want 12345", (long long)d->remainder);
}

static void test_leaks_peak_ledger(void)
{
    struct sb b;
    build_leaks(&b);
    struct sb_env e;
    sb_open(&b, user_rules, &e);
    struct analysis a;
    struct ledger lg;
    const struct analyze_opts o = {.top = 2};
    CHECK(analyze(&e.m.v, &e.sup, &o, &a) == 0, "analyze");
    CHECK(ledger_build(&e.m.v, &a, &lg) == 0, "ledger_build");
    check_leaks(e.db, &e.sup, &a);
    check_peak(e.db, &a);
    check_ledger(&lg);
    ledger_free(&lg);
    analysis_free(&a);
    sb_close(&e);
}

/* ---- fragmentation: another snapshot ---------------------------------- */

#define P 0x7f0000000000ull /* a 2 MiB page boundary */
#define R 0x7e0000000000ull /* VMM reservations */

static uint32_t small_site, full_site;

static void build_frag(struct sb *b)
{
    sb_init(b);
    small_site = sb_site(b, "buf.py", 1, "small_buf");
    full_site = sb_site(b, "buf.py", 2, "full_page");
    /* page 0: 4 KiB (mostly empty); page 1: full; page 3: 512 KiB (mostly
     * empty) */
    SB_ADD(b, ALLOCS, allocs, .ptr = P, .size = 4096, .stack_id = small_site);
    SB_ADD(b, ALLOCS, allocs, .ptr = P + 2 * MiB, .size = 2 * MiB, .stack_id = full_site);
    SB_ADD(b, ALLOCS, allocs, .ptr = P + 6 * MiB, .size = 512 * KiB, .stack_id = small_site,
           .kind = GL_KIND_POOL);
    /* page 5: more than half full, so not mostly empty */
    SB_ADD(b, ALLOCS, allocs, .ptr = P + 10 * MiB, .size = 1280 * KiB, .stack_id = full_site);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x9000, .size = 1000, .kind = GL_KIND_MANAGED);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0xa000, .size = 8192, .kind = GL_KIND_IPC); /* not usage */
    SB_ADD(b, ALLOCS, allocs, .ptr = 0xf1, .size = 2 * MiB, .kind = GL_KIND_VIRTUAL);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0xf2, .size = 4 * MiB, .kind = GL_KIND_VIRTUAL);
    SB_ADD(b, DEVICES, devices, .device = 0, .mem_total = 8 * GiB, .mem_free = 6 * GiB);
    SB_ADD(b, POOLS, pools, .handle = 0x10, .device = 0, .reserved = 3 * MiB, .used = MiB);
    SB_ADD(b, POOLS, pools, .handle = GL_POOL_GRAPH_MEM, .device = 0, .reserved = 4 * MiB, .used = 2 * MiB);
    /* a reservation of no device, owned by the mapping inside it; another
     * with nothing mapped */
    SB_ADD(b, VMM, vmm, .va = R, .size = 64 * MiB, .type = GL_VMM_RESERVATION, .device = -1);
    SB_ADD(b, VMM, vmm, .va = R + 2 * MiB, .size = 2 * MiB, .handle = 0xf1, .type = GL_VMM_MAPPING);
    SB_ADD(b, VMM, vmm, .va = R + 128 * MiB, .size = 32 * MiB, .type = GL_VMM_RESERVATION, .device = -1);
}

static void check_frag(const struct stackdb *db, const struct frag *f)
{
    CHECK_EQ(f->ndev, 1);
    CHECK_EQ(f->idle_reservations, 1);
    CHECK_EQ(f->idle_reserved, 32 * MiB);
    if (f->ndev != 1)
        return;
    const struct frag_dev *d = &f->dev[0];
    CHECK_EQ(d->live_bytes, 4096 + 2 * MiB + 512 * KiB + 1280 * KiB + 1000 + 6 * MiB);
    CHECK_EQ(d->live_count, 7);
    CHECK(d->have_driver, "driver view");
    CHECK_EQ(d->driver_used, 2 * GiB);
    CHECK_EQ(d->addr_bytes, 4096 + 2 * MiB + 512 * KiB + 1280 * KiB);
    CHECK_EQ(d->addr_count, 4);
    CHECK_EQ(d->span_lo, P);
    CHECK_EQ(d->span_hi, P + 10 * MiB + 1280 * KiB);
    CHECK_EQ(d->pages, 4);
    CHECK_EQ(d->sparse_pages, 2);
    CHECK_EQ(d->sparse_empty_bytes, 2 * MiB - 4096 + 1536 * KiB);
    CHECK_EQ(d->holes, 3);
    CHECK_EQ(d->hole_bytes, 4 * MiB - 4096 + 3584 * KiB);
    CHECK_EQ(d->largest_hole, 3584 * KiB);
    CHECK(d->headline > 0.533 && d->headline < 0.534, "headline %f", d->headline); /* 1 - 3584 / 7676 KiB */
    CHECK_EQ(d->live_class_count[13], 1); /* 4096: [2^12, 2^13) */
    CHECK_EQ(d->live_class_count[22], 2); /* 2 MiB twice */
    CHECK_EQ(d->live_class_count[21], 1); /* 1280 KiB */
    CHECK_EQ(d->npins_total, 1);
    if (d->npins_total == 1) {
        CHECK_EQ(d->pins[0].stack_id, small_site);
        CHECK_EQ(d->pins[0].empty_bytes, 2 * MiB - 4096 + 1536 * KiB);
        CHECK_EQ(d->pins[0].count, 2);
        CHECK_STR(sb_cs_text(db, d->pins[0].cs), "small_buf buf.py:1");
    }
    CHECK_EQ(d->npools, 1);
    CHECK_EQ(d->pool_reserved, 3 * MiB);
    CHECK_EQ(d->pool_used, MiB);
    CHECK(d->have_graph_pool, "graph pool");
    CHECK_EQ(d->graph_reserved, 4 * MiB);
    CHECK_EQ(d->nreservations, 1);
    CHECK_EQ(d->va_reserved, 64 * MiB);
    CHECK_EQ(d->nmappings, 1);
    CHECK_EQ(d->va_mapped, 2 * MiB);
    CHECK_EQ(d->nphysical, 2);
    CHECK_EQ(d->physical, 6 * MiB);
    CHECK_EQ(d->nunmapped, 1);
    CHECK_EQ(d->physical_unmapped, 4 * MiB);
}

static void test_frag(void)
{
    struct sb b;
    build_frag(&b);
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m;
    sb_load(&b, db, NULL, &m);
    struct frag f;
    CHECK(frag_build(&m.v, &(struct analyze_opts){0}, &f) == 0, "frag_build");
    check_frag(db, &f);
    frag_free(&f);
    sb_unload(&m);
    sdb_free(db);
}

int main(void)
{
    test_leaks_peak_ledger();
    test_frag();
    return sb_done("analysis_report: leaks, peak, ledger, fragmentation");
}
