/* The JSON report's allocations failed for lack of memory. */
#ifndef GPULEAK_RENDER_JSON_OOM_H
#define GPULEAK_RENDER_JSON_OOM_H

#include "render/json/json.h"

struct report_ctx;

/* The "out_of_memory" member (always present). */
void json_oom(struct report_ctx *r, struct json *j);

#endif
