/* The headline of a diff: each device's live and peak bytes in every
 * snapshot (a long job's first question: is the total growing, is the peak
 * creeping towards out-of-memory?).  Devices are matched by number, host
 * memory last; a device a snapshot does not have is absent there. */
#ifndef GPULEAK_DIFF_DEVICES_H
#define GPULEAK_DIFF_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct msnap;

struct diff_device {
    int32_t device;                              /* -1: host */
    uint64_t *live, *peak, *peak_time_ns, *failed; /* one per snapshot, 0 where absent */
    bool *present;
};

struct diff_devices {
    struct diff_device *d; /* by device number, host last */
    size_t n, nsnaps;
    uint64_t *cells;
    bool *flags;
};

/* 0, or -1 when out of memory (dd is then empty). */
int diff_devices_build(struct msnap *m, size_t n, struct diff_devices *dd);
void diff_devices_free(struct diff_devices *dd);

struct report_ctx;
struct json;
/* The BY DEVICE section of a diff. */
void text_diff_devices(struct report_ctx *r, const struct diff_devices *dd);
/* The "devices" member of diff JSON. */
void json_diff_devices(struct json *j, const struct diff_devices *dd);

#endif
