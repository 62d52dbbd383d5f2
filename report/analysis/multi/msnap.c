#include "analysis/multi/msnap.h"

#include <string.h>

#include "model/program.h"
#include "snapshot_format.h"

bool msnap_same_process(const struct snap_process *a, const struct snap_process *b)
{
    return a->pid == b->pid && a->start_unix_ns == b->start_unix_ns && a->rank == b->rank &&
           a->host.len == b->host.len && memcmp(a->host.s, b->host.s, a->host.len) == 0;
}

bool msnap_final_repeat_possible(const struct msnap *m, size_t n)
{
    return n >= 4 && (m[n - 1].s.proc.flags & GL_SNAP_F_FINAL) &&
           msnap_same_process(&m[n - 2].s.proc, &m[n - 1].s.proc);
}

size_t msnap_other_program(const struct msnap *m, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (!snap_same_program(&m[0].s.proc, &m[i].s.proc))
            return i;
    return 0;
}

size_t msnap_processes(const struct msnap *m, size_t n, size_t *first)
{
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = msnap_same_process(&m[k].s.proc, &m[i].s.proc);
        if (seen)
            continue;
        if (first)
            first[np] = i;
        np++;
    }
    return np;
}
