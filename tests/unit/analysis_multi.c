/* Unit test of the analyses over several snapshots (report/analysis/multi/):
 * diff (multi.c: growth per canonical stack across three snapshots of one
 * process, the monotonic "suspected" rows first, what is new since the
 * first snapshot, devices per snapshot in diff_devices.c) and merge (the
 * ranks of one job: per-snapshot totals, rows on some ranks only, leaks by
 * site in leaks_merge.c), PyTorch's tensors by line over a series where a
 * snapshot has no view (torch_multi.c: unknown, never zero) and the
 * segments its view explains, and the program a process ran (program.c).
 * Stack ids differ between the snapshots and match
 * through the frames they show, in one shared stackdb, as in the reporter.
 * Links only report/model, report/analysis and report/util objects. */
#include <stdio.h>
#include <string.h>

#include "analysis/multi/multi.h"
#include "analysis/multi/rate.h"
#include "analysis/multi/torch_multi.h"
#include "model/program.h"
#include "snapbuild.h"

/* ---- diff: three snapshots of one process ----------------------------- */

/* Snapshot i (0, 1, 2), taken at (i + 1) * 1000 ns:
 *   remember cache.py:5   one 100-byte allocation more each time (at k*1000+500)
 *   weights  model.py:1   4096, unchanged
 *   scratch  tmp.py:9     3000, 2000, 1000
 *   late_init late.py:4   only in the last: 50 (at 2600) */
static void build_diff_snap(struct sb *b, unsigned i)
{
    sb_init(b);
    b->proc.snapshot_mono_ns = (i + 1) * 1000;
    /* sites made in another order in each snapshot: other stack ids */
    uint32_t late = i == 2 ? sb_site(b, "late.py", 4, "late_init") : 0;
    uint32_t scratch = sb_site(b, "tmp.py", 9, "scratch");
    uint32_t weights = sb_site(b, "model.py", 1, "weights");
    uint32_t remember = sb_site(b, "cache.py", 5, "remember");
    for (unsigned k = 0; k <= i; k++)
        SB_ADD(b, ALLOCS, allocs, .ptr = 0x1000 + k, .size = 100, .seq = 10 + k,
               .time_ns = k * 1000 + 500, .stack_id = remember);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x2000, .size = 4096, .seq = 1, .time_ns = 100, .stack_id = weights);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x3000, .size = 3000 - 1000 * i, .seq = 2, .time_ns = 100,
           .stack_id = scratch);
    if (late)
        SB_ADD(b, ALLOCS, allocs, .ptr = 0x4000, .size = 50, .seq = 20, .time_ns = 2600, .stack_id = late);
    uint64_t live = 100 * (i + 1) + 4096 + 3000 - 1000 * i + (late ? 50 : 0);
    SB_ADD(b, DEVICES, devices, .device = 0, .live_bytes = live, .peak_bytes = 10000 * (i + 1),
           .peak_time_ns = 300 + i);
}

static void check_row(const struct stackdb *db, const struct mtable *t, size_t i, const char *frames,
                      uint64_t b0, uint64_t b1, uint64_t b2)
{
    if (i >= t->n) {
        CHECK(0, "row %zu missing", i);
        return;
    }
    CHECK_STR(sb_cs_text(db, t->rows[i].cs), frames);
    const uint64_t *bytes, *count;
    mt_expand(t, &t->rows[i], &bytes, &count);
    CHECK(bytes[0] == b0 && bytes[1] == b1 && bytes[2] == b2, "row %zu (%s): %llu %llu %llu", i, frames,
          (unsigned long long)bytes[0], (unsigned long long)bytes[1], (unsigned long long)bytes[2]);
}

