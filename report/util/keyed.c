/* Sorted, searchable indexes keyed by address (keyed.h). */
#include "util/keyed.h"

int keyed_index_cmp(const void *a, const void *b)
{
    const struct keyed_index *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

size_t keyed_index_lower(const struct keyed_index *r, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
