/* --html OUT.html: one self-contained page (docs/html-report.md).  The data
 * is aggregated here, in C, before it is embedded (a downsampled timeline,
 * a pruned flame graph tree, a binned address map, capped tables), so the
 * page stays small and quick whatever the size of the snapshot; the page's
 * script and style (ticks.js, the parts in js/ and report.css beside it) are
 * linked into the binary (html_assets.c). */
#ifndef GPULEAK_HTML_H
#define GPULEAK_HTML_H

#include <stddef.h>

#include "analysis/multi/multi.h"

struct report_ctx;
struct hw;

/* Several snapshots: growth per stack across them (a diff of m[0..n)). */
struct html_multi {
    struct msnap *m;
    size_t n;
    const struct diff_result *d;
};

/* Writes the page for r (the last snapshot when hm is given) to r->out.
 * 0, or -1 when out of memory. */
int output_html(struct report_ctx *r, const struct html_multi *hm);

/* merge --html: the ranks side by side, their imbalance, and the leaks
 * on some ranks only (render/html/merge.c).  Writes to r->out; r gives the
 * stack database, the suppression rules and the warnings.  0, or -1 when
 * out of memory. */
int output_html_merge(struct report_ctx *r, struct msnap *m, size_t n, const struct merge_result *mr);

/* The leaks section's part of the page (render/sections.c's row). */
void html_leaks_block(struct hw *w, const struct report_ctx *r);

/* The assets, NUL-terminated (html_assets.c). */
extern const char gl_html_js[], gl_html_css[];

#endif