static void check_diff(const struct stackdb *db, const struct diff_result *d)
{
    CHECK(d->same_process, "one process");
    CHECK_EQ(d->t.n, 4);
    CHECK_EQ(d->t.nshown, 3); /* the rows that changed */
    if (d->t.n == 4) {
        check_row(db, &d->t, 0, "remember cache.py:5", 100, 200, 300);
        CHECK(d->t.rows[0].suspected && d->t.rows[0].monotonic && !d->t.rows[0].cache_growth,
              "remember: a suspected leak");
        CHECK_EQ(d->t.rows[0].growth, 200);
        check_row(db, &d->t, 1, "scratch tmp.py:9", 3000, 2000, 1000);
        CHECK(d->t.rows[1].shrank && !d->t.rows[1].suspected, "scratch shrank");
        CHECK_EQ(d->t.rows[1].growth, 2000);
        check_row(db, &d->t, 2, "late_init late.py:4", 0, 0, 50);
        CHECK_EQ(d->t.rows[2].present, 1);
        check_row(db, &d->t, 3, "weights model.py:1", 4096, 4096, 4096);
        CHECK(!d->t.rows[3].changed, "weights unchanged");
        const uint64_t *bytes, *count;
        mt_expand(&d->t, &d->t.rows[0], &bytes, &count);
        CHECK(count[0] == 1 && count[1] == 2 && count[2] == 3, "remember's allocations");
    }
    /* new since the first snapshot (taken at 1000 ns) */
    CHECK_EQ(d->fresh_bytes, 250);
    CHECK_EQ(d->fresh_count, 3);
    CHECK_EQ(d->nfresh, 2);
    if (d->nfresh == 2) {
        CHECK_EQ(d->fresh[0].bytes, 200);
        CHECK_EQ(d->fresh[0].count, 2);
        CHECK_STR(sb_cs_text(db, d->fresh[0].cs), "remember cache.py:5");
        CHECK_EQ(d->fresh[1].bytes, 50);
    }
    CHECK_EQ(d->devs.n, 1);
    if (d->devs.n == 1) {
        CHECK_EQ(d->devs.d[0].device, 0);
        CHECK_EQ(d->devs.d[0].ncells, 3);
        const struct device_series *ds = diff_devices_expand(&d->devs, 0);
        CHECK(ds->live[0] == 7196 && ds->live[1] == 6296 && ds->live[2] == 5446, "live per snapshot");
        CHECK(ds->peak[0] == 10000 && ds->peak[2] == 30000 && ds->peak_time_ns[1] == 301, "peak per snapshot");
    }
}

static void test_diff(void)
{
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m[3];
    for (unsigned i = 0; i < 3; i++) {
        struct sb b;
        build_diff_snap(&b, i);
        sb_load(&b, db, NULL, &m[i]);
    }
    struct diff_result d;
    CHECK(diff_build(m, 3, &(struct analyze_opts){0}, &d) == 0, "diff_build");
    check_diff(db, &d);
    diff_free(&d);
    for (unsigned i = 0; i < 3; i++)
        sb_unload(&m[i]);
    sdb_free(db);
}

/* ---- merge: two ranks ------------------------------------------------- */

/* rank 0 (device 0): step step.py:7 1000, only_rank0 rank0.py:3 500; peak 5000
 * rank 1 (device 1): step step.py:7 1000, a mapping of the peer's memory 64;
 *                    peak 7000 */
static void build_rank(struct sb *b, unsigned rank)
{
    sb_init(b);
    b->proc.rank = rank;
    b->proc.pid = 100 + rank;
    uint32_t step = sb_site(b, "step.py", 7, "step");
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x1000, .size = 1000, .stack_id = step, .device = (int32_t)rank);
    if (rank == 0) {
        uint32_t only = sb_site(b, "rank0.py", 3, "only_rank0");
        SB_ADD(b, ALLOCS, allocs, .ptr = 0x2000, .size = 500, .stack_id = only);
    } else {
        uint32_t peer = sb_site(b, "peer.py", 2, "open_peer");
        SB_ADD(b, ALLOCS, allocs, .ptr = 0x3000, .size = 64, .stack_id = peer, .device = 1,
               .kind = GL_KIND_IPC);
    }
    SB_ADD(b, DEVICES, devices, .device = (int32_t)rank, .peak_bytes = 5000 + 2000 * rank,
           .peak_time_ns = 77);
}

