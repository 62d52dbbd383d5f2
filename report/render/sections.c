/* The registry of the report's sections (sections.h), and the rows of the
 * first sections, numbered in the order the text and JSON reports write
 * them (a section in its own file, report/sections/, numbers its row to
 * fall between them).  A section whose output is not one
 * block gets nameless rows for its other parts: peak's OUT OF MEMORY leads
 * the text report, and leaks' blocks surround PyTorch's view, which is a
 * section of its own (--sections torch) that leaks also shows.  The HTML
 * page's parts are data keyed by name, so their order there is free. */
#include "render/sections.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/html/addrmap.h"
#include "render/html/calls.h"
#include "render/html/html.h"
#include "render/html/ledger.h"
#include "render/html/phases.h"
#include "render/html/timeline.h"
#include "render/html/torch.h"
#include "render/json/output_json.h"
#include "render/report.h"
#include "render/text/output_text.h"

static int build_leaks(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)state;
    return analyze(in->v, in->sup, in->an, &d->a) ? -1 : 0;
}

static void free_leaks(struct section_data *d, void *state)
{
    (void)state;
    analysis_free(&d->a);
}

/* The phases are cut from the history, which the timeline also draws. */
static int build_peak(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)state;
    if (history_build(in->v->s, &d->h) != 0)
        return -1;
    if (phases_build(in->v, &d->h, in->cat, &d->ph) != 0) {
        history_free(&d->h);
        return -1;
    }
    return 0;
}

static void free_peak(struct section_data *d, void *state)
{
    (void)state;
    phases_free(&d->ph);
    history_free(&d->h);
}

static int build_frag(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)state;
    return frag_build(in->v, in->an, &d->fr) ? -1 : 0;
}

static void free_frag(struct section_data *d, void *state)
{
    (void)state;
    frag_free(&d->fr);
}

/* The ledger accounts for every used byte, the leaks' analysis included. */
static int build_ledger(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)state;
    return ledger_build(in->v, &d->a, &d->lg) ? -1 : 0;
}

static void free_ledger(struct section_data *d, void *state)
{
    (void)state;
    ledger_free(&d->lg);
}

REPORT_SECTION(oom_row, .order = 10, .part_of = "peak", .text = text_oom_block);
REPORT_SECTION(leaks_row, .order = 20, .name = "leaks", .build = build_leaks, .free = free_leaks,
               .text = text_leaks_block, .json = json_leaks_block, .html = html_leaks_block);
REPORT_SECTION(torch_row, .order = 30, .name = "torch", .part_of = "leaks", .text = text_torch_block,
               .json = json_torch_block, .html = html_torch);
REPORT_SECTION(leaks_tail_row, .order = 40, .part_of = "leaks", .text = text_leaks_tail);
/* gpuleak check leaves it out */
REPORT_SECTION(calls_row, .order = 50, .name = "calls", .text = text_calls_block, .json = json_calls_block,
               .html = html_calls);
REPORT_SECTION(devices_row, .order = 60, .json = json_devices_block);
REPORT_SECTION(peak_row, .order = 70, .name = "peak", .build = build_peak, .free = free_peak,
               .text = text_peak_block, .json = json_peak_block, .html = html_phases);
REPORT_SECTION(oom_json_row, .order = 80, .json = json_oom_block);
REPORT_SECTION(timeline_row, .order = 90, .name = "timeline", .text = text_timeline_block,
               .json = json_timeline_block, .html = html_timeline);
REPORT_SECTION(frag_row, .order = 100, .name = "fragmentation", .alias = "frag", .build = build_frag,
               .free = free_frag, .text = text_fragmentation_block, .json = json_fragmentation_block,
               .html = html_addrmap);
REPORT_SECTION(ledger_row, .order = 110, .name = "ledger", .build = build_ledger, .free = free_ledger,
               .text = text_ledger_block, .json = json_ledger_block, .html = html_ledger);

/* The linker gathers every REPORT_SECTION's pointer between these. */
extern const struct report_section *const __start_gl_report_sections[];
extern const struct report_section *const __stop_gl_report_sections[];

static const struct report_section *rows[SECTIONS_MAX];
static size_t nrows;

static int by_order(const void *a, const void *b)
{
    const struct report_section *x = *(const struct report_section *const *)a;
    const struct report_section *y = *(const struct report_section *const *)b;
    return (x->order > y->order) - (x->order < y->order);
}

