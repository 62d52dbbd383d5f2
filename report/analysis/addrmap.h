/* A device's address space in at most a given number of cells, for a
 * picture (analysis/addrmap.c; the HTML page's address map draws it). */
#ifndef GPULEAK_ANALYSIS_ADDRMAP_H
#define GPULEAK_ANALYSIS_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

struct snapshot;

struct addrmap_cell {
    uint64_t unit;  /* the first unit (address / addrmap.unit) it covers */
    uint64_t gap;   /* 0: one unit; else a folded run of this many empty units */
    uint64_t bytes; /* bytes of live allocations inside it */
    uint64_t count; /* allocations that touch it */
};

struct addrmap {
    uint64_t unit; /* bytes per cell: the driver's page doubled until the cells fit */
    struct addrmap_cell *cells;
    size_t ncells;
};

/* The device and pool memory of `device`, by address.  A run of up to
 * small_gap empty units is kept cell by cell; a longer one is folded into
 * one cell.  0 on success; -1 when out of memory (out freed). */
int addrmap_bin(const struct snapshot *s, int32_t device, size_t max_cells, size_t small_gap,
                struct addrmap *out);
void addrmap_free(struct addrmap *m);

#endif
