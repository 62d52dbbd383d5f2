/* One member of the HTML page's data: the ledger of used memory (ledger.c). */
#ifndef GPULEAK_RENDER_HTML_LEDGER_H
#define GPULEAK_RENDER_HTML_LEDGER_H

#include "render/html/hw.h"

struct report_ctx;

void html_ledger(struct hw *w, const struct report_ctx *r);

#endif
