/* The BY DEVICE section of a diff. */
#include "render/text/diff_devices.h"

#include <inttypes.h>

#include "render/report.h"
#include "render/text/textout.h"

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
    put_title(r, "BY DEVICE");
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
