/* The JSON report's invalid frees. */
#ifndef GPULEAK_RENDER_JSON_BAD_FREES_H
#define GPULEAK_RENDER_JSON_BAD_FREES_H

#include "render/json/json.h"

struct report_ctx;

/* The "invalid_frees" member of the JSON report (always present). */
void json_bad_frees(struct report_ctx *r, struct json *j);

#endif
