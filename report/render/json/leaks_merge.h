/* The JSON report's leaks by site across snapshots (merge). */
#ifndef GPULEAK_RENDER_JSON_LEAKS_MERGE_H
#define GPULEAK_RENDER_JSON_LEAKS_MERGE_H

#include <stddef.h>

#include "analysis/multi/multi.h"
#include "render/json/json.h"

struct report_ctx;

/* "leaks" (JSON): every site. */
void json_leaks_merge(struct report_ctx *r, struct json *j, const struct msnap *m, size_t n,
                      const struct mtable *t, const struct leak_sites *l);

#endif
