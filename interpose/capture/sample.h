/* Which allocations get a stack in light mode (GPULEAK_MODE=light): sampled
 * by bytes, as jemalloc's (lg_prof_sample) and tcmalloc's heap profilers
 * do.  Each thread counts down the bytes it allocates from a distance drawn
 * from an exponential distribution of mean R = GPULEAK_SAMPLE_BYTES; the
 * allocation that crosses zero is sampled and a new distance is drawn.  The
 * exponential has no memory, so an allocation of s bytes is sampled with
 * probability 1 - exp(-s/R) whatever came before it, and a sampled one
 * stands for s / (1 - exp(-s/R)) bytes (what gpuleak-report scales by;
 * docs/performance.md, section 7). */
#ifndef GL_SAMPLE_H
#define GL_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/* Counts size bytes on the calling thread's countdown: true when this
 * allocation is sampled (its stack is to be captured).  No lock, no
 * allocation: a few instructions unless it is sampled. */
bool gl_sample_take(uint64_t size);

#endif
