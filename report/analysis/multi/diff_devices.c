#include "analysis/multi/diff_devices.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/multi/multi.h"
#include "util/sort.h"
#include "util/xalloc.h"

/* By device, host memory (-1) after every device; then by snapshot. */
static int by_device(const void *a, const void *b)
{
    const struct device_cell *x = a, *y = b;
    uint32_t kx = (uint32_t)x->device, ky = (uint32_t)y->device; /* -1 sorts last */
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->snap < y->snap ? -1 : x->snap > y->snap;
}

int diff_devices_build(struct msnap *m, size_t n, struct diff_devices *dd)
{
    memset(dd, 0, sizeof *dd);
    dd->nsnaps = n;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += m[i].s.ndevices;
    if (total == 0)
        return 0;
    struct device_series *x = &dd->scratch;
    dd->cells = xmalloc(total * sizeof *dd->cells);
    x->live = xcalloc(4 * n, sizeof *x->live);
    x->present = xcalloc(n, sizeof *x->present);
    if (dd->cells == NULL || x->live == NULL || x->present == NULL)
        goto fail;
    x->peak = x->live + n;
    x->peak_time_ns = x->live + 2 * n;
    x->failed = x->live + 3 * n;
    total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.ndevices; k++) { /* one entry per device (snap_read.c) */
            const struct snap_device *s = &m[i].s.devices[k];
            dd->cells[total++] = (struct device_cell){.snap = (uint32_t)i, .device = s->device,
                .live = s->live_bytes, .peak = s->peak_bytes, .peak_time_ns = s->peak_time_ns,
                .failed = s->failed_count};
        }
    sort_array(dd->cells, total, sizeof *dd->cells, by_device);
    size_t nd = 0;
    for (size_t i = 0; i < total; i++)
        nd += i == 0 || dd->cells[i - 1].device != dd->cells[i].device;
    dd->d = xcalloc(nd, sizeof *dd->d);
    if (dd->d == NULL)
        goto fail;
    for (size_t i = 0; i < total; i++) {
        if (i == 0 || dd->cells[i - 1].device != dd->cells[i].device)
            dd->d[dd->n++] = (struct diff_device){.device = dd->cells[i].device, .cells = &dd->cells[i]};
        dd->d[dd->n - 1].ncells++;
    }
    return 0;
fail:
    diff_devices_free(dd);
    return -1;
}

void diff_devices_free(struct diff_devices *dd)
{
    free(dd->d);
    free(dd->cells);
    free(dd->scratch.live);
    free(dd->scratch.present);
    memset(dd, 0, sizeof *dd);
}

const struct device_series *diff_devices_expand(const struct diff_devices *dd, size_t k)
{
    const struct device_series *x = &dd->scratch;
    const struct diff_device *d = &dd->d[k];
    for (size_t i = 0, c = 0; i < dd->nsnaps; i++) {
        const struct device_cell *v = c < d->ncells && d->cells[c].snap == i ? &d->cells[c++] : NULL;
        x->present[i] = v != NULL;
        x->live[i] = v ? v->live : 0;
        x->peak[i] = v ? v->peak : 0;
        x->peak_time_ns[i] = v ? v->peak_time_ns : 0;
        x->failed[i] = v ? v->failed : 0;
    }
    return x;
}

