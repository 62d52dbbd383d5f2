/* The JSON report's invalid frees across snapshots (diff, merge). */
#ifndef GPULEAK_RENDER_JSON_BAD_FREES_MULTI_H
#define GPULEAK_RENDER_JSON_BAD_FREES_MULTI_H

#include "analysis/multi/bad_frees_multi.h"
#include "render/json/json.h"

struct report_ctx;

/* The "invalid_frees" member of diff and merge JSON (always present). */
void json_bad_frees_multi(struct report_ctx *r, struct json *j, const struct free_table *t);

#endif
