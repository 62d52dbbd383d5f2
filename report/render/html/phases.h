/* One member of the HTML page's data: memory by phase (phases.c). */
#ifndef GPULEAK_RENDER_HTML_PHASES_H
#define GPULEAK_RENDER_HTML_PHASES_H

#include "render/html/hw.h"

struct report_ctx;

void html_phases(struct hw *w, const struct report_ctx *r);

#endif
