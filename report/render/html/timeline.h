/* One member of the HTML page's data (timeline.c). */
#ifndef GPULEAK_RENDER_HTML_TIMELINE_H
#define GPULEAK_RENDER_HTML_TIMELINE_H

#include "render/html/hw.h"

struct report_ctx;

void html_timeline(struct hw *w, const struct report_ctx *r);

#endif
