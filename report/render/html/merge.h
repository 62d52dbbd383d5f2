/* One member of the HTML page's data (merge.c): a merge of ranks. */
#ifndef GPULEAK_RENDER_HTML_MERGE_H
#define GPULEAK_RENDER_HTML_MERGE_H

#include "render/html/html.h"
#include "render/html/hw.h"

void html_merge(struct hw *w, struct msnap *m, size_t n, const struct merge_result *mr);

#endif
