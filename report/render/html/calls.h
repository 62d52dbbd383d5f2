/* One member of the HTML page's data: ALLOCATION CALLS (calls.c). */
#ifndef GPULEAK_RENDER_HTML_CALLS_H
#define GPULEAK_RENDER_HTML_CALLS_H

#include "render/html/hw.h"

struct report_ctx;

void html_calls(struct hw *w, const struct report_ctx *r);

#endif
