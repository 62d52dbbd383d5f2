/* Unit test of the leak-by-growth rule for PyTorch (report/analysis/
 * torch_steps.c, torch_growth_verdict): which lines grew at each of the
 * last N steps, by how much a step, over which steps; the floor; the
 * still-reachable lines; the allocated fallback when steps have no lines;
 * sampled steps (lines at some steps only).  The rule reads the TORCH_STEP
 * records alone, so the snapshot is built here as the reader leaves it. */
#include <stdio.h>
#include <string.h>

#include "analysis/torch_steps.h"

#define KiB 1024ull
#define NLINES 6
#define MAXSTEPS 12

static int failures;

#define CHECK(what, got, want)                                                                         \
    do {                                                                                               \
        unsigned long long g_ = (got), w_ = (want);                                                    \
        if (g_ != w_) {                                                                                \
            fprintf(stderr, "FAIL %s: %s = %llu, want %llu\n", what, #got, g_, w_);                  \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

/* The lines of the test program, and their bytes at each step (0: absent). */
static const struct {
    const char *file, *function;
    uint32_t line;
} site[NLINES] = {
    {"/w/train.py", "<module>", 20}, /* A: 256 KiB kept a step, from step 1 */
    {"/w/train.py", "forward", 30},  /* B: 4 KiB a step from step 3 */
    {"/w/model.py", "__init__", 5},  /* C: weights, 1 MiB throughout */
    {"/w/train.py", "step", 40},     /* D: grew at 2 of the last 3 steps */
    {"/w/train.py", "<module>", 50}, /* E: a temporary alive at step 3 only */
    {"/w/lib.py", "?", 0},           /* F: grows, but no Python line to name */
};

static struct snap_torch_step steps[MAXSTEPS];
static uint64_t b_sampled[NLINES];
static struct snap_torch_step_line lines[MAXSTEPS][NLINES];

static struct snap_str str(const char *s) { return (struct snap_str){(char *)s, (uint32_t)strlen(s)}; }

/* Step number `number` at record k: allocated, and with bytes (per site,
 * NULL: lines not known) its lines. */
static void set_step(size_t k, uint64_t number, uint64_t allocated, const uint64_t *bytes)
{
    struct snap_torch_step *t = &steps[k];
    memset(t, 0, sizeof *t);
    t->step = number;
    t->allocated = allocated;
    t->line_list = lines[k];
    if (!bytes)
        return;
    t->flags = GL_TORCH_STEP_F_LINES;
    for (size_t i = 0; i < NLINES; i++)
        if (bytes[i])
            lines[k][t->lines++] = (struct snap_torch_step_line){bytes[i], bytes[i] / KiB, site[i].line,
                                                                  str(site[i].file), str(site[i].function)};
}

static const uint64_t five[5][NLINES] = {
    /* A            B          C           D          E            F */
    {256 * KiB, 4 * KiB, 1024 * KiB, 1 * KiB, 0, 8 * KiB},
    {512 * KiB, 4 * KiB, 1024 * KiB, 2 * KiB, 0, 16 * KiB},
    {768 * KiB, 8 * KiB, 1024 * KiB, 3 * KiB, 50 * 1024 * KiB, 24 * KiB},
    {1024 * KiB, 12 * KiB, 1024 * KiB, 3 * KiB, 0, 32 * KiB},
    {1280 * KiB, 16 * KiB, 1024 * KiB, 4 * KiB, 0, 40 * KiB},
};

static struct snapshot five_steps(bool with_lines)
{
    for (size_t k = 0; k < 5; k++)
        set_step(k, k + 1, (4 + k) * 256 * KiB, with_lines ? five[k] : NULL);
    return (struct snapshot){.torch_steps = steps, .ntorch_steps = 5};
}

static void check_leak(const char *what, const struct growth_leak *g, int site_i, uint64_t per, uint64_t from_step,
                       uint64_t to_step, uint64_t from_bytes, uint64_t to_bytes)
{
    if (site_i < 0)
        CHECK(what, g->line == NULL, 1);
    else
        CHECK(what, g->line && g->line->line == site[site_i].line && strcmp(g->line->file.s, site[site_i].file) == 0, 1);
    CHECK(what, g->per_step, per);
    CHECK(what, g->from_step, from_step);
    CHECK(what, g->to_step, to_step);
    CHECK(what, g->from_bytes, from_bytes);
    CHECK(what, g->to_bytes, to_bytes);
}

int main(void)
{
    struct growth_verdict v;
    struct snapshot s = five_steps(true);

    /* default N = 3: A and B grew at steps 3, 4, 5 (after 2); C is flat, D
     * grew at 2 of the 3, the temporary E is gone, F has no line */
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("default", v.steps, 3);
    CHECK("default", v.judged && v.lines_known, 1);
    CHECK("default", v.n, 2);
    if (v.n == 2) {
        check_leak("default A", &v.leaks[0], 0, 256 * KiB, 2, 5, 512 * KiB, 1280 * KiB);
        check_leak("default B", &v.leaks[1], 1, 4 * KiB, 2, 5, 4 * KiB, 16 * KiB);
    }
    CHECK("default", v.per_step, 260 * KiB);
    /* still reachable: the last step's other lines, as it lists them: C, D, F */
    CHECK("reachable", v.nreachable, 3);
    if (v.nreachable == 3)
        CHECK("reachable", v.reachable[0]->line * 100 + v.reachable[1]->line + v.reachable[2]->line * 1000, 540);
    CHECK("reachable bytes", v.reachable_bytes, (1024 + 4 + 40) * KiB);
    CHECK("reachable count", v.reachable_count, 1024 + 4 + 40);
    growth_verdict_free(&v);

    /* the floor is the growth over the window: B's is 12 KiB */
    torch_growth_verdict(&s, 3, 12 * KiB, &v);
    CHECK("floor = B's growth", v.n, 2);
    growth_verdict_free(&v);
    torch_growth_verdict(&s, 3, 12 * KiB + 1, &v);
    CHECK("floor above B's growth", v.n, 1);
    CHECK("floor above B's growth", v.per_step, 256 * KiB);
    growth_verdict_free(&v);

    /* N = 4: from step 1, where B had not grown yet: A alone */
    torch_growth_verdict(&s, 4, 1, &v);
    CHECK("N=4", v.n, 1);
    if (v.n == 1)
        check_leak("N=4 A", &v.leaks[0], 0, 256 * KiB, 1, 5, 256 * KiB, 1280 * KiB);
    growth_verdict_free(&v);

    /* N = 2: steps 4 and 5 after 3; D was flat at step 4: A and B only */
    torch_growth_verdict(&s, 2, 1, &v);
    CHECK("N=2", v.n, 2);
    growth_verdict_free(&v);

    /* N = 1: the last step alone: D grew at step 5, so it is one */
    torch_growth_verdict(&s, 1, 1, &v);
    CHECK("N=1", v.n, 3);
    growth_verdict_free(&v);

    /* N = 5 needs 6 steps: not judged, nothing found */
    torch_growth_verdict(&s, 5, 1, &v);
    CHECK("N=5 of 5 steps", v.judged || v.n, 0);
    growth_verdict_free(&v);

    /* lines unknown: the allocated total, grown 256 KiB at each step */
    s = five_steps(false);
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("no lines", v.judged && !v.lines_known, 1);
    CHECK("no lines", v.n, 1);
    if (v.n == 1)
        check_leak("no lines", &v.leaks[0], -1, 256 * KiB, 2, 5, 5 * 256 * KiB, 8 * 256 * KiB);
    CHECK("no lines: nothing still reachable", v.nreachable, 0);
    growth_verdict_free(&v);
    /* ... and flat at step 4: grew at 2 of the last 3, not a leak */
    steps[3].allocated = steps[2].allocated;
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("no lines, flat once", v.judged && v.n == 0, 1);
    growth_verdict_free(&v);

    /* lines at the last 2 steps only (the recorder turned on late): too
     * few for the line rule; the allocated total grew at each of the last
     * 3 steps, and the lines that grew from step 4 to 5 name it (A, B, D;
     * C flat, F without a line), by step number (no recorded_steps) */
    s = five_steps(false);
    set_step(3, 4, 7 * 256 * KiB, five[3]);
    set_step(4, 5, 8 * 256 * KiB, five[4]);
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("lines late", v.judged && v.lines_known && v.lines_sampled, 1);
    CHECK("lines late", v.n, 3);
    if (v.n == 3) {
        check_leak("lines late A", &v.leaks[0], 0, 256 * KiB, 4, 5, 1024 * KiB, 1280 * KiB);
        check_leak("lines late B", &v.leaks[1], 1, 4 * KiB, 4, 5, 12 * KiB, 16 * KiB);
        check_leak("lines late D", &v.leaks[2], 3, 1 * KiB, 4, 5, 3 * KiB, 4 * KiB);
    }
    CHECK("lines late: per step summed", v.per_step, 261 * KiB);
    CHECK("lines late: C and F still reachable at step 5", v.nreachable * 100 + v.last_step, 205);
    growth_verdict_free(&v);
    /* ... and the allocated total flat once: no leak, however the lines grew */
    steps[1].allocated = steps[2].allocated;
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("lines late, allocated flat once", v.judged && v.n == 0, 1);
    growth_verdict_free(&v);

    /* gpuleak's sampled steps (GPULEAK_STEP_LINES_EVERY): lines at steps 2
     * and 4, the recorder on through those steps only (recorded_steps 1
     * and 2).  A keeps 64 KiB a step, so its recorded tensors grew by one
     * step's: 64 KiB a step, not 64 KiB over the 2 step numbers. */
    memset(b_sampled, 0, sizeof b_sampled);
    for (size_t k = 0; k < 5; k++) {
        uint64_t number = k + 1, recorded = number >= 4 ? 2 : number >= 2 ? 1 : 0;
        b_sampled[0] = recorded * 64 * KiB;
        b_sampled[2] = 1024 * KiB;
        set_step(k, number, (16 + k) * 64 * KiB, number == 2 || number == 4 ? b_sampled : NULL);
        steps[k].recorded_steps = recorded;
        if (number == 2 || number == 4)
            steps[k].flags |= GL_TORCH_STEP_F_RECORDED | GL_TORCH_STEP_F_SAMPLED;
    }
    s = (struct snapshot){.torch_steps = steps, .ntorch_steps = 5};
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("sampled 2 and 4", v.lines_sampled && v.n == 1, 1);
    if (v.n == 1)
        check_leak("sampled 2 and 4: A", &v.leaks[0], 0, 64 * KiB, 2, 4, 64 * KiB, 128 * KiB);
    growth_verdict_free(&v);

    /* sampled: lines at steps 1, 3, 5, 7, 9 only, A keeping 256 KiB a
     * step: the window is steps 3 to 9, 6 steps, A's bytes per step exact */
    uint64_t b[NLINES] = {0};
    for (size_t k = 0; k < 9; k++) {
        b[0] = (k + 1) * 256 * KiB;
        b[2] = 1024 * KiB;
        set_step(k, k + 1, (k + 5) * 256 * KiB, k % 2 == 0 ? b : NULL);
    }
    s = (struct snapshot){.torch_steps = steps, .ntorch_steps = 9};
    torch_growth_verdict(&s, 3, 1, &v);
    CHECK("sampled", v.lines_known && v.n == 1, 1);
    if (v.n == 1)
        check_leak("sampled A", &v.leaks[0], 0, 256 * KiB, 3, 9, 3 * 256 * KiB, 9 * 256 * KiB);
    growth_verdict_free(&v);

    /* no steps at all */
    s = (struct snapshot){0};
    torch_growth_verdict(&s, 0, 1, &v);
    CHECK("no steps", v.judged || v.n || v.nreachable, 0);
    growth_verdict_free(&v);

    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        puts("analysis_growth: ok");
    return failures != 0;
}
