/* The JSON report's memory by phase (analysis/phases.h). */
#ifndef GPULEAK_RENDER_JSON_PHASES_H
#define GPULEAK_RENDER_JSON_PHASES_H

#include "render/json/json.h"

struct report_ctx;

/* The "phases" member (docs/json-output.md). */
void json_phases(struct report_ctx *r, struct json *j);

#endif
