/* The headline of a diff: each device's live and peak bytes in every
 * snapshot (a long job's first question: is the total growing, is the peak
 * creeping towards out-of-memory?).  Devices are matched by number, host
 * memory last; a device a snapshot does not have is absent there.  Kept per
 * (device, snapshot that has it), so hostile snapshots with thousands of
 * different devices each cost what they hold. */
#ifndef GPULEAK_DIFF_DEVICES_H
#define GPULEAK_DIFF_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct msnap;

/* One device in one snapshot. */
struct device_cell {
    uint32_t snap;
    int32_t device;
    uint64_t live, peak, peak_time_ns, failed;
};

struct diff_device {
    int32_t device;                  /* -1: host */
    const struct device_cell *cells; /* the snapshots that have it, in order */
    size_t ncells;
};

/* One device's values in every snapshot, 0 (and not present) where absent. */
struct device_series {
    uint64_t *live, *peak, *peak_time_ns, *failed;
    bool *present;
};

struct diff_devices {
    struct diff_device *d; /* by device number, host last */
    size_t n, nsnaps;
    struct device_cell *cells;
    struct device_series scratch; /* nsnaps each: one device expanded */
};

/* 0, or -1 when out of memory (dd is then empty). */
int diff_devices_build(struct msnap *m, size_t n, struct diff_devices *dd);
void diff_devices_free(struct diff_devices *dd);
/* Device k's values in every snapshot, in dd's scratch arrays: valid until
 * the next call. */
const struct device_series *diff_devices_expand(const struct diff_devices *dd, size_t k);

#endif
