/* The JSON report's "timeline" and "fragmentation" members. */
#ifndef GPULEAK_RENDER_JSON_JSON_SECTIONS_H
#define GPULEAK_RENDER_JSON_JSON_SECTIONS_H

#include "render/json/json.h"

struct report_ctx;

void json_timeline(struct report_ctx *r, struct json *j);
void json_fragmentation(struct report_ctx *r, struct json *j);

#endif
