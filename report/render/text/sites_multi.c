/* Per-site series across snapshots in text. */
#include "render/text/sites_multi.h"

#include <inttypes.h>

#include "render/text/textout.h"
#include "util/fmt.h"

void text_sites_series(FILE *f, const uint64_t *v, size_t n, bool commas)
{
    for (size_t k = 0; k < n; k++) {
        char c[32];
        if (commas)
            fmt_commas(c, sizeof c, v[k]);
        else
            snprintf(c, sizeof c, "%" PRIu64, v[k]);
        fprintf(f, "%s%s", k ? " -> " : "", c);
    }
}

void text_sites_rest(FILE *f, const struct site_table *t, size_t shown, const char *same)
{
    size_t listed = same ? t->nchanged : t->n; /* a diff lists the changed */
    if (shown < listed) {
        fputs("\n(", f);
        put_count(f, listed - shown, same ? "more changed stack" : "more stack");
        fputs(" not shown; --top N shows more)\n", f);
    }
    if (same && t->nchanged < t->n) {
        fputs("\n(", f);
        put_count(f, t->n - t->nchanged, "stack");
        fprintf(f, " with the same %s in every snapshot)\n", same);
    }
}
