/* The "devices" member of diff JSON. */
#include "render/json/diff_devices.h"

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
