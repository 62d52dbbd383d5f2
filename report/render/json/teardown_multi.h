/* The JSON report's memory left to teardown across snapshots (diff, merge). */
#ifndef GPULEAK_RENDER_JSON_TEARDOWN_MULTI_H
#define GPULEAK_RENDER_JSON_TEARDOWN_MULTI_H

#include "analysis/multi/multi.h"
#include "render/json/json.h"

struct report_ctx;

/* The "teardown_leaks" member of diff and merge JSON (always present). */
void json_torn_multi(struct report_ctx *r, struct json *j, const struct torn_table *t);

#endif
