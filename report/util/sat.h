/* Saturating arithmetic for totals: counts and byte sums from a snapshot
 * (hostile files included) must not wrap. */
#ifndef GPULEAK_SAT_H
#define GPULEAK_SAT_H

#include <stdint.h>

static inline uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

#endif
