/* One member of the HTML page's data (tables.c). */
#ifndef GPULEAK_RENDER_HTML_TABLES_H
#define GPULEAK_RENDER_HTML_TABLES_H

#include "render/html/hw.h"

struct report_ctx;

void html_tables(struct hw *w, const struct report_ctx *r);

#endif
