/* The TEMPORARY ALLOCATIONS section (--sections temporary): the allocations
 * freed before anything else was allocated or freed (analysis/temporary.h),
 * by call stack, most first -- heaptrack_print's "most temporary
 * allocations".  The whole section is this file: its row, its build, its
 * text and JSON, and its part of the HTML page (docs/reporter.md,
 * docs/json-output.md, docs/html-report.md). */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/temporary.h"
#include "render/json/common.h"
#include "render/html/hw.h"
#include "render/json/json.h"
#include "render/report.h"
#include "render/sections.h"
#include "render/text/textout.h"
#include "snapshot_format.h"
#include "util/fmt.h"
#include "util/xalloc.h"

/* Sites shown by default: the few that matter, as ALLOCATION CALLS shows. */
#define SITES_SHOWN 5

static int build(const struct section_inputs *in, struct section_data *d, void **state)
{
    (void)d;
    struct temporaries *t = xmalloc(sizeof *t);
    if (t == NULL)
        return -1;
    if (temporaries_build(in->v, t) != 0) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static void drop(struct section_data *d, void *state)
{
    (void)d;
    if (state)
        temporaries_free(state);
    free(state);
}

static void text_site(struct report_ctx *r, const struct temp_site *s)
{
    FILE *f = r->out;
    char all[32];
    fputc('\n', f);
    put_color(r, TC_BOLD);
    put_count(f, s->temporary, "temporary allocation");
    put_color_end(r);
    fmt_commas(all, sizeof all, s->allocs);
    fprintf(f, " of %s made there (", all);
    put_api(f, s->api);
    fputs(", ", f);
    put_kind(f, s->kind);
    fputs("), ", f);
    put_bytes(f, s->bytes);
    fputs(" in all\n", f);
    put_cs(r, "    ", s->cs);
}

static void text(struct report_ctx *r);
static void json(struct report_ctx *r, struct json *j);
static void html(struct hw *w, const struct report_ctx *r);

REPORT_SECTION(temporary_row, .order = 55, .name = "temporary", .build = build, .free = drop, .text = text,
               .json = json, .html = html);

/* Nothing when the history holds no temporary allocation. */
static void text(struct report_ctx *r)
{
    const struct temporaries *t = section_state(r, &temporary_row);
    if (t == NULL || t->temporary == 0)
        return;
    FILE *f = r->out;
    char all[32];
    put_title(r, "TEMPORARY ALLOCATIONS");
    fputs("Allocations freed before anything else was allocated or freed, by call\n"
          "stack, most first.  Each is a slow allocation call and a free that waits\n"
          "for the device, for memory used between two calls: a buffer kept across\n"
          "iterations, or a caching allocator, makes neither.\n", f);
    put_count(f, t->temporary, "temporary allocation");
    fmt_commas(all, sizeof all, t->allocs);
    fprintf(f, " of the %s in the history, ", all);
    put_bytes(f, t->bytes);
    fputs(" in all\n", f);
    size_t top = r->top ? r->top : SITES_SHOWN, shown = top < t->n ? top : t->n;
    for (size_t i = 0; i < shown; i++)
        text_site(r, &t->site[i]);
    if (shown < t->n) {
        fputs("\n(", f);
        put_count(f, t->n - shown, "more stack");
        fputs(" not shown; --top N shows more)\n", f);
    }
}

static void json(struct report_ctx *r, struct json *j)
{
    const struct temporaries *t = section_state(r, &temporary_row);
    static const struct temporaries none;
    if (t == NULL)
        t = &none;
    json_key(j, "temporary_allocations");
    json_obj(j);
    json_key(j, "allocations"); json_u64(j, t->allocs);
    json_key(j, "temporary"); json_u64(j, t->temporary);
    json_key(j, "bytes"); json_u64(j, t->bytes);
    json_key(j, "sites");
    json_arr(j);
    for (size_t i = 0; i < t->n; i++) {
        const struct temp_site *s = &t->site[i];
        json_obj(j);
        json_key(j, "temporary"); json_u64(j, s->temporary);
        json_key(j, "allocations"); json_u64(j, s->allocs);
        json_key(j, "bytes"); json_u64(j, s->bytes);
        json_key(j, "api"); json_str(j, gl_api_name(s->api));
        json_key(j, "api_code"); json_u64(j, s->api);
        json_key(j, "kind"); json_str(j, gl_kind_name(s->kind));
        json_key(j, "kind_code"); json_u64(j, s->kind);
        json_key(j, "stack_id"); json_u64(j, s->stack_id);
        json_frames(j, r->db, s->cs);
        json_end_obj(j);
    }
    json_end_arr(j);
    json_end_obj(j);
}

/* The page's "temporary" member: the JSON's figures, HT_ROWS sites at most
 * (the page's bound on a table), "stacks" the number of them all; each
 * site's stack an index into the page's stacks.  All zeros where nothing
 * was built, as the JSON's member. */
static void html(struct hw *w, const struct report_ctx *r)
{
    const struct temporaries *t = section_state(r, &temporary_row);
    static const struct temporaries none;
    if (t == NULL)
        t = &none;
    json_key(&w->j, "temporary");
    json_obj(&w->j);
    kv_u(w, "allocations", t->allocs);
    kv_u(w, "temporary", t->temporary);
    kv_u(w, "bytes", t->bytes);
    kv_u(w, "stacks", t->n);
    json_key(&w->j, "sites");
    json_arr(&w->j);
    for (size_t i = 0; i < t->n && i < HT_ROWS; i++) {
        const struct temp_site *s = &t->site[i];
        json_obj(&w->j);
        kv_u(w, "temporary", s->temporary);
        kv_u(w, "allocations", s->allocs);
        kv_u(w, "bytes", s->bytes);
        kv_s(w, "api", gl_api_name(s->api));
        kv_s(w, "kind", gl_kind_name(s->kind));
        kv_i(w, "stack", hw_stack(w, s->cs));
        json_end_obj(&w->j);
    }
    json_end_arr(&w->j);
    json_end_obj(&w->j);
}