static void check_merge(const struct stackdb *db, const struct merge_result *r)
{
    CHECK_EQ(r->snaps[0].live_bytes, 1500);
    CHECK_EQ(r->snaps[0].leaked_bytes, 1500);
    CHECK_EQ(r->snaps[0].leaked_count, 2);
    CHECK_EQ(r->snaps[1].live_bytes, 1064);
    CHECK_EQ(r->snaps[1].live_count, 2);
    CHECK_EQ(r->snaps[1].leaked_bytes, 1000); /* the mapping is no leak */
    CHECK_EQ(r->snaps[1].peak_bytes, 7000);
    CHECK_EQ(r->snaps[1].peak_device, 1);
    CHECK_EQ(r->largest, 1);
    /* rows on some ranks only first, by bytes; devices are not compared */
    CHECK_EQ(r->t.n, 3);
    CHECK_EQ(r->t.nshown, 2);
    if (r->t.n == 3) {
        CHECK_STR(sb_cs_text(db, r->t.rows[0].cs), "only_rank0 rank0.py:3");
        CHECK_STR(sb_cs_text(db, r->t.rows[1].cs), "open_peer peer.py:2");
        CHECK_STR(sb_cs_text(db, r->t.rows[2].cs), "step step.py:7");
        CHECK_EQ(r->t.rows[2].present, 2);
        CHECK_EQ(r->t.rows[2].total, 2000);
    }
    CHECK_EQ(r->leaks.n, 2);
    CHECK_EQ(r->leaks.bytes, 2500);
    if (r->leaks.n == 2) {
        CHECK_STR(sb_cs_text(db, r->leaks.v[0].row->cs), "step step.py:7");
        CHECK_EQ(r->leaks.v[0].min_bytes, 1000);
        CHECK_EQ(r->leaks.v[0].max_bytes, 1000);
        CHECK_EQ(r->leaks.v[1].max_bytes, 500);
        CHECK_EQ(r->leaks.v[1].max_snap, 0);
    }
}

static void test_merge(void)
{
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m[2];
    for (unsigned i = 0; i < 2; i++) {
        struct sb b;
        build_rank(&b, i);
        sb_load(&b, db, NULL, &m[i]);
    }
    struct merge_result r;
    CHECK(merge_build(m, 2, &(struct analyze_opts){0}, &r) == 0, "merge_build");
    check_merge(db, &r);
    struct merge_agg agg[4];
    size_t na = merge_aggregate(m, 2, agg, 4, true);
    CHECK_EQ(na, 2);
    if (na == 2)
        CHECK(agg[1].device == 1 && agg[1].peak_max == 7000 && strcmp(agg[1].ranks, "1") == 0,
              "per (host, device): device %d, peak %llu, ranks %s", agg[1].device,
              (unsigned long long)agg[1].peak_max, agg[1].ranks);
    merge_free(&r);
    for (unsigned i = 0; i < 2; i++)
        sb_unload(&m[i]);
    sdb_free(db);
}

/* ---- diff of a series where PyTorch's view is unknown in a snapshot ---- */

#define KiB 1024u
#define MiB (1024u * KiB)
#define TSNAPS 4

/* Snapshot i (0..3) of one process: i + 1 segments of PyTorch's cache,
 * 1 MiB each, at 0x10000000 + j MiB, each a cudaMalloc from request
 * serve.py:9 and holding one live 512 KiB tensor made at keep serve.py:11
 * (the rest cached); 1,000 bytes x (i + 1) from raw ext.py:5, no segment;
 * in snapshot 1 only, 300 bytes from burst gen.py:2.  PyTorch's view: in
 * snapshots 0, 2 and 3 (it adds up); snapshot 1 has a TORCH record that
 * says "not answered in time" when answer is NO_ANSWER, none when 0. */
