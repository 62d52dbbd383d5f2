/* One member of the HTML page's data (growth.c). */
#ifndef GPULEAK_RENDER_HTML_GROWTH_H
#define GPULEAK_RENDER_HTML_GROWTH_H

#include "render/html/html.h"
#include "render/html/hw.h"

struct report_ctx;

void html_growth(struct hw *w, const struct html_multi *hm);

#endif
