#include "cli/run.h"
#include "cli/verdict.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/teardown.h"
#include "analysis/torch_steps.h"
#include "model/snap_read.h"
#include "model/symbolize.h"
#include "render/folded/folded.h"
#include "render/html/html.h"
#include "analysis/multi/torch_multi.h"
#include "render/json/multi.h"
#include "render/json/output_json.h"
#include "render/pprof/pprof.h"
#include "render/report.h"
#include "render/sections.h"
#include "render/text/multi.h"
#include "render/text/output_text.h"
#include "render/torch/torch_snapshot.h"
#include "util/xalloc.h"

static bool want_color(const struct cli *c, FILE *out)
{
    if (c->json || c->folded || c->html || c->torch || c->color == 0)
        return false;
    if (c->color == 1)
        return true;
    const char *term = getenv("TERM");
    return isatty(fileno(out)) && !getenv("NO_COLOR") && !(term && strcmp(term, "dumb") == 0);
}

int report_attach(struct msnap *m, struct stackdb *db, const struct suppressions *sup,
                  bool open_files)
{
    m->sy = sym_new(&m->s, open_files);
    if (!m->sy || sview_init(&m->v, &m->s, m->sy, db, sup)) {
        fputs("gpuleak-report: out of memory\n", stderr);
        return 1;
    }
    return 0;
}

void report_detach(struct msnap *m)
{
    sview_free(&m->v);
    sym_free(m->sy);
    snap_free(&m->s);
}

/* The smallest amount --error-exitcode counts. */
static uint64_t finding_floor(const struct cli *c) { return c->an.min_bytes ? c->an.min_bytes : 1; }

/* Whether snapshot s has a PyTorch leak by growth, as a single report's
 * --error-exitcode counts it (cli/verdict.c): diff judges its last
 * snapshot, merge each rank's. */
static bool grew_every_step(const struct cli *c, const struct snapshot *s)
{
    struct growth_verdict gv;
    torch_growth_verdict(s, c->an.growth_steps, finding_floor(c), &gv);
    bool any = gv.n > 0;
    growth_verdict_free(&gv);
    return any;
}

static int run_report(const struct cli *c, struct msnap *m, struct stackdb *db,
                      const struct suppressions *sup, FILE *out, const struct html_multi *hm,
                      bool *found)
{
    struct section_data d;
    struct categories own_cat;
    const struct categories *cat = c->cat;
    if (!cat) {
        char err[64];
        cat_init(&own_cat, NULL, err, sizeof err); /* no file: cannot fail */
        cat = &own_cat;
    }
    struct section_inputs in = {.v = &m->v, .sup = sup, .an = &c->an, .cat = cat};
    if (sections_build(&in, &d) != 0) {
        fputs("gpuleak-report: out of memory\n", stderr);
        if (cat == &own_cat)
            cat_free(&own_cat);
        return 1;
    }
    const struct analysis *a = &d.a;
    struct report_ctx r = {.path = m->path, .s = &m->s, .a = a, .sy = m->sy, .v = &m->v,
                           .db = db, .sup = sup, .h = &d.h, .fr = &d.fr, .ph = &d.ph, .lg = &d.lg,
                           .data = &d, .out = out, .color = want_color(c, out),
                           .sections = c->sections, .top = c->an.top, .min_bytes = c->an.min_bytes,
                           .growth_steps = c->an.growth_steps,
                           .default_suppressions = !c->no_defaults,
                           .suppressions_file = c->supp_file};
    report_prepare(&r);
    struct verdict vd;
    int orc = verdict_count(&r, finding_floor(c), c->an.min_bytes, &vd);
    *found = orc == 0 && vd.errors > 0;
    /* the verdict's file says its own error */
    int vrc = orc == 0 && c->verdict ? verdict_write(c->verdict, &r, &vd) : 0;
    int prc = 0;
    if (orc || vrc)
        ;
    else if (c->html)
        orc = output_html(&r, hm);
    else if (c->torch)
        orc = output_torch_snapshot(&r);
    else if (c->pprof)
        prc = output_pprof(&r, c->pprof); /* 1: its one line printed */
    else if (c->folded)
        output_folded(&r, c->folded == 2);
    else if (c->json)
        output_json(&r);
    else
        output_text(&r);
    report_ctx_free(&r);
    sections_free(&d);
    if (cat == &own_cat)
        cat_free(&own_cat);
    if (orc)
        fputs("gpuleak-report: out of memory\n", stderr);
    return orc || vrc || prc ? 1 : 0;
}

/* --html with several snapshots: the page of the last one, plus the growth
 * per stack across all of them (the diff analysis). */
static int run_html_multi(const struct cli *c, struct msnap *m, size_t n, struct stackdb *db,
                          const struct suppressions *sup, FILE *out, bool *found)
{
    struct diff_result d;
    if (diff_build(m, n, &c->an, &d) != 0) {
        fputs("gpuleak-report: out of memory\n", stderr);
        return 1;
    }
    struct html_multi hm = {m, n, &d};
    int rc = run_report(c, &m[n - 1], db, sup, out, &hm, found);
    diff_free(&d);
    return rc;
}

/* A stack no rule matched whose live bytes grew by at least floor, or an
 * allocator cache that grew by that much at every step.  In a sampled
 * series (one process: sampled alike) the allocations not sampled are no
 * stack: the sampled rows' estimates hold their growth. */
static bool diff_has_growth(const struct diff_result *d, uint64_t floor, bool sampled)
{
    for (size_t i = 0; i < d->t.n; i++) {
        const struct mrow *r = &d->t.rows[i];
        if (sampled && r->cs == 0)
            continue;
        if ((r->rule < 0 || r->cache_growth) && !r->shrank && r->growth >= floor)
            return true;
    }
    return false;
}