static void build_torch_snap(struct sb *b, unsigned i, uint32_t unknown_status)
{
    sb_init(b);
    b->proc.snapshot_mono_ns = (i + 1) * 1000;
    uint32_t request = sb_site(b, "serve.py", 9, "request");
    uint32_t keep = sb_site(b, "serve.py", 11, "keep");
    uint32_t raw = sb_site(b, "ext.py", 5, "raw");
    for (unsigned j = 0; j <= i; j++) {
        uint64_t seg = 0x10000000u + j * MiB;
        SB_ADD(b, ALLOCS, allocs, .ptr = seg, .size = MiB, .seq = 10 + j, .time_ns = j * 1000 + 500,
               .stack_id = request, .kind = GL_KIND_DEVICE, .api = GL_API_CUDA_MALLOC);
        if (i == 1)
            continue;
        SB_ADD(b, TORCH_BLOCKS, torch_blocks, .segment = seg, .address = seg, .size = 512 * KiB,
               .requested_size = 512 * KiB, .stack_id = keep, .state = GL_TORCH_BLOCK_ALLOCATED);
        SB_ADD(b, TORCH_BLOCKS, torch_blocks, .segment = seg, .address = seg + 512 * KiB, .size = 512 * KiB,
               .state = GL_TORCH_BLOCK_INACTIVE);
    }
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x2000, .size = 1000 * (i + 1), .seq = 2, .time_ns = 100,
           .stack_id = raw);
    if (i == 1) {
        uint32_t burst = sb_site(b, "gen.py", 2, "burst");
        SB_ADD(b, ALLOCS, allocs, .ptr = 0x3000, .size = 300, .seq = 3, .time_ns = 1600, .stack_id = burst);
        b->torch.status = unknown_status;
    } else {
        b->torch = (struct gl_wire_torch){.status = GL_TORCH_ANSWERED, .segments = i + 1,
                                          .reserved_bytes = (i + 1) * MiB,
                                          .allocated_bytes = (i + 1) * 512 * KiB};
    }
}

static const struct mrow *row_named(const struct stackdb *db, const struct mtable *t, const char *frames)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(sb_cs_text(db, t->rows[i].cs), frames) == 0)
            return &t->rows[i];
    CHECK(0, "no row %s", frames);
    return NULL;
}

/* The tensors: unknown in snapshot 1, never 0; the line's growth is over
 * snapshots 0, 2, 3 (+1.5 MiB), at every one of their steps: suspected. */
static void check_torch_lines(const struct stackdb *db, const struct torch_multi *t, uint32_t status)
{
    CHECK_EQ(t->answered, 3);
    CHECK(t->known[0] && !t->known[1] && t->known[2] && t->known[3], "status %u: known 1 0 1 1", status);
    CHECK_EQ(t->nrows, 1);
    if (t->nrows != 1)
        return;
    const struct torch_mrow *r = &t->rows[0];
    CHECK_STR(db->frames[r->frame].function, "keep");
    CHECK(r->bytes[0] == 512 * KiB && r->bytes[2] == 3 * 512 * KiB && r->bytes[3] == 4 * 512 * KiB,
          "keep's bytes");
    CHECK(r->count[0] == 1 && r->count[2] == 3 && r->count[3] == 4, "keep's tensors");
    CHECK_EQ(r->change, 3 * 512 * KiB);
    CHECK(r->suspected, "status %u: keep grew at every step of the snapshots with the view", status);
}

/* The segments PyTorch's view explains wherever it is known are its cache,
 * not a suspected leak, though snapshot 1 cannot tell; memory no view
 * explains still is one. */
static void check_torch_stacks(const struct stackdb *db, const struct diff_result *d, uint32_t status)
{
    const struct mrow *req = row_named(db, &d->t, "request serve.py:9");
    if (req)
        CHECK(req->monotonic && !req->beyond_torch && !req->suspected,
              "status %u: request: monotonic %d, beyond PyTorch %d, suspected %d", status, req->monotonic,
              req->beyond_torch, req->suspected);
    const struct mrow *raw = row_named(db, &d->t, "raw ext.py:5");
    if (raw)
        CHECK(raw->beyond_torch && raw->suspected, "status %u: raw: a suspected leak", status);
    /* only where the view is unknown: no evidence it is PyTorch's */
    const struct mrow *burst = row_named(db, &d->t, "burst gen.py:2");
    if (burst)
        CHECK(burst->beyond_torch, "status %u: burst: beyond PyTorch's view", status);
}

