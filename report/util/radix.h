/* LSD radix sort of (key, index) pairs: sorting a million live allocations
 * by address is several times faster than qsort. */
#ifndef GPULEAK_RADIX_H
#define GPULEAK_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct kv {
    uint64_t key;
    uint64_t val;
};

/* Stable ascending sort by key.  0, or -1 when out of memory. */
int radix_sort(struct kv *a, size_t n);

#endif
