#include "base/clock.h"

#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"

struct gl_clock_line gl_clock_line;

/* Where the line stands: NONE (no first sample: kernel reads for good, or
 * until gl_clock_start), DUE (first sample taken, the second due
 * GL_CLOCK_FIT_NS later), FITTING (one thread takes it), READY (the line is
 * published), OFF (the TSC is not to be used). */
enum { LINE_NONE, LINE_DUE, LINE_FITTING, LINE_READY, LINE_OFF };
static _Atomic int line_state;

static uint64_t kernel_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
struct sample {
    uint64_t tsc, ns;
    uint64_t width; /* ticks between the two TSC reads around the kernel's */
};
static struct sample first;       /* written before line_state becomes DUE */
static _Atomic uint64_t next_fit_ns; /* the next try at the second sample */

/* The kernel's clock read between two TSC reads, paired with their middle:
 * the narrowest of three tries (one may be interrupted). */
static void take_sample(struct sample *s)
{
    s->width = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t t1 = __builtin_ia32_rdtsc();
        uint64_t ns = kernel_ns();
        uint64_t t2 = __builtin_ia32_rdtsc();
        if (t2 >= t1 && t2 - t1 < s->width)
            *s = (struct sample){t1 + (t2 - t1) / 2, ns, t2 - t1};
    }
}

/* True if the kernel keeps CLOCK_MONOTONIC on the TSC.  It checks the
 * TSC at boot (invariant, in step across CPUs) and leaves it for another
 * clocksource when it is not: then so do we.  Read at activation, which
 * holds cancellation off while it reads files (control/lifecycle.c). */
static bool kernel_uses_tsc(void)
{
    char buf[32] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    return got > 0 && strcmp(buf, "tsc\n") == 0;
}

/* The line's slope through a and b, ns per tick in 32.32 fixed point; 0
 * while the samples are too wide for their distance to give it to 10 parts
 * in a million (a later, longer fit will), and for good (*give_up) if they
 * make no sense (time standing still or going back, a TSC outside 50 MHz to
 * 20 GHz). */
static uint64_t fit_mult(const struct sample *a, const struct sample *b, bool *give_up)
{
    *give_up = b->tsc <= a->tsc || b->ns <= a->ns;
    if (*give_up)
        return 0;
    uint64_t ticks = b->tsc - a->tsc, ns = b->ns - a->ns;
    *give_up = ns > ticks * 20 || ticks > ns * 20;
    if (*give_up || a->width + b->width > ticks / 100000)
        return 0;
    return (uint64_t)(((unsigned __int128)ns << 32) / ticks);
}

/* The second sample and the line through both; one thread at a time. */
static void fit_line(uint64_t now)
{
    int due = LINE_DUE;
    if (!atomic_compare_exchange_strong(&line_state, &due, LINE_FITTING))
        return;
    struct sample second = {0};
    take_sample(&second);
    bool give_up;
    uint64_t mult = fit_mult(&first, &second, &give_up);
    if (mult == 0) {
        atomic_store(&next_fit_ns, now + GL_CLOCK_FIT_NS);
        atomic_store(&line_state, give_up ? LINE_OFF : LINE_DUE);
        return;
    }
    gl_clock_line.tsc0 = second.tsc;
    gl_clock_line.ns0 = second.ns;
    gl_clock_line.mult = mult;
    atomic_store_explicit(&gl_clock_line.ready, 1, memory_order_release);
    atomic_store(&line_state, LINE_READY);
}

void gl_clock_start(void)
{
    if (atomic_load(&line_state) != LINE_NONE)
        return;
    bool use = gl_config.clock == GL_CLOCK_AUTO && kernel_uses_tsc();
    if (use) {
        take_sample(&first);
        atomic_store(&next_fit_ns, first.ns + GL_CLOCK_FIT_NS);
    }
    atomic_store(&line_state, use ? LINE_DUE : LINE_OFF);
}

uint64_t gl_clock_slow(void)
{
    uint64_t now = kernel_ns();
    if (atomic_load_explicit(&line_state, memory_order_acquire) == LINE_DUE &&
        now >= atomic_load_explicit(&next_fit_ns, memory_order_relaxed))
        fit_line(now);
    return now;
}

void gl_clock_postfork_child(void)
{
    /* A fit another thread of the parent was taking: the child's one
     * thread takes it again, instead of reading the kernel's clock for
     * good. */
    int fitting = LINE_FITTING;
    atomic_compare_exchange_strong(&line_state, &fitting, LINE_DUE);
}
#else
void gl_clock_start(void) { atomic_store(&line_state, LINE_OFF); }

uint64_t gl_clock_slow(void) { return kernel_ns(); }

void gl_clock_postfork_child(void) {}
#endif
