/* The JSON report's memory left to teardown. */
#ifndef GPULEAK_RENDER_JSON_TEARDOWN_H
#define GPULEAK_RENDER_JSON_TEARDOWN_H

#include "render/json/json.h"

struct report_ctx;

/* The "teardown_leaks" member (always present). */
void json_torn(struct report_ctx *r, struct json *j);

#endif
