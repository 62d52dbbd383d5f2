#include "analysis/ledger.h"

#include <stdlib.h>
#include <string.h>

#include "util/sat.h"
#include "util/sort.h"
#include "util/xalloc.h"

bool ledger_resident(unsigned k)
{
    return k == GL_KIND_DEVICE || k == GL_KIND_POOL || k == GL_KIND_ARRAY || k == GL_KIND_VIRTUAL ||
           k == GL_KIND_GRAPH;
}

/* Each device's row by ordinal, index + 1 (the reader bounds ordinals by
 * GL_SNAP_MAX_DEVICE): a look-up per allocation, however many devices a
 * hostile file names. */
struct slots {
    int32_t of[GL_SNAP_MAX_DEVICE + 1];
};

static struct ledger_dev *find(struct ledger *l, const struct slots *sl, int32_t device)
{
    if (device < 0 || device > GL_SNAP_MAX_DEVICE || sl->of[device] == 0)
        return NULL;
    return &l->dev[sl->of[device] - 1];
}

static int cmp_dev(const void *a, const void *b)
{
    int32_t x = ((const struct ledger_dev *)a)->device, y = ((const struct ledger_dev *)b)->device;
    return x < y ? -1 : x > y;
}

static void add(uint64_t *bytes, uint64_t *count, uint64_t size)
{
    *bytes = sat_add(*bytes, size);
    (*count)++;
}

static void allocations(const struct snapshot *s, struct ledger *l, const struct slots *sl)
{
    for (size_t i = 0; i < s->nallocs; i++) {
        const struct snap_alloc *a = &s->allocs[i];
        struct ledger_dev *d = find(l, sl, a->device);
        if (d == NULL)
            continue;
        if (ledger_resident(a->kind))
            add(&d->kind_bytes[a->kind], &d->kind_count[a->kind], a->size);
        else if (a->kind == GL_KIND_MODULE)
            add(&d->modules, &d->nmodules, a->size);
        else if (a->kind == GL_KIND_IPC)
            add(&d->ipc, &d->nipc, a->size);
        else if (a->kind == GL_KIND_EXTERNAL)
            add(&d->external, &d->nexternal, a->size);
        else if (a->kind == GL_KIND_MANAGED)
            add(&d->managed, &d->nmanaged, a->size);
    }
}

static void pools(const struct snapshot *s, struct ledger *l, const struct slots *sl)
{
    for (size_t i = 0; i < s->npools; i++) {
        const struct snap_pool *p = &s->pools[i];
        struct ledger_dev *d = find(l, sl, p->device);
        if (d == NULL)
            continue;
        uint64_t idle = p->reserved > p->used ? p->reserved - p->used : 0;
        if (p->handle == GL_POOL_GRAPH_MEM) {
            d->have_graph_pool = true;
            d->graph_idle = sat_add(d->graph_idle, idle);
        } else {
            d->npools++;
            d->pool_idle = sat_add(d->pool_idle, idle);
        }
    }
}

static void cached(const struct analysis *a, struct ledger *l, const struct slots *sl)
{
    for (size_t i = 0; i < a->cached.total; i++) {
        const struct leak_group *g = &a->cached.g[i];
        struct ledger_dev *d = find(l, sl, g->device);
        /* estimated in a sampled snapshot (GPULEAK_MODE=light), as the
         * groups are: a rule needs a stack, so only sampled ones match */
        if (d != NULL && ledger_resident(g->kind))
            d->cached = sat_add(d->cached, shown_bytes(a, g->bytes, g->est_bytes));
    }
}

static void settle(struct ledger_dev *d)
{
    for (unsigned k = 0; k < GL_KIND_COUNT; k++)
        d->live = sat_add(d->live, d->kind_bytes[k]);
    if (d->cached > d->live) /* an estimate (sampled) can exceed what is live */
        d->cached = d->live;
    uint64_t rows[] = {d->live, d->pool_idle, d->graph_idle, d->modules, d->ctx, d->before_attach, d->ipc, d->external};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        d->explained = sat_add(d->explained, rows[i]);
    if (d->used >= d->explained)
        d->remainder = d->used - d->explained > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(d->used - d->explained);
    else
        d->remainder = d->explained - d->used > (uint64_t)INT64_MAX ? INT64_MIN
                                                                     : -(int64_t)(d->explained - d->used);
}

