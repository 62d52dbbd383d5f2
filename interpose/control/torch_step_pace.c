#include "control/torch_step_pace.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/log.h"

#define MAX_VIEW_EVERY 1000000L
_Static_assert(GL_TORCH_STEP_ALWAYS_VIEWED == GL_TORCH_STEPS_KEPT, "a short run's steps all fit the ring");

static uint32_t view_every; /* 0: auto; N: one step in N after the first ones */

/* With the GIL, one caller at a time: no lock, no atomics (a snapshot never
 * reads these). */
static uint64_t numbered;        /* steps and windows numbered so far */
/* Thread CPU time of the last COSTS_KEPT plain views; a view is paced by
 * the least of them, so that one view slowed by something not its own (a
 * garbage collection that ran inside it, a page fault storm) does not hold
 * the next views off for 400 times that. */
#define COSTS_KEPT 4
static uint64_t view_costs_ns[COSTS_KEPT];
static unsigned view_costs_next;
static uint64_t view_asked;      /* the step whose view C asked for last; 0: none pending */
static uint64_t view_cpu_start;  /* thread CPU time at that view's start */
static uint64_t last_cpu_end;    /* thread CPU time at the last asked view's end */

void gl_step_pace_configure(void)
{
    static atomic_bool warned;
    const char *v = gl_getenv("GPULEAK_STEP_VIEW_EVERY");
    long n = 0;
    if (v != NULL && *v != '\0' && strcmp(v, "auto") != 0 && !gl_parse_long(v, 1, MAX_VIEW_EVERY, &n)) {
        gl_warn_once(&warned, "ignoring GPULEAK_STEP_VIEW_EVERY=%.40s: not auto or a number of steps from 1 to %ld; "
                     "using auto", v, MAX_VIEW_EVERY);
        n = 0;
    }
    view_every = (uint32_t)n;
}

/* CPU time of the calling thread: what the view took from the program,
 * not the time another process or thread held the core meanwhile. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t view_cost_ns(void)
{
    uint64_t least = view_costs_ns[0];
    for (unsigned i = 1; i < COSTS_KEPT; i++)
        if (view_costs_ns[i] < least)
            least = view_costs_ns[i];
    return least;
}

/* auto: due once the thread's CPU time since the last view's end is at
 * least RATIO times what a view costs.  One clock read a step (a system
 * call: the thread's CPU clock has no vDSO path), so that a step that
 * becomes heavier is viewed at once. */
static bool view_due(uint64_t n, uint64_t *cpu)
{
    if (n <= GL_TORCH_STEP_ALWAYS_VIEWED)
        return true;
    if (view_every != 0)
        return (n - GL_TORCH_STEP_ALWAYS_VIEWED) % view_every == 0;
    *cpu = thread_cpu_ns();
    return *cpu - last_cpu_end >= (uint64_t)GL_TORCH_STEP_VIEW_RATIO * view_cost_ns();
}

uint64_t gl_step_pace_begin(bool *view)
{
    uint64_t n = ++numbered, cpu = 0;
    *view = view_due(n, &cpu);
    if (*view) {
        view_asked = n;
        view_cpu_start = cpu != 0 ? cpu : thread_cpu_ns();
    }
    return n;
}

uint64_t gl_step_pace_numbered(void)
{
    return numbered;
}

void gl_step_pace_viewed(uint64_t step, bool with_lines)
{
    if (step != view_asked)
        return; /* a view C did not ask for (a sampled step, a window) */
    view_asked = 0;
    uint64_t end = thread_cpu_ns();
    last_cpu_end = end;
    if (with_lines || end < view_cpu_start)
        return;
    view_costs_ns[view_costs_next] = end - view_cpu_start;
    view_costs_next = (view_costs_next + 1) % COSTS_KEPT;
}

void gl_step_pace_postfork_child(void)
{
    numbered = 0;
    memset(view_costs_ns, 0, sizeof view_costs_ns);
    view_costs_next = 0;
    view_asked = 0;
    last_cpu_end = 0;
}
