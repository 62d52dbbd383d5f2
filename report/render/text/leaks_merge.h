/* The text report's leaks by site across snapshots (merge). */
#ifndef GPULEAK_RENDER_TEXT_LEAKS_MERGE_H
#define GPULEAK_RENDER_TEXT_LEAKS_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/multi/multi.h"

struct report_ctx;

/* LEAKS BY SITE (text): at most `top` sites, 0 = all. */
void text_leaks_merge(struct report_ctx *r, const struct msnap *m, size_t n, const struct mtable *t,
                      const struct leak_sites *l, size_t top);
/* The ranks (snapshots) of m[0..n) in which row has no cell, as
 * " rank 1, rank 3" (merge's "not on:" lines). */
void text_leaks_merge_absent(FILE *f, const struct msnap *m, size_t n, const struct mrow *row);

#endif
