/* The monotonic clock every time gpuleak records is read from (issue 46;
 * docs/performance.md, "A cheaper clock").
 *
 * Each event's stamp reads the clock once (state/events.h), so a
 * cudaMalloc+cudaFree pair reads it twice.  At ~25 ns a read through the
 * vDSO, that was ~8% of a pair's time.  Where the kernel keeps
 * CLOCK_MONOTONIC on the TSC itself (clocksource "tsc": the kernel chose
 * it because the TSC is invariant and in step across CPUs), the clock is
 * the TSC, mapped to nanoseconds by a line fitted to CLOCK_MONOTONIC:
 * ~12 ns a read.  Elsewhere (another clocksource, another architecture,
 * GPULEAK_CLOCK=kernel) it is clock_gettime(CLOCK_MONOTONIC).
 *
 * The line goes through two samples (TSC, CLOCK_MONOTONIC), one when
 * tracking starts and one at a read GL_CLOCK_FIT_NS or more later; until
 * then every read goes to the kernel.  A sample is the kernel's read
 * between two TSC reads (~25 ns apart), and the pair is used only when
 * those widths are within 10 parts in a million of the samples' distance
 * (otherwise the fit is tried again 10 ms later, farther apart).  The
 * switch is one release store, so a reader sees no line or all of it, and
 * the line meets the kernel's clock at the second sample.  Its slope is
 * then within 10 ppm (t_clock_line: 0.24 us over 200 ms, ~1 ppm), so over
 * a day its times may drift from CLOCK_MONOTONIC by up to a second,
 * typically a tenth; nothing compares them: every time gpuleak records,
 * and the start they are relative to, comes from this one clock.
 *
 * rdtsc is not ordered with the loads and stores around it (the vDSO's
 * read is, with lfence, ~5 ns more), and the kernel's reads before the
 * switch may disagree with the line's by the samples' width: two threads'
 * reads can be out of order by up to ~100 ns.  Nothing depends on a closer
 * order than GL_CLOCK_SKEW_NS: the event merger keeps that margin
 * (state/events.c); one thread's stamps, and one shard's, are kept
 * strictly increasing where they are taken (state/track.c). */
#ifndef GL_CLOCK_H
#define GL_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

#define GL_CLOCK_FIT_NS UINT64_C(10000000) /* 10 ms between the two samples, at least */
#define GL_CLOCK_SKEW_NS UINT64_C(20000)   /* 20 us: far above any two reads' disagreement */

/* ns = ns0 + ((tsc - tsc0) * mult >> 32), once ready; the fields are
 * written once, before ready is set (release). */
struct gl_clock_line {
    _Atomic int ready;
    uint64_t tsc0, ns0, mult;
};
extern struct gl_clock_line gl_clock_line;

/* The kernel's clock, and the second sample when it is due. */
uint64_t gl_clock_slow(void);

/* Nanoseconds on the monotonic clock described above.  Async-signal-safe,
 * lock-free, never fails. */
static inline uint64_t gl_clock_ns(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(atomic_load_explicit(&gl_clock_line.ready, memory_order_acquire), 1)) {
        int64_t ticks = (int64_t)(__builtin_ia32_rdtsc() - gl_clock_line.tsc0);
        if (ticks < 0) /* a read that ran ahead of the second sample's */
            ticks = 0;
        return gl_clock_line.ns0 + (uint64_t)(((unsigned __int128)(uint64_t)ticks * gl_clock_line.mult) >> 32);
    }
#endif
    return gl_clock_slow();
}

/* When tracking starts (config loaded, cancellation held off: it reads a
 * file): takes the first sample if the TSC may be used (GPULEAK_CLOCK, the
 * kernel's clocksource); otherwise every read stays the kernel's.  Once
 * only; later calls do nothing. */
void gl_clock_start(void);

/* fork's child: a fit the parent was in the middle of is due again. */
void gl_clock_postfork_child(void);

#endif
