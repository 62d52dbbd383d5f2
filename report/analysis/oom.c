#include "analysis/oom.h"

#include <inttypes.h>

#include "analysis/history.h"
#include "model/stackdb.h"
#include "snapshot_format.h"
#include "util/sat.h"

uint64_t oom_failed_count(const struct snapshot *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->ndevices; i++)
        n = sat_add(n, s->devices[i].failed_count);
    return n;
}

bool oom_is_mark(const struct hist_mark *m) { return m->type == GL_EV_OOM; }

/* What the driver said was in use then, beyond this process's live
 * allocations: other processes, CUDA's own (context, kernels), what pools
 * keep reserved, memory allocated where gpuleak could not see it. */
uint64_t oom_elsewhere(const struct hist_mark *m)
{
    if (m->mem_total == 0)
        return 0;
    uint64_t in_use = m->mem_total > m->mem_free ? m->mem_total - m->mem_free : 0;
    return in_use > m->live_bytes ? in_use - m->live_bytes : 0;
}

