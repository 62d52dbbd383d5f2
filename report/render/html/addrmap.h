/* One member of the HTML page's data (addrmap.c). */
#ifndef GPULEAK_RENDER_HTML_ADDRMAP_H
#define GPULEAK_RENDER_HTML_ADDRMAP_H

#include "render/html/hw.h"

struct report_ctx;

void html_addrmap(struct hw *w, const struct report_ctx *r);

#endif
