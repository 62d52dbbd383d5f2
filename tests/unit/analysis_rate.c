/* Unit test of growth per hour (issue 45, item 8): the arithmetic
 * (util/rate.c), the clock of a diff's series (analysis/multi/rate.c: one
 * process with times; different processes; no time) with the rates of its
 * rows.  Every expected rate is growth x 3600 s / elapsed, rounded down,
 * worked out in the comments. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analysis/multi/multi.h"
#include "analysis/multi/rate.h"
#include "snapbuild.h"
#include "util/rate.h"

#define SEC 1000000000ull

static void test_arithmetic(void)
{
    CHECK_EQ(rate_per_hour(512, 2 * SEC), 921600);         /* 256 B/s */
    CHECK_EQ(rate_per_hour(1, 3600 * SEC), 1);
    CHECK_EQ(rate_per_hour(3, 7 * SEC), 1542);             /* 1542.86, rounded down */
    CHECK_EQ(rate_per_hour(12 << 20, 3600 * SEC), 12 << 20); /* 12 MiB in an hour */
    CHECK_EQ(rate_per_hour(1000, 0), 0);                   /* no time passed: no rate */
    CHECK_EQ(rate_per_hour(UINT64_MAX, 1), UINT64_MAX);    /* saturates */
    CHECK_EQ(rate_per_hour(UINT64_MAX, RATE_NS_PER_HOUR), UINT64_MAX); /* exact in 128 bits */
}

/* Snapshot i of the process pid: grow.py:3 holds 1,000 x (i + 1) bytes,
 * shrink.py:8 3,000 - 1,000 x i; taken at mono_ns. */
static void build_snap(struct sb *b, unsigned i, uint32_t pid, uint64_t mono_ns)
{
    sb_init(b);
    b->proc.pid = pid;
    b->proc.snapshot_mono_ns = mono_ns;
    uint32_t grow = sb_site(b, "grow.py", 3, "grow");
    uint32_t shrink = sb_site(b, "shrink.py", 8, "shrink");
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x1000, .size = 1000 * (i + 1), .seq = 1, .stack_id = grow);
    SB_ADD(b, ALLOCS, allocs, .ptr = 0x2000, .size = 3000 - 1000 * i, .seq = 2, .stack_id = shrink);
    SB_ADD(b, DEVICES, devices, .device = 0, .live_bytes = 4000);
}

/* The diff of three snapshots with these pids and times: its clock, and
 * the rates of grow (suspected) and shrink (not). */
static void check_series(const char *what, const uint32_t pid[3], const uint64_t mono[3],
                         enum series_clock_state state, uint64_t elapsed, uint64_t grow_rate)
{
    struct stackdb *db = sdb_new(&(struct sdb_opts){0});
    struct msnap m[3];
    for (unsigned i = 0; i < 3; i++) {
        struct sb b;
        build_snap(&b, i, pid[i], mono[i]);
        sb_load(&b, db, NULL, &m[i]);
    }
    struct series_clock c = series_clock_of(m, 3);
    CHECK(c.state == state, "%s: clock state %d, want %d", what, (int)c.state, (int)state);
    CHECK(c.elapsed_ns == elapsed, "%s: elapsed %llu, want %llu", what, (unsigned long long)c.elapsed_ns,
          (unsigned long long)elapsed);
    CHECK((series_clock_why_not(c.state) == NULL) == (state == SERIES_CLOCK_KNOWN), "%s: why not", what);
    struct diff_result d;
    CHECK(diff_build(m, 3, &(struct analyze_opts){0}, &d) == 0, "diff_build");
    CHECK_EQ(d.t.n, 2);
    for (size_t k = 0; k < d.t.n; k++) {
        const struct mrow *r = &d.t.rows[k];
        bool grow = strcmp(sb_cs_text(db, r->cs), "grow grow.py:3") == 0;
        CHECK(grow == r->suspected, "%s: %s suspected %d", what, sb_cs_text(db, r->cs), r->suspected);
        uint64_t got = mrow_per_hour(&c, r);
        CHECK(got == (grow ? grow_rate : 0), "%s: %s: %llu bytes/hour, want %llu", what, sb_cs_text(db, r->cs),
              (unsigned long long)got, (unsigned long long)(grow ? grow_rate : 0));
    }
    diff_free(&d);
    for (unsigned i = 0; i < 3; i++)
        sb_unload(&m[i]);
    sdb_free(db);
}

static void test_series(void)
{
    /* one process, 10 s then 20 s later: +2,000 bytes over 30 s = 240,000 an hour */
    check_series("one process", (const uint32_t[]){7, 7, 7}, (const uint64_t[]){5 * SEC, 15 * SEC, 35 * SEC},
                 SERIES_CLOCK_KNOWN, 30 * SEC, 240000);
    /* the ranks of a job (diff --across-runs): no common clock */
    check_series("processes", (const uint32_t[]){7, 8, 9}, (const uint64_t[]){5 * SEC, 15 * SEC, 35 * SEC},
                 SERIES_CLOCK_PROCESSES, 0, 0);
    /* a first snapshot without a time */
    check_series("no time", (const uint32_t[]){7, 7, 7}, (const uint64_t[]){0, 15 * SEC, 35 * SEC},
                 SERIES_CLOCK_NO_TIME, 0, 0);
    /* no time passed from the first to the last */
    check_series("no time passed", (const uint32_t[]){7, 7, 7}, (const uint64_t[]){5 * SEC, 5 * SEC, 5 * SEC},
                 SERIES_CLOCK_NO_TIME, 0, 0);
}

int main(void)
{
    test_arithmetic();
    test_series();
    return sb_done("analysis_rate: bytes per hour");
}
