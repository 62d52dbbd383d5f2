/* LEAKS, HELD BY ALLOCATOR CACHES and LEAK SUMMARY: the groups of live
 * allocations, valgrind-style, and their totals by kind, device and rule. */
#include "render/text/leaks.h"

#include "analysis/analyze.h"
#include "render/report.h"
#include "render/text/groups.h"
#include "render/text/growth.h"
#include "render/text/textout.h"
#include "util/fmt.h"

/* LEAKS when no allocation is a leak: why each live one is not.  "No
 * other leaks" after leaks by growth: "No leaks" only when neither rule
 * found one. */
static void no_leaks(struct report_ctx *r, bool grew)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    const char *no = grew ? "No other leaks: " : "No leaks: ";
    if (a->total_count == 0) {
        fprintf(f, "%sall ", no);
        put_count(f, a->allocs_made, "allocation");
        if (a->torn_count) {
            char c[32];
            fmt_commas(c, sizeof c, a->torn_count);
            fprintf(f, " were freed (%s only by a context teardown, below).\n", c);
        } else {
            fputs(" were freed.\n", f);
        }
    } else if (a->mapped.count + a->modules.count == a->total_count) {
        /* nothing allocated is live: only mappings and loaded modules */
        fprintf(f, "%snothing this process allocated is live; it still ", no);
        fputs(a->mapped.count && a->modules.count ? "maps memory\nallocated elsewhere and has modules loaded (below).\n"
              : a->mapped.count                  ? "maps memory\nallocated elsewhere (below).\n"
                                                 : "has modules\nloaded (below).\n",
              f);
    } else {
        fprintf(f, "%sthe ", no);
        put_count(f, a->total_count - a->modules.count, "live allocation");
        fputs(a->mapped.count ? " are held by allocator caches, suppressed, or mapped from\n"
                                "other processes"
                              : " are held by allocator caches or suppressed",
              f);
        fputs(a->modules.count ? "; modules are loaded (below).\n" : ".\n", f);
    }
}

/* LEAKS' groups, valgrind-style. */
static void leak_groups(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (r->s->sampling.mode) {
        fputs("Sampled (GPULEAK_MODE=light): each stack's bytes are estimates; the total, ", f);
        put_bytes(f, a->leaks.bytes);
        fputs(" in ", f);
        put_count(f, a->leaks.count, "allocation");
        /* exact, but not all leaks: a rule (allocator cache, --suppressions)
         * needs a stack to match, so the allocations not sampled are here */
        fputs(",\nis exact; it holds every allocation not sampled, which no allocator-cache or\n"
              "suppression rule can match without its stack.\n\n", f);
    }
    for (size_t i = 0; i < a->leaks.n; i++) {
        if (i)
            fputc('\n', f);
        text_group_head(r, &a->leaks.g[i], false);
    }
    text_unsampled_line(r, &a->leaks);
    text_hidden_line(f, &a->leaks);
}

void text_leaks(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    put_title(r, "LEAKS");
    struct growth_verdict gv;
    growth_judge(r, &gv);
    bool grew = text_growth_leaks(r, &gv);
    if (grew)
        fputc('\n', f);
    if (a->leaks.total == 0)
        no_leaks(r, grew);
    else
        leak_groups(r);
    text_still_reachable(r, &gv);
    growth_verdict_free(&gv);
}

static void rule_totals(struct report_ctx *r, bool builtin)
{
    FILE *f = r->out;
    for (size_t i = 0; i < r->a->nrules; i++) {
        const struct rule_total *t = &r->a->rules[i];
        if (!t->count || r->sup->rules[i].builtin != builtin)
            continue;
        fputs("    ", f);
        put_str(f, r->sup->rules[i].name);
        fputs(": ", f);
        put_bytes(f, t->bytes);
        fputs(" in ", f);
        put_count(f, t->count, "allocation");
        fputc('\n', f);
    }
}

void text_caches(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    if (a->cached.total == 0)
        return;
    put_title(r, "HELD BY ALLOCATOR CACHES");
    fputs("Memory a caching allocator keeps for reuse on purpose (built-in rules;\n"
          "--no-default-suppressions reports it as leaks):\n", f);
    rule_totals(r, true);
    for (size_t i = 0; i < a->cached.n; i++) {
        fputc('\n', f);
        text_group_head(r, &a->cached.g[i], true);
    }
    text_unsampled_line(r, &a->cached);
    text_hidden_line(f, &a->cached);
}

/* "    of which WHAT: BYTES in N NOUNs", for a list that holds something. */
static void of_which(FILE *f, const char *what, const struct group_list *l, const char *noun)
{
    if (l->total == 0)
        return;
    fprintf(f, "    of which %s: ", what);
    put_bytes(f, l->bytes);
    fputs(" in ", f);
    put_count(f, l->count, noun);
    fputc('\n', f);
}

void text_leak_summary(struct report_ctx *r)
{
    FILE *f = r->out;
    const struct analysis *a = r->a;
    put_title(r, "LEAK SUMMARY");
    fputs("    total: ", f);
    put_bytes(f, a->total_bytes);
    fputs(" in ", f);
    put_count(f, a->total_count, "allocation");
    fputc('\n', f);
    for (size_t i = 0; i < a->nby_kind; i++) {
        const struct kind_total *k = &a->by_kind[i];
        fputs("    ", f);
        put_kind(f, k->kind);
        fputs(" memory on ", f);
        put_where(f, k->device);
        fputs(": ", f);
        put_bytes(f, k->bytes);
        fputs(" in ", f);
        put_count(f, k->count, "allocation");
        fputc('\n', f);
    }
    of_which(f, "held by allocator caches", &a->cached, "allocation");
    of_which(f, "suppressed", &a->suppressed, "allocation");
    if (a->suppressed.total)
        rule_totals(r, false);
    of_which(f, "mapped from other processes or APIs", &a->mapped, "mapping");
    of_which(f, "loaded modules", &a->modules, "module");
}
