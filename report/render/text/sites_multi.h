/* Per-site series across snapshots in text: the values in a row, the rows not shown. */
#ifndef GPULEAK_RENDER_TEXT_SITES_MULTI_H
#define GPULEAK_RENDER_TEXT_SITES_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/multi/sites_multi.h"

/* The lines after a section's rows: how many were not shown (--top) and,
 * in a diff (same: what did not change, "invalid frees"), how many sites
 * were the same in every snapshot.  merge: same is NULL. */
void text_sites_rest(FILE *f, const struct site_table *t, size_t shown, const char *same);
/* "a -> b -> c" of n values, with thousands separators when commas. */
void text_sites_series(FILE *f, const uint64_t *v, size_t n, bool commas);

#endif