/* A warning line that heads the diff or merge, once. */
static void note_once(struct report_ctx *r, const char *note)
{
    for (size_t w = 0; w < r->nwarnings; w++)
        if (strcmp(r->warnings[w], note) == 0)
            return;
    char **nw = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof *nw);
    if (nw) {
        r->warnings = nw;
        r->warnings[r->nwarnings++] = xstrdup(note);
        if (!r->warnings[r->nwarnings - 1])
            r->nwarnings--;
    }
}

/* "[1] every stack, [2] one per 65536 bytes, ...": how each snapshot was
 * sampled, as many as buf holds (then ", ..."). */
static void sampling_list(char *buf, size_t size, const struct msnap *m, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[64];
        const struct snap_sampling *s = &m[i].s.sampling;
        if (s->mode)
            snprintf(one, sizeof one, "%s[%zu] one per %llu bytes", i ? ", " : "", i + 1,
                     (unsigned long long)s->sample_bytes);
        else
            snprintf(one, sizeof one, "%s[%zu] every stack", i ? ", " : "", i + 1);
        if (at + strlen(one) + sizeof ", ..." > size) {
            snprintf(buf + at, size - at, ", ...");
            return;
        }
        at += (size_t)snprintf(buf + at, size - at, "%s", one);
    }
}

/* Sampled snapshots (GPULEAK_MODE=light) in a diff or merge: their rows by
 * stack are estimates (multi.c), and a row never mixes estimates with
 * exact figures, or with another R's, silently. */
static void sampling_notes(struct report_ctx *r, const struct msnap *m, size_t n)
{
    size_t sampled = 0, first = n;
    bool alike = true;
    for (size_t i = 0; i < n; i++) {
        const struct snap_sampling *s = &m[i].s.sampling;
        if (s->mode && sampled++ == 0)
            first = i;
        alike = alike && s->mode == m[0].s.sampling.mode && s->sample_bytes == m[0].s.sampling.sample_bytes;
    }
    if (sampled == 0)
        return;
    char line[512], list[200];
    snprintf(line, sizeof line,
             "%zu of the %zu snapshots %s sampled (GPULEAK_MODE=light, one stack per %llu bytes allocated on "
             "average): their live bytes and counts by stack are estimates from the sampled allocations; the "
             "allocations not sampled are the row with no stack, exact and also in the estimates; totals and "
             "devices are exact",
             sampled, n, sampled == 1 ? "was" : "were", (unsigned long long)m[first].s.sampling.sample_bytes);
    note_once(r, line);
    if (alike)
        return;
    sampling_list(list, sizeof list, m, n);
    snprintf(line, sizeof line,
             "the snapshots were not sampled alike (%s): a stack's figures compare estimates with exact ones, "
             "or estimates of another precision, so a change may be the estimates' error; the totals and "
             "devices are exact", list);
    note_once(r, line);
}

static int run_multi(const struct cli *c, enum mode mode, struct msnap *m, size_t n,
                     struct stackdb *db, const struct suppressions *sup, FILE *out, bool *found)
{
    struct report_ctx r = {.s = &m[0].s, .sy = m[0].sy, .v = &m[0].v, .db = db, .sup = sup,
                           .out = out, .color = want_color(c, out), .sections = sections_all(), .top = c->an.top};
    /* module problems of every snapshot, once each */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < m[i].s.nmodules; k++) {
            const char *note = sym_module_note(m[i].sy, k);
            if (note)
                note_once(&r, note);
        }
    sampling_notes(&r, m, n);
    int rc = 0;
    if (mode == M_DIFF) {
        struct diff_result d;
        if (diff_build(m, n, &c->an, &d) != 0) {
            rc = 1;
        } else {
            struct torch_multi tm; /* tensors of PyTorch's cache that grew at every step */
            torch_multi_build(m, n, &tm);
            bool sampled = m[n - 1].s.sampling.mode != 0; /* one process: all alike */
            *found = diff_has_growth(&d, finding_floor(c), sampled) || free_table_refused_grew(&d.frees) ||
                     torn_table_grew(&d.torn, finding_floor(c)) || torch_multi_suspected(&tm) ||
                     grew_every_step(c, &m[n - 1].s);
            torch_multi_free(&tm);
            if (c->json)
                json_diff(&r, m, n, &d);
            else
                text_diff(&r, m, n, &d);
            diff_free(&d);
        }
    } else {
        struct merge_result mr;
        if (merge_build(m, n, &c->an, &mr) != 0) {
            rc = 1;
        } else {
            for (size_t i = 0; i < n; i++)
                *found = *found || mr.snaps[i].leaked_bytes >= finding_floor(c) ||
                         mr.frees.refused_count[i] > 0 || grew_every_step(c, &m[i].s);
            *found = *found || torn_table_leak_any(&mr.torn, finding_floor(c));
            if (c->html)
                rc = output_html_merge(&r, m, n, &mr) != 0;
            else if (c->json)
                json_merge(&r, m, n, &mr);
            else
                text_merge(&r, m, n, &mr);
            merge_free(&mr);
        }
    }
    if (rc)
        fputs("gpuleak-report: out of memory\n", stderr);
    report_ctx_free(&r);
    return rc;
}

int report_run(const struct cli *c, enum mode mode, struct msnap *m, size_t n,
               struct stackdb *db, const struct suppressions *sup, FILE *out, bool *found)
{
    bool ignored;
    if (found == NULL)
        found = &ignored;
    *found = false;
    if (c->html && n > 1 && mode != M_MERGE)
        return run_html_multi(c, m, n, db, sup, out, found);
    if (mode == M_REPORT)
        return run_report(c, &m[0], db, sup, out, NULL, found);
    return run_multi(c, mode, m, n, db, sup, out, found);
}
