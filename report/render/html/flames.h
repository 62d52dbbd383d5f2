/* One member of the HTML page's data (flames.c). */
#ifndef GPULEAK_RENDER_HTML_FLAMES_H
#define GPULEAK_RENDER_HTML_FLAMES_H

#include "render/html/hw.h"

struct report_ctx;
struct analysis;

void html_flames(struct hw *w, const struct analysis *a);

#endif
