/* The samples of a pprof profile: one per shown stack, device, kind and
 * API, with Go's four heap values.  inuse: the live allocations of the
 * snapshot (ALLOCS).  alloc: every allocation made since tracking started,
 * freed or not (CALLS, which counts them all, not only the history ring's
 * latest); a snapshot without CALLS (older writers, GPULEAK_DEPTH=0)
 * counts its live allocations there too, the least it made.
 * A sampled snapshot (GPULEAK_MODE=light): as Go's heap profiles, each
 * value is what the sampled allocations stand for (sample_weight and
 * sample_scale, analyze.h), the allocations not sampled are in no sample,
 * and the profile's period is the sample size R. */
#ifndef GPULEAK_PPROF_SAMPLES_H
#define GPULEAK_PPROF_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "model/stackdb.h"

/* CALLS does not say on which device: a site whose live allocations are on
 * more than one device, or that has none left, gets its alloc values in a
 * sample of its own with no device. */
#define PPROF_NO_DEVICE INT32_MIN

struct pprof_sample {
    uint32_t cs; /* canonical stack (0: none captured) */
    int32_t device;
    uint16_t kind, api;
    uint64_t inuse_objects, inuse_space, alloc_objects, alloc_space;
    double est[4]; /* sampled: the four values' estimates, while built */
};

struct pprof_samples {
    struct pprof_sample *s;
    size_t n;
};

/* 0, or -1 when out of memory. */
int pprof_samples_build(const struct snapview *v, struct pprof_samples *out);
void pprof_samples_free(struct pprof_samples *ps);

#endif
