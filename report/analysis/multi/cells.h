/* Values per snapshot for the rows of diff and merge, stored sparsely: a row
 * has a cell only for the snapshots in which it occurs.  A table over N
 * snapshots then costs what the snapshots hold, not rows x N: a long job's
 * snapshots share few stacks, and a dense table of 400 snapshots of 500
 * distinct stacks each took 1.3 GB.  Writers that print a row's value in
 * every snapshot expand one row at a time into an array of N. */
#ifndef GPULEAK_CELLS_H
#define GPULEAK_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapcell {
    uint32_t snap; /* a row's cells are in increasing snapshot order */
    uint32_t row;  /* the row it belongs to, while a table is being built */
    uint64_t a, b; /* the row's two measures in that snapshot */
};

/* a[k] and b[k] for every k < n: the cells' values, 0 in the snapshots
 * without a cell.  Either array may be NULL. */
static inline void cells_expand(const struct snapcell *c, size_t nc, size_t n, uint64_t *a,
                                uint64_t *b)
{
    for (size_t k = 0, i = 0; k < n; k++) {
        bool here = i < nc && c[i].snap == k;
        if (a)
            a[k] = here ? c[i].a : 0;
        if (b)
            b[k] = here ? c[i].b : 0;
        i += here;
    }
}

#endif
