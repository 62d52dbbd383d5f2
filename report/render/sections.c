/* The registry of the report's sections (sections.h).  Rows are in the order
 * the text and JSON reports write them.  A section whose output is not one
 * block gets nameless rows for its other parts: peak's OUT OF MEMORY leads
 * the text report, and leaks' blocks surround PyTorch's view, which is a
 * section of its own (--sections torch) that leaks also shows.  The HTML
 * page's parts are data keyed by name, so their order there is free. */
#include "render/sections.h"

#include <string.h>

#include "render/html/addrmap.h"
#include "render/html/html.h"
#include "render/html/ledger.h"
#include "render/html/phases.h"
#include "render/html/timeline.h"
#include "render/html/torch.h"
#include "render/json/output_json.h"
#include "render/report.h"
#include "render/text/output_text.h"

static int build_leaks(const struct section_inputs *in, struct section_data *d)
{
    return analyze(in->v, in->sup, in->an, &d->a) ? -1 : 0;
}

static void free_leaks(struct section_data *d) { analysis_free(&d->a); }

/* The phases are cut from the history, which the timeline also draws. */
static int build_peak(const struct section_inputs *in, struct section_data *d)
{
    if (history_build(in->v->s, &d->h) != 0)
        return -1;
    if (phases_build(in->v, &d->h, in->cat, &d->ph) != 0) {
        history_free(&d->h);
        return -1;
    }
    return 0;
}

static void free_peak(struct section_data *d)
{
    phases_free(&d->ph);
    history_free(&d->h);
}

static int build_frag(const struct section_inputs *in, struct section_data *d)
{
    return frag_build(in->v, in->an, &d->fr) ? -1 : 0;
}

static void free_frag(struct section_data *d) { frag_free(&d->fr); }

/* The ledger accounts for every used byte, the leaks' analysis included. */
static int build_ledger(const struct section_inputs *in, struct section_data *d)
{
    return ledger_build(in->v, &d->a, &d->lg) ? -1 : 0;
}

static void free_ledger(struct section_data *d) { ledger_free(&d->lg); }

const struct report_section report_sections[] = {
    {.part_of = "peak", .text = text_oom_block},
    {.name = "leaks", .build = build_leaks, .free = free_leaks, .text = text_leaks_block,
     .json = json_leaks_block, .html = html_leaks_block},
    {.name = "torch", .part_of = "leaks", .text = text_torch_block, .json = json_torch_block,
     .html = html_torch},
    {.part_of = "leaks", .text = text_leaks_tail},
    {.name = "calls", .text = text_calls_block, .json = json_calls_block}, /* gpuleak check leaves it out */
    {.json = json_devices_block},
    {.name = "peak", .build = build_peak, .free = free_peak, .text = text_peak_block,
     .json = json_peak_block, .html = html_phases},
    {.json = json_oom_block},
    {.name = "timeline", .text = text_timeline_block, .json = json_timeline_block,
     .html = html_timeline},
    {.name = "fragmentation", .alias = "frag", .build = build_frag, .free = free_frag,
     .text = text_fragmentation_block, .json = json_fragmentation_block, .html = html_addrmap},
    {.name = "ledger", .build = build_ledger, .free = free_ledger, .text = text_ledger_block,
     .json = json_ledger_block, .html = html_ledger},
};
const size_t report_nsections = sizeof report_sections / sizeof *report_sections;

/* A selection is a bit per row. */
_Static_assert(sizeof report_sections / sizeof *report_sections <= 32, "a bit per row");

static bool always_shown(const struct report_section *s) { return !s->name && !s->part_of; }

static bool row_shown(unsigned rows, size_t i)
{
    return always_shown(&report_sections[i]) || (rows >> i & 1u);
}

const char *sections_names(void)
{
    static char list[256];
    if (list[0])
        return list;
    size_t len = 0;
    for (size_t i = 0; i < report_nsections; i++) {
        const char *name = report_sections[i].name;
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
    unsigned rows = 0;
    for (size_t i = 0; i < report_nsections; i++)
        if (!always_shown(&report_sections[i]))
            rows |= 1u << i;
    return rows;
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
    unsigned rows = 0;
    const char *name = NULL;
    for (size_t i = 0; i < report_nsections && !name; i++)
        if (same(report_sections[i].name, p, n) || same(report_sections[i].alias, p, n))
            name = report_sections[i].name;
    for (size_t i = 0; name && i < report_nsections; i++) {
        const struct report_section *s = &report_sections[i];
        if ((s->name && strcmp(s->name, name) == 0) || (s->part_of && strcmp(s->part_of, name) == 0))
            rows |= 1u << i;
    }
    return rows;
}

int sections_parse(const char *list, unsigned *rows)
{
    *rows = 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        unsigned r = rows_of(p, n);
        if (!r)
            return -1;
        *rows |= r;
        p += n;
        if (*p == ',')
            p++;
    }
    return *rows ? 0 : -1;
}

bool section_shown(const struct report_ctx *r, const char *name)
{
    for (size_t i = 0; i < report_nsections; i++)
        if (report_sections[i].name && strcmp(report_sections[i].name, name) == 0)
            return row_shown(r->sections, i);
    return false;
}

static void free_first(struct section_data *d, size_t n)
{
    while (n-- > 0)
        if (report_sections[n].free)
            report_sections[n].free(d);
}

int sections_build(const struct section_inputs *in, struct section_data *d)
{
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < report_nsections; i++)
        if (report_sections[i].build && report_sections[i].build(in, d) != 0) {
            free_first(d, i);
            return -1;
        }
    return 0;
}

void sections_free(struct section_data *d) { free_first(d, report_nsections); }

void sections_text(struct report_ctx *r)
{
    for (size_t i = 0; i < report_nsections; i++)
        if (report_sections[i].text && row_shown(r->sections, i))
            report_sections[i].text(r);
}

void sections_json(struct report_ctx *r, struct json *j)
{
    for (size_t i = 0; i < report_nsections; i++)
        if (report_sections[i].json && row_shown(r->sections, i))
            report_sections[i].json(r, j);
}

void sections_html(struct hw *w, const struct report_ctx *r)
{
    for (size_t i = 0; i < report_nsections; i++)
        if (report_sections[i].html)
            report_sections[i].html(w, r);
}
