#include "analysis/oomkind.h"

#include "analysis/history.h"
#include "model/snap_read.h"
#include "snapshot_format.h"

static uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

struct oom_verdict oom_classify(const struct oom_facts *f)
{
    struct oom_verdict v = {.kind = OOM_KIND_UNKNOWN};
    if (f->total != 0) {
        v.used = minus(f->total, f->free);
        v.elsewhere = minus(v.used, f->own);
        v.missing = minus(f->request, f->free);
    }
    if (f->torch) {
        v.cached = minus(f->reserved, f->allocated);
        if (v.cached >= f->request && f->largest_free < f->request) {
            v.kind = OOM_KIND_FRAGMENTATION;
            return v;
        }
    }
    if (f->total == 0)
        return v;
    if (f->allowed != 0 && f->allowed < f->total && f->request <= f->free) {
        v.kind = OOM_KIND_SETTING;
        return v;
    }
    if (v.missing == 0)
        return v; /* the driver had it free: not in one piece, or a pool's limit */
    if (v.elsewhere >= v.missing && v.elsewhere >= f->own)
        v.kind = OOM_KIND_ELSEWHERE;
    else
        v.kind = OOM_KIND_EXCEEDED;
    return v;
}

const char *oom_kind_name(enum oom_kind k)
{
    switch (k) {
    case OOM_KIND_EXCEEDED: return "exceeded";
    case OOM_KIND_FRAGMENTATION: return "fragmentation";
    case OOM_KIND_ELSEWHERE: return "elsewhere";
    case OOM_KIND_SETTING: return "setting";
    default: return "unknown";
    }
}

/* PyTorch's view on one device: its segments' bytes, its live tensors'
 * bytes, and its largest free block. */
static void torch_on_device(const struct snapshot *s, int32_t device, struct oom_facts *f)
{
    for (size_t i = 0; i < s->ntorch_blocks; i++) {
        const struct snap_torch_block *b = &s->torch_blocks[i];
        if (b->device != device)
            continue;
        f->reserved += b->size; /* a segment's blocks cover it */
        if (b->state == GL_TORCH_BLOCK_ALLOCATED)
            f->allocated += b->size;
        else if (b->state == GL_TORCH_BLOCK_INACTIVE && b->size > f->largest_free)
            f->largest_free = b->size;
    }
}

bool oom_torch_facts(const struct snapshot *s, struct oom_facts *f)
{
    *f = (struct oom_facts){0};
    if (!s->torch_oom.present)
        return false;
    const struct snap_torch_oom *o = &s->torch_oom;
    f->request = o->request;
    f->free = o->free;
    f->allowed = o->allowed;
    for (size_t i = 0; i < s->ndevices; i++) {
        if (s->devices[i].device != o->device)
            continue;
        f->total = s->devices[i].mem_total;
        f->own = s->devices[i].live_bytes;
    }
    /* The view was asked in the observer, for this snapshot: age 0. */
    if (s->torch.status == GL_TORCH_ANSWERED && s->torch.age_us == 0) {
        f->torch = true;
        torch_on_device(s, o->device, f);
    }
    return true;
}

void oom_mark_facts(const struct hist_mark *m, struct oom_facts *f)
{
    *f = (struct oom_facts){.request = m->size, .free = m->mem_free, .total = m->mem_total, .own = m->live_bytes};
}
