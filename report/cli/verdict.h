/* The verdict on one snapshot, as `gpuleak check` gates on it: what
 * --error-exitcode fails on, counted, and written for the launcher
 * (--verdict FILE) as one line of JSON, so that it never reads the report's
 * prose (verdict.c). */
#ifndef GL_REPORT_VERDICT_H
#define GL_REPORT_VERDICT_H

#include <stdint.h>

struct report_ctx;

struct verdict {
    uint64_t errors;                /* the findings below, each stack or free once */
    uint64_t leak_stacks;           /* leak groups of at least the floor */
    uint64_t mapped_stacks;         /* mappings left, likewise (and imported handles) */
    uint64_t refused_frees;         /* frees CUDA refused too */
    uint64_t double_frees;          /* of those, double frees (analysis/bad_frees.h) */
    uint64_t torn_stacks;           /* never freed, released by a context teardown */
    uint64_t torn_bytes;            /* of all groups no rule matched */
    uint64_t growth_leaks;          /* PyTorch: lines that leaked by growth, or 1 for its
                                     * allocated total, lines unknown (analysis/torch_steps.h) */
};

/* Counts what report r found: floor is the smallest group counted (--min-
 * bytes, at least 1); min_bytes the option itself (imported VMM handles have
 * no size: only --min-bytes hides them).  0, or -1 when out of memory. */
int verdict_count(const struct report_ctx *r, uint64_t floor, uint64_t min_bytes, struct verdict *vd);
/* Writes the verdict to path (created 0600, a symlink there refused): one
 * JSON object on one line, the keys docs/reporter.md lists: flat, but for
 * the array of leaks by growth, last.  0, or 1 with
 * a line on stderr. */
int verdict_write(const char *path, struct report_ctx *r, const struct verdict *vd);

#endif
