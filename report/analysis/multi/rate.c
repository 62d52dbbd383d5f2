/* The clock of a diff's series and its rates per hour (rate.h). */
#include "analysis/multi/rate.h"

#include "util/rate.h"

struct series_clock series_clock_of(const struct msnap *m, size_t n)
{
    struct series_clock c = {SERIES_CLOCK_NO_TIME, 0};
    if (msnap_processes(m, n, NULL) != 1) {
        c.state = SERIES_CLOCK_PROCESSES;
        return c;
    }
    uint64_t first = m[0].s.proc.snapshot_mono_ns, last = m[n - 1].s.proc.snapshot_mono_ns;
    if (first == 0 || last <= first)
        return c;
    c.state = SERIES_CLOCK_KNOWN;
    c.elapsed_ns = last - first;
    return c;
}

const char *series_clock_why_not(enum series_clock_state state)
{
    switch (state) {
    case SERIES_CLOCK_KNOWN:
        return NULL;
    case SERIES_CLOCK_PROCESSES:
        return "the snapshots come from different processes, which share no clock";
    case SERIES_CLOCK_NO_TIME:
        break;
    }
    return "the snapshots carry no time, or none passed between the first and the last";
}

uint64_t series_elapsed(const struct series_clock *clock, const struct msnap *m, size_t i, size_t k)
{
    if (clock->state != SERIES_CLOCK_KNOWN || i >= k)
        return 0;
    uint64_t a = m[i].s.proc.snapshot_mono_ns, b = m[k].s.proc.snapshot_mono_ns;
    return a != 0 && b > a ? b - a : 0;
}

uint64_t mrow_per_hour(const struct series_clock *clock, const struct mrow *r)
{
    if (clock->state != SERIES_CLOCK_KNOWN || !r->suspected)
        return 0;
    return rate_per_hour(r->growth, clock->elapsed_ns);
}

uint64_t torch_mrow_per_hour(const struct series_clock *clock, const struct msnap *m,
                             const struct torch_multi *t, const struct torch_mrow *row)
{
    if (!row->suspected || row->change <= 0)
        return 0;
    size_t first = t->n, last = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->known[i]) {
            if (first == t->n)
                first = i;
            last = i;
        }
    if (first == t->n)
        return 0;
    return rate_per_hour((uint64_t)row->change, series_elapsed(clock, m, first, last));
}
