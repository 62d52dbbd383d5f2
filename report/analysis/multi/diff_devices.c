#include "analysis/multi/diff_devices.h"

#include <stdlib.h>
#include <string.h>

#include "render/json/json.h"
#include "analysis/multi/multi.h"
#include "render/report.h"
#include "util/sort.h"
#include "render/text/textout.h"

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
    dd->cells = malloc(total * sizeof *dd->cells);
    x->live = calloc(4 * n, sizeof *x->live);
    x->present = calloc(n, sizeof *x->present);
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
    dd->d = calloc(nd, sizeof *dd->d);
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

static void put_steps(FILE *f, const uint64_t *v, const bool *present, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputs(" -> ", f);
        if (present[i])
            put_human(f, v[i]);
        else
            fputc('-', f);
    }
}

/* "(+1.0 MiB)" from the first snapshot that has the device to the last. */
static void put_change(FILE *f, const uint64_t *v, const bool *present, size_t n)
{
    size_t a = 0;
    while (a < n && !present[a])
        a++;
    if (a >= n - 1 || !present[n - 1] || v[a] == v[n - 1])
        return;
    fputs(v[n - 1] > v[a] ? " (+" : " (-", f);
    put_human(f, v[n - 1] > v[a] ? v[n - 1] - v[a] : v[a] - v[n - 1]);
    fputc(')', f);
}

void text_diff_devices(struct report_ctx *r, const struct diff_devices *dd)
{
    if (dd->n == 0)
        return;
    FILE *f = r->out;
    size_t n = dd->nsnaps;
    t_title(r, "BY DEVICE");
    for (size_t k = 0; k < dd->n; k++) {
        const struct device_series *x = diff_devices_expand(dd, k);
        put_where(f, dd->d[k].device);
        fputs(": live ", f);
        put_steps(f, x->live, x->present, n);
        put_change(f, x->live, x->present, n);
        fputs(", peak ", f);
        put_steps(f, x->peak, x->present, n);
        put_change(f, x->peak, x->present, n);
        uint64_t failed = 0;
        for (size_t i = 0; i < n; i++)
            failed = x->failed[i] > failed ? x->failed[i] : failed;
        if (failed) {
            fputs(", failed allocations ", f);
            for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%llu", i ? " -> " : "", (unsigned long long)x->failed[i]);
        }
        fputc('\n', f);
    }
}

static void json_u64s(struct json *j, const char *k, const uint64_t *v, size_t n)
{
    json_key(j, k);
    json_u64_inline(j, v, n);
}

void json_diff_devices(struct json *j, const struct diff_devices *dd)
{
    size_t n = dd->nsnaps;
    json_key(j, "devices");
    json_arr(j);
    for (size_t k = 0; k < dd->n; k++) {
        const struct device_series *x = diff_devices_expand(dd, k);
        json_obj(j);
        json_key(j, "device"); json_i64(j, dd->d[k].device);
        json_key(j, "present"); json_bool_inline(j, x->present, n);
        json_u64s(j, "live_bytes", x->live, n);
        json_u64s(j, "peak_bytes", x->peak, n);
        json_u64s(j, "peak_time_ns", x->peak_time_ns, n);
        json_u64s(j, "failed_count", x->failed, n);
        json_end_obj(j);
    }
    json_end_arr(j);
}
