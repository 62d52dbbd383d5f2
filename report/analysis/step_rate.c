/* Growth per hour over PyTorch's time windows (step_rate.h). */
#include "analysis/step_rate.h"

#include "util/rate.h"

/* The index of the record of step number n, or s->ntorch_steps. */
static size_t step_index(const struct snapshot *s, uint64_t n)
{
    size_t k = 0;
    while (k < s->ntorch_steps && s->torch_steps[k].step != n)
        k++;
    return k;
}

uint64_t step_growth_per_hour(const struct snapshot *s, const struct step_growth *g)
{
    size_t from = step_index(s, g->from_step), to = step_index(s, g->to_step);
    if (from >= to || to >= s->ntorch_steps)
        return 0;
    for (size_t k = from; k <= to; k++)
        if (!(s->torch_steps[k].flags & GL_TORCH_STEP_F_WINDOW))
            return 0;
    uint64_t t0 = s->torch_steps[from].time_ns, t1 = s->torch_steps[to].time_ns;
    return t1 > t0 ? rate_per_hour(g->grown, t1 - t0) : 0;
}
