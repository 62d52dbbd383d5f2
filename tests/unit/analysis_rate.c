/* Unit test of growth per hour (issue 45, item 8): the arithmetic
 * (util/rate.c), the clock of a diff's series (analysis/multi/rate.c: one
 * process with times; different processes; no time) with the rates of its
 * rows, and the rate of a line over PyTorch's time windows
 * (analysis/step_rate.c: windows only, not optimizer steps).  Every
 * expected rate is growth x 3600 s / elapsed, rounded down, worked out in
 * the comments. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/multi/multi.h"
#include "analysis/multi/rate.h"
#include "analysis/step_rate.h"
#include "analysis/torch_steps.h"
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

/* ---- PyTorch's steps and windows -------------------------------------- */

static char file_s[] = "/srv/serve.py", cache_fn[] = "handle", other_fn[] = "load";

/* Record k: step k + 1, ended at time_ns[k], window or step; cache
 * serve.py:12 holding 65,536 x (k + 1) bytes, weights serve.py:4 a fixed
 * 1 MiB. */
static void fill_steps(struct snap_torch_step *st, struct snap_torch_step_line (*lines)[2], size_t n,
                       const uint64_t *time_ns, const bool *window)
{
    for (size_t k = 0; k < n; k++) {
        lines[k][0] = (struct snap_torch_step_line){65536 * (k + 1), k + 1, 12,
                                                    {file_s, sizeof file_s - 1}, {cache_fn, sizeof cache_fn - 1}};
        lines[k][1] = (struct snap_torch_step_line){1 << 20, 1, 4, {file_s, sizeof file_s - 1},
                                                    {other_fn, sizeof other_fn - 1}};
        memset(&st[k], 0, sizeof st[k]);
        st[k].step = k + 1;
        st[k].time_ns = time_ns[k];
        st[k].flags = GL_TORCH_STEP_F_LINES | (window[k] ? GL_TORCH_STEP_F_WINDOW : 0);
        st[k].lines = 2;
        st[k].line_list = lines[k];
    }
}

static uint64_t cache_rate(const char *what, const uint64_t *time_ns, const bool *window)
{
    struct snap_torch_step st[4];
    struct snap_torch_step_line lines[4][2];
    fill_steps(st, lines, 4, time_ns, window);
    struct snapshot s;
    memset(&s, 0, sizeof s);
    s.torch_steps = st;
    s.ntorch_steps = 4;
    struct step_growth *g;
    size_t n = torch_steps_growth(&s, 16, &g);
    CHECK(n == 1, "%s: %zu growing lines, want 1 (the cache's)", what, n);
    uint64_t r = n == 1 && g[0].line->line == 12 ? step_growth_per_hour(&s, &g[0]) : 1;
    free(g);
    return r;
}

static void test_steps(void)
{
    const bool windows[4] = {true, true, true, true}, steps[4] = {false, false, false, false},
               mixed[4] = {true, false, true, true};
    /* windows 0.25 s apart: +196,608 bytes over 0.75 s = 943,718,400 an hour */
    const uint64_t t[4] = {SEC, SEC + SEC / 4, SEC + SEC / 2, SEC + 3 * SEC / 4};
    CHECK_EQ(cache_rate("windows", t, windows), 943718400);
    /* optimizer steps are counted in steps: no rate */
    CHECK_EQ(cache_rate("steps", t, steps), 0);
    /* an optimizer step among the windows: no rate either */
    CHECK_EQ(cache_rate("mixed", t, mixed), 0);
    /* windows that carry no time passing */
    const uint64_t same[4] = {SEC, SEC, SEC, SEC};
    CHECK_EQ(cache_rate("no time", same, windows), 0);
}

int main(void)
{
    test_arithmetic();
    test_series();
    test_steps();
    return sb_done("analysis_rate: bytes per hour");
}
