/* Fragmentation per device (docs/reporter.md, "Fragmentation"): live bytes
 * against the driver's view, occupancy of 2 MiB pages, holes between live
 * allocations, size classes, memory pools and virtual memory. */
#ifndef GPULEAK_FRAG_H
#define GPULEAK_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analyze.h"
#include "analysis/history.h"
#include "model/stackdb.h"

#define FRAG_PAGE (2ull << 20) /* the driver's allocation granularity */

/* Allocations that keep mostly-empty pages alive, by canonical stack. */
struct frag_pin {
    uint32_t cs, stack_id;
    uint64_t empty_bytes; /* empty bytes of those pages charged to them */
    uint64_t count;       /* allocations */
};

struct frag_dev {
    int32_t device;
    uint64_t live_bytes, live_count; /* every kind on the device */
    bool have_driver;                /* DEVICES.mem_total != 0 */
    uint64_t mem_total, mem_free, driver_used;
    /* address-space analysis over device and pool allocations */
    uint64_t addr_bytes, addr_count, span_lo, span_hi;
    uint64_t pages, sparse_pages, sparse_empty_bytes;
    struct frag_pin *pins; /* empty_bytes desc; first npins shown */
    size_t npins, npins_total;
    uint64_t holes, hole_bytes, largest_hole;
    double headline; /* 1 - largest_hole / hole_bytes; 0 without holes */
    uint64_t live_class_count[HIST_NCLASS], live_class_bytes[HIST_NCLASS];
    /* pools and virtual memory queried at snapshot time */
    size_t npools; /* memory pools; the graph memory pool on its own: */
    uint64_t pool_reserved, pool_used;
    bool have_graph_pool;
    uint64_t graph_reserved, graph_used;
    size_t nreservations, nmappings, nphysical, nunmapped;
    uint64_t va_reserved, va_mapped, physical, physical_unmapped;
};

struct frag {
    struct frag_dev *dev; /* ordinal asc; the host is not analysed */
    size_t ndev;
    /* VMM reservations with nothing mapped in them: address space belongs
     * to no device until something is mapped (cuMemAddressReserve takes
     * none), so these are counted here, not under a device */
    size_t idle_reservations;
    uint64_t idle_reserved;
};

int frag_build(const struct snapview *v, const struct analyze_opts *o, struct frag *f);
void frag_free(struct frag *f);

#endif
