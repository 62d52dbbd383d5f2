/* Indexes into an array, each keyed by a 64-bit value (an address): sorted
 * by key, then by index, they find every element at or after an address by
 * binary search, and equal keys keep the elements' own order. */
#ifndef GPULEAK_KEYED_H
#define GPULEAK_KEYED_H

#include <stddef.h>
#include <stdint.h>

struct keyed_index {
    uint64_t key;
    size_t i;
};

/* sort_array's comparator: by key, then by index. */
int keyed_index_cmp(const void *a, const void *b);

/* The first of n sorted entries whose key is not below key (n: none). */
size_t keyed_index_lower(const struct keyed_index *r, size_t n, uint64_t key);

#endif
