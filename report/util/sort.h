/* qsort and qsort_r for arrays that may be empty.  An empty array is often
 * a NULL pointer, and qsort's pointer argument is declared nonnull: passing
 * it is undefined even with no element (UBSan says so; found by fuzzing the
 * reporter, tests/fuzz/fuzz_report.c).  One element needs no sorting. */
#ifndef GPULEAK_SORT_H
#define GPULEAK_SORT_H

#include <stdlib.h>

static inline void sort_array(void *base, size_t n, size_t size,
                              int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

static inline void sort_array_r(void *base, size_t n, size_t size,
                                int (*cmp)(const void *, const void *, void *), void *ctx)
{
    if (n > 1)
        qsort_r(base, n, size, cmp, ctx);
}

#endif
