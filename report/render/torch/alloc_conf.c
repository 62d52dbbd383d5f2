/* PyTorch 2.14.1's reading of its allocator configuration, as far as
 * _snapshot()'s "allocator_settings" shows it.  Checked against the
 * installed torch's own dict (tests/t_torch_real_viz.sh): "key:value" items
 * separated by commas outside brackets; max_split_size_mb in MiB;
 * roundup_power2_divisions either one number for every bucket or a list
 * "[256:1,512:2,>:8]" whose first item fills every bucket up to its own,
 * whose later items set their bucket alone, and whose ">" fills every
 * bucket after the last one set (after bucket 1 when it comes first).
 * Keys the dict does not show (backend, per-process fraction, ...) are
 * skipped; a configuration PyTorch refuses never reaches a snapshot. */
#include "render/torch/alloc_conf.h"

#include <stdlib.h>
#include <string.h>

static bool is_true(const char *v, size_t n) { return n == 4 && strncmp(v, "True", 4) == 0; }

static int64_t number(const char *v, size_t n)
{
    char buf[32];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return strtoll(buf, NULL, 10);
}

static double real(const char *v, size_t n)
{
    char buf[64];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return strtod(buf, NULL);
}

/* The bucket of a size in MiB (a power of two), or -1. */
static int bucket_of(int64_t mib)
{
    for (int i = 0; i < ALLOC_CONF_BUCKETS; i++)
        if (mib == (int64_t)1 << i)
            return i;
    return -1;
}

/* roundup_power2_divisions's value: "N" or "[S:N,...,>:N]". */
static void roundup_divisions(struct alloc_conf *c, const char *v, size_t n)
{
    if (n == 0 || v[0] != '[') {
        int64_t all = number(v, n);
        for (int i = 0; i < ALLOC_CONF_BUCKETS; i++)
            c->roundup[i] = all;
        return;
    }
    const char *p = v + 1, *end = v + n;
    int last = 0;
    bool first = true;
    while (p < end && *p != ']') {
        const char *item_end = p;
        while (item_end < end && *item_end != ',' && *item_end != ']')
            item_end++;
        const char *colon = memchr(p, ':', (size_t)(item_end - p));
        if (colon != NULL) {
            int64_t div = number(colon + 1, (size_t)(item_end - colon - 1));
            if (*p == '>') {
                for (int i = last + 1; i < ALLOC_CONF_BUCKETS; i++)
                    c->roundup[i] = div;
            } else {
                int b = bucket_of(number(p, (size_t)(colon - p)));
                for (int i = first ? 0 : b; b >= 0 && i <= b; i++)
                    c->roundup[i] = div;
                if (b >= 0)
                    last = b;
            }
            first = false;
        }
        p = item_end < end && *item_end == ',' ? item_end + 1 : item_end;
    }
}

static void apply(struct alloc_conf *c, const char *k, size_t kn, const char *v, size_t vn)
{
#define KEY(name) (kn == sizeof(name) - 1 && strncmp(k, name, kn) == 0)
    if (KEY("max_split_size_mb"))
        c->max_split_size = number(v, vn) * 1048576;
    else if (KEY("garbage_collection_threshold"))
        c->gc_threshold = real(v, vn);
    else if (KEY("expandable_segments"))
        c->expandable_segments = is_true(v, vn);
    else if (KEY("pinned_num_register_threads"))
        c->pinned_num_register_threads = number(v, vn);
    else if (KEY("release_lock_on_cudamalloc"))
        c->release_lock_on_cudamalloc = is_true(v, vn);
    else if (KEY("pinned_use_cuda_host_register"))
        c->pinned_use_cuda_host_register = is_true(v, vn);
    else if (KEY("graph_capture_record_stream_reuse"))
        c->graph_capture_record_stream_reuse = is_true(v, vn);
    else if (KEY("roundup_power2_divisions"))
        roundup_divisions(c, v, vn);
#undef KEY
}

void alloc_conf_of(const struct snapshot *s, struct alloc_conf *c)
{
    *c = (struct alloc_conf){.max_split_size = -1, .pinned_num_register_threads = 1};
    const char *conf = snap_env(s, "PYTORCH_CUDA_ALLOC_CONF");
    if (conf == NULL)
        conf = snap_env(s, "PYTORCH_ALLOC_CONF");
    c->conf = conf ? conf : "";
    const char *p = c->conf;
    while (*p) {
        const char *item_end = p;
        int depth = 0;
        while (*item_end && (depth > 0 || *item_end != ',')) {
            depth += *item_end == '[' ? 1 : *item_end == ']' ? -1 : 0;
            item_end++;
        }
        const char *colon = memchr(p, ':', (size_t)(item_end - p));
        if (colon != NULL)
            apply(c, p, (size_t)(colon - p), colon + 1, (size_t)(item_end - colon - 1));
        p = *item_end ? item_end + 1 : item_end;
    }
}