/* The registered rows, sorted by order once (the reporter is single-threaded).
 * More rows than a selection has bits is a mistake of the build, which any
 * run shows at once. */
static void rows_sort(void)
{
    if (nrows)
        return;
    size_t n = (size_t)(__stop_gl_report_sections - __start_gl_report_sections);
    if (n > SECTIONS_MAX) {
        fprintf(stderr, "gpuleak-report: %zu report sections registered, at most %d\n", n, SECTIONS_MAX);
        exit(70);
    }
    memcpy(rows, __start_gl_report_sections, n * sizeof *rows);
    qsort(rows, n, sizeof *rows, by_order);
    nrows = n;
}

size_t sections_count(void)
{
    rows_sort();
    return nrows;
}

const struct report_section *section_row(size_t i)
{
    rows_sort();
    return rows[i];
}

void *section_state(const struct report_ctx *r, const struct report_section *self)
{
    for (size_t i = 0; r->data && i < sections_count(); i++)
        if (rows[i] == self)
            return r->data->state[i];
    return NULL;
}

static bool always_shown(const struct report_section *s) { return !s->name && !s->part_of; }

static bool row_shown(unsigned sel, size_t i)
{
    return always_shown(section_row(i)) || (sel >> i & 1u);
}

const char *sections_names(void)
{
    static char list[256];
    if (list[0])
        return list;
    size_t len = 0;
    for (size_t i = 0; i < sections_count(); i++) {
        const char *name = rows[i]->name;
        if (!name)
            continue;
        size_t n = strlen(name);
        if (len + n + 2 > sizeof list)
            break; /* cannot happen with names this short */
        if (len)
            list[len++] = ',';
        memcpy(list + len, name, n);
        len += n;
        list[len] = '\0';
    }
    return list;
}

unsigned sections_all(void)
{
    unsigned sel = 0;
    for (size_t i = 0; i < sections_count(); i++)
        if (!always_shown(rows[i]))
            sel |= 1u << i;
    return sel;
}

static bool same(const char *name, const char *p, size_t n)
{
    return name && strlen(name) == n && strncmp(p, name, n) == 0;
}

/* The rows one name shows: the section's own and those it also shows. */
static unsigned rows_of(const char *p, size_t n)
{
    if (same("all", p, n))
        return sections_all();
    unsigned sel = 0;
    const char *name = NULL;
    for (size_t i = 0; i < sections_count() && !name; i++)
        if (same(rows[i]->name, p, n) || same(rows[i]->alias, p, n))
            name = rows[i]->name;
    for (size_t i = 0; name && i < nrows; i++) {
        const struct report_section *s = rows[i];
        if ((s->name && strcmp(s->name, name) == 0) || (s->part_of && strcmp(s->part_of, name) == 0))
            sel |= 1u << i;
    }
    return sel;
}

int sections_parse(const char *list, unsigned *sel)
{
    *sel = 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        unsigned r = rows_of(p, n);
        if (!r)
            return -1;
        *sel |= r;
        p += n;
        if (*p == ',')
            p++;
    }
    return *sel ? 0 : -1;
}

bool section_shown(const struct report_ctx *r, const char *name)
{
    for (size_t i = 0; i < sections_count(); i++)
        if (rows[i]->name && strcmp(rows[i]->name, name) == 0)
            return row_shown(r->sections, i);
    return false;
}

static void free_first(struct section_data *d, size_t n)
{
    while (n-- > 0)
        if (rows[n]->free)
            rows[n]->free(d, d->state[n]);
}

int sections_build(const struct section_inputs *in, struct section_data *d)
{
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < sections_count(); i++)
        if (rows[i]->build && rows[i]->build(in, d, &d->state[i]) != 0) {
            free_first(d, i);
            return -1;
        }
    return 0;
}

void sections_free(struct section_data *d) { free_first(d, sections_count()); }

void sections_text(struct report_ctx *r)
{
    for (size_t i = 0; i < sections_count(); i++)
        if (rows[i]->text && row_shown(r->sections, i))
            rows[i]->text(r);
}

void sections_json(struct report_ctx *r, struct json *j)
{
    for (size_t i = 0; i < sections_count(); i++)
        if (rows[i]->json && row_shown(r->sections, i))
            rows[i]->json(r, j);
}

void sections_html(struct hw *w, const struct report_ctx *r)
{
    for (size_t i = 0; i < sections_count(); i++)
        if (rows[i]->html)
            rows[i]->html(w, r);
}
