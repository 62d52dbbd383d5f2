#include "diff_devices.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "multi.h"
#include "report.h"
#include "sort.h"
#include "textout.h"

/* Host memory (-1) after every device. */
static int by_device(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    uint32_t kx = (uint32_t)x, ky = (uint32_t)y; /* -1 sorts last */
    return kx < ky ? -1 : kx > ky;
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
    int32_t *ids = malloc(total * sizeof *ids);
    if (ids == NULL)
        return -1;
    total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.ndevices; k++)
            ids[total++] = m[i].s.devices[k].device;
    sort_array(ids, total, sizeof *ids, by_device);
    size_t nd = 0;
    for (size_t i = 0; i < total; i++)
        if (nd == 0 || ids[nd - 1] != ids[i])
            ids[nd++] = ids[i];
    dd->d = calloc(nd, sizeof *dd->d);
    dd->cells = calloc(nd * n, 4 * sizeof *dd->cells);
    dd->flags = calloc(nd * n, sizeof *dd->flags);
    if (dd->d == NULL || dd->cells == NULL || dd->flags == NULL) {
        free(ids);
        diff_devices_free(dd);
        return -1;
    }
    for (size_t k = 0; k < nd; k++) {
        struct diff_device *x = &dd->d[k];
        uint64_t *c = &dd->cells[4 * k * n];
        *x = (struct diff_device){.device = ids[k], .live = c, .peak = c + n, .peak_time_ns = c + 2 * n,
                                  .failed = c + 3 * n, .present = &dd->flags[k * n]};
        for (size_t i = 0; i < n; i++)
            for (size_t q = 0; q < m[i].s.ndevices; q++) {
                const struct snap_device *s = &m[i].s.devices[q];
                if (s->device != ids[k])
                    continue;
                x->present[i] = true;
                x->live[i] = s->live_bytes;
                x->peak[i] = s->peak_bytes;
                x->peak_time_ns[i] = s->peak_time_ns;
                x->failed[i] = s->failed_count;
            }
    }
    dd->n = nd;
    free(ids);
    return 0;
}

void diff_devices_free(struct diff_devices *dd)
{
    free(dd->d);
    free(dd->cells);
    free(dd->flags);
    memset(dd, 0, sizeof *dd);
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
        const struct diff_device *x = &dd->d[k];
        put_where(f, x->device);
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
        const struct diff_device *x = &dd->d[k];
        json_obj(j);
        json_key(j, "device"); json_i64(j, x->device);
        json_key(j, "present"); json_bool_inline(j, x->present, n);
        json_u64s(j, "live_bytes", x->live, n);
        json_u64s(j, "peak_bytes", x->peak, n);
        json_u64s(j, "peak_time_ns", x->peak_time_ns, n);
        json_u64s(j, "failed_count", x->failed, n);
        json_end_obj(j);
    }
    json_end_arr(j);
}