/* The before-attach row split by what PyTorch said at the attach. */
static void before_attach_torch(const struct snap_device *sd, struct ledger_dev *d)
{
    d->torch_status = d->attached ? sd->before_attach_torch_status : 0;
    d->torch_at_attach = sd->before_attach_torch_bytes;
    d->torch_freed = sd->before_attach_torch_freed;
    d->torch_segments = sd->before_attach_torch_segments;
    d->torch_frees = sd->before_attach_torch_frees;
    uint64_t left = d->torch_at_attach > d->torch_freed ? d->torch_at_attach - d->torch_freed : 0;
    d->torch_left = left < d->before_attach ? left : d->before_attach;
    d->before_attach_rest = d->before_attach - d->torch_left;
}

/* The live tensors PyTorch's view places in segments made before the attach. */
static void torch_tensors(const struct snapshot *s, struct ledger *l, const struct slots *sl)
{
    if (s->torch.status != GL_TORCH_ANSWERED)
        return;
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        const struct snap_torch_block *b = &s->torch_blocks[i];
        struct ledger_dev *d = find(l, sl, b->device);
        if (d != NULL && (b->flags & GL_TORCH_BLOCK_F_BEFORE_ATTACH) && b->state == GL_TORCH_BLOCK_ALLOCATED)
            add(&d->torch_tensor_bytes, &d->torch_tensors, b->size);
    }
}

int ledger_build(const struct snapview *v, const struct analysis *a, struct ledger *out)
{
    const struct snapshot *s = v->s;
    memset(out, 0, sizeof *out);
    out->dev = xcalloc(s->ndevices ? s->ndevices : 1, sizeof *out->dev);
    struct slots *sl = xcalloc(1, sizeof *sl);
    if (out->dev == NULL || sl == NULL) {
        free(out->dev);
        free(sl);
        out->dev = NULL;
        return -1;
    }
    for (size_t i = 0; i < s->ndevices; i++) {
        const struct snap_device *sd = &s->devices[i];
        if (sd->device < 0 || sd->mem_total == 0)
            continue; /* the host, or no driver's view */
        if (sd->device > GL_SNAP_MAX_DEVICE || sl->of[sd->device] != 0)
            continue; /* the reader refuses both; kept safe regardless */
        struct ledger_dev *d = &out->dev[out->ndev++];
        sl->of[sd->device] = (int32_t)out->ndev;
        d->device = sd->device;
        d->mem_total = sd->mem_total;
        d->mem_free = sd->mem_free;
        d->used = sd->mem_total > sd->mem_free ? sd->mem_total - sd->mem_free : 0;
        d->ctx_measured = sd->ctx_creations != 0;
        d->ctx = d->ctx_measured ? sd->ctx_used_at_create : 0;
        d->ctx_creations = sd->ctx_creations;
        d->attached = sd->before_attach_used != 0;
        d->before_attach_used = sd->before_attach_used;
        d->before_attach_freed = sd->before_attach_freed;
        d->before_attach_frees = sd->before_attach_frees;
        d->before_attach = sd->before_attach_used > sd->before_attach_freed
                               ? sd->before_attach_used - sd->before_attach_freed : 0;
        before_attach_torch(sd, d);
    }
    allocations(s, out, sl);
    pools(s, out, sl);
    cached(a, out, sl);
    torch_tensors(s, out, sl);
    free(sl);
    for (size_t i = 0; i < out->ndev; i++)
        settle(&out->dev[i]);
    sort_array(out->dev, out->ndev, sizeof *out->dev, cmp_dev);
    return 0;
}

void ledger_free(struct ledger *l)
{
    free(l->dev);
    memset(l, 0, sizeof *l);
}

double ledger_remainder_pct(const struct ledger_dev *d)
{
    return d->used ? (double)d->remainder * 100.0 / (double)d->used : 0.0;
}
