#ifndef GPULEAK_RENDER_JSON_CALLS_H
#define GPULEAK_RENDER_JSON_CALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/calls.h"
#include "render/json/json.h"

struct report_ctx;

/* The "allocation_calls" member (always present; every site). */
void json_calls(struct report_ctx *r, struct json *j);
/* The same for diff, between its first and last snapshots: null unless
 * `same_process`. */
void json_calls_between(struct report_ctx *r, struct json *j, const struct snapview *first,
                        const struct snapview *last, bool same_process);
/* merge: the "allocation_calls" member, each site with its ranks. */
void json_calls_merge(struct report_ctx *r, struct json *j, struct msnap *m, size_t n);

#endif