static void test_torch_unknown(uint32_t status)
{
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m[TSNAPS];
    for (unsigned i = 0; i < TSNAPS; i++) {
        struct sb b;
        build_torch_snap(&b, i, status);
        sb_load(&b, db, NULL, &m[i]);
        CHECK(i == 1 || m[i].v.torch_check.nproblems == 0, "snapshot %u's view adds up", i);
    }
    struct torch_multi t;
    torch_multi_build(m, TSNAPS, &t);
    check_torch_lines(db, &t, status);
    /* growth per hour (issue 45, item 8): +1.5 MiB from snapshot 0 (1,000 ns)
     * to snapshot 3 (4,000 ns), the first and last with the view:
     * 1,572,864 x 3.6e12 / 3,000 = 1,572,864 x 1.2e9 */
    struct series_clock clock = series_clock_of(m, TSNAPS);
    if (t.nrows == 1)
        CHECK_EQ(torch_mrow_per_hour(&clock, m, &t, &t.rows[0]), 1887436800000000ull);
    torch_multi_free(&t);
    struct diff_result d;
    CHECK(diff_build(m, TSNAPS, &(struct analyze_opts){0}, &d) == 0, "diff_build");
    check_torch_stacks(db, &d, status);
    diff_free(&d);
    for (unsigned i = 0; i < TSNAPS; i++)
        sb_unload(&m[i]);
    sdb_free(db);
}

/* ---- the program a process ran (diff --across-runs) ------------------ */

/* snap_program of a process with executable exe and the command line
 * args (argv[0] first, NULL-terminated). */
static const char *program_of(const char *exe, const char *const *args)
{
    static struct snap_str argv[16];
    static char name[256];
    struct snap_process p;
    memset(&p, 0, sizeof p);
    p.exe = (struct snap_str){(char *)exe, (uint32_t)strlen(exe)};
    while (args[p.argc] && p.argc < 16) {
        argv[p.argc] = (struct snap_str){(char *)args[p.argc], (uint32_t)strlen(args[p.argc])};
        p.argc++;
    }
    p.argv = argv;
    snap_program(&p, name, sizeof name);
    return name;
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_programs(void)
{
    /* a native program: its executable's file name, whatever its arguments */
    CHECK_STR(program_of("/home/a/build/train", ARGS("./train", "--lr", "0.1")), "train");
    CHECK_STR(program_of("", ARGS("/opt/b/train")), "train");
    CHECK_STR(program_of("", ARGS(NULL)), "?");
    /* Python: the script, the module or -c, the interpreter's version aside */
    const char *py = "/usr/bin/python3.11";
    CHECK_STR(program_of(py, ARGS("python", "/srv/app/serve.py", "--port", "80")), "python serve.py");
    CHECK_STR(program_of("/x/python3.12", ARGS("python3", "-u", "-W", "ignore", "-X", "dev", "serve.py")),
              "python serve.py");
    CHECK_STR(program_of(py, ARGS("python", "-Wignore", "-OO", "serve.py")), "python serve.py");
    CHECK_STR(program_of(py, ARGS("python", "-m", "torch.distributed.run", "train.py")),
              "python -m torch.distributed.run");
    CHECK_STR(program_of(py, ARGS("python", "-um", "pkg.main")), "python -m pkg.main");
    CHECK_STR(program_of(py, ARGS("python", "-c", "import x", "serve.py")), "python -c");
    CHECK_STR(program_of(py, ARGS("python", "--check-hash-based-pycs", "always", "a.py")), "python a.py");
    CHECK_STR(program_of(py, ARGS("python")), "python");
}

int main(void)
{
    test_diff();
    test_merge();
    test_torch_unknown(0);                  /* no TORCH record: "absent" */
    test_torch_unknown(GL_TORCH_NO_ANSWER); /* not answered in time */
    test_programs();
    return sb_done("analysis_multi: diff, merge");
}
